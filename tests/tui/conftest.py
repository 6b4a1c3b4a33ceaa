"""Fixtures of the app's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dialects import Dialect
from tests.support.headless import headless_env
from tests.support.tmux import Tmux


@pytest.fixture
def tmux(tmp_path: Path, openai_only: Dialect) -> Iterator[Tmux]:
    """A tmux server of the test's own, whose programs' model is ``openai_only``; ended after."""
    server = Tmux(tmp_path / "tmux.socket", headless_env(openai_only, TERM="xterm-256color"))
    yield server
    if server.socket.exists():
        server("kill-server")
