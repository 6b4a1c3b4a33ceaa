"""Fixtures shared by every test folder."""

from __future__ import annotations

import compileall
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from neocode_tui.known_secrets import named_secrets
from tests.support.dialects import Dialect
from tests.support.model_server import ModelServer

PACKAGE = Path(__file__).resolve().parents[1] / "neocode_tui"


def pytest_configure(config: pytest.Config) -> None:
    """Compiles NeoCode's modules once, as an install does: the suite starts hundreds of
    ``neocode`` processes, and with ``PYTHONDONTWRITEBYTECODE`` set (as on some machines)
    a checkout is never compiled, so each of them compiled every module again (two thirds
    more instructions to a headless run's first request). ``__pycache__`` is ignored by git;
    a module already compiled and unchanged is skipped."""
    compileall.compile_dir(PACKAGE, quiet=1)


USER_VARIABLES = ("OPENAI_", "ANTHROPIC_", "NEOCODE_")


@pytest.fixture(autouse=True)
def isolated_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs in a folder of its own, with config and data folders of its own and
    none of the developer's keys, settings or home: nothing a test runs can read or touch the user's own files (the
    ``NEOCODE_*_DIR`` overrides work on every platform, unlike XDG variables)."""
    for name, value in list(os.environ.items()):
        # The developer's tokens too: NeoCode would scrub them, holding back streamed text.
        if name.startswith(USER_VARIABLES) or named_secrets(name, value):
            monkeypatch.delenv(name)
    # pytest-xdist's workers run with COLUMNS=80 and LINES=24: a program a test starts in a
    # real terminal (tmux, a pty) would take them over the terminal's own size.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    # A home of its own: the developer's ~/.claude (hooks, a status line, agents) is not the test's.
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))  # made by a test that needs it
    for role in ("AUTHOR", "COMMITTER"):  # git's identity came from the developer's ~/.gitconfig
        monkeypatch.setenv(f"GIT_{role}_NAME", "NeoCode Tests")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "tests@neocode.invalid")
    monkeypatch.setenv("NEOCODE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("NEOCODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)  # no .env or sessions of the checkout's own
    return tmp_path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project to work in: one Python file."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def greet():\n    return 'hello'\n\nprint(greet())\n")
    return root


@pytest.fixture
async def model_server() -> AsyncIterator[ModelServer]:
    """A fresh ``ModelServer`` per test, closed after it."""
    async with ModelServer() as server:
        yield server


@pytest.fixture(params=["openai", "anthropic"])
async def dialect(request, model_server) -> Dialect:
    return Dialect(request.param, model_server)


@pytest.fixture
async def openai_only(model_server) -> Dialect:
    """For behaviour that does not depend on the wire format."""
    return Dialect("openai", model_server)
