"""How the code and its tests are laid out, read from the source (``tests.support.shape``,
``tests.support.layout``): the parts that must not grow back."""

from __future__ import annotations

from pathlib import Path

from tests.support.layout import helpers_in_conftests, imports_of_test_modules
from tests.support.shape import circles, graph, is_front_end, modules


def test_tests_share_only_support_and_conftests_hold_only_fixtures(tmp_path: Path) -> None:
    # Each check finds what it is for, in a tree made to break both rules:
    planted = tmp_path / "tests"
    (planted / "agent").mkdir(parents=True)
    (planted / "agent" / "test_one.py").write_text("def test_one():\n    pass\n")
    (planted / "agent" / "test_two.py").write_text(
        "from tests.agent.test_one import test_one\nfrom . import test_one as again\n"
        "from tests.agent import conftest\n")
    (planted / "agent" / "conftest.py").write_text(
        "import pytest\nLIMIT = 3\n\n@pytest.fixture\ndef ready():\n    return helper()\n\n"
        "def helper():\n    return 1\n\nclass Helper:\n    pass\n\ndef pytest_configure(config):\n    pass\n")
    assert imports_of_test_modules(planted) == [
        "tests/agent/test_two.py: tests.agent.conftest",
        "tests/agent/test_two.py: tests.agent.test_one",
        "tests/agent/test_two.py: tests.agent.test_one.test_one",
    ]
    assert helpers_in_conftests(planted) == ["tests/agent/conftest.py:8: helper",
                                             "tests/agent/conftest.py:11: Helper"]

    # and the real tests keep to both: what they share lives in tests/support.
    assert imports_of_test_modules() == []
    assert helpers_in_conftests() == []


def test_the_front_ends_have_no_import_circle() -> None:
    """A module of the app or the commands that imports, however indirectly, one that imports
    it back works only in one import order; each front-end module stands on those below it
    (a narrow Protocol says what it needs of the app, ``cli.parser`` is what the commands share)."""
    found = circles(graph(modules()))
    assert [group for group in found if any(is_front_end(name) for name in group)] == []
