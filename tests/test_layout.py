"""The package's layout, counted from its source (``tests.support.shape``): the parts that
must not grow back."""

from tests.support.shape import circles, graph, is_front_end, modules


def test_the_front_ends_have_no_import_circle() -> None:
    """A module of the app or the commands that imports, however indirectly, one that imports
    it back works only in one import order; each front-end module stands on those below it
    (a narrow Protocol says what it needs of the app, ``cli.parser`` is what the commands share)."""
    found = circles(graph(modules()))
    assert [group for group in found if any(is_front_end(name) for name in group)] == []
