"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.http_model_server import model_server

__all__ = ["model_server"]

USER_VARIABLES = ("OPENAI_", "ANTHROPIC_", "NEOCODE_")


@pytest.fixture(autouse=True)
def isolated_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs in a folder of its own, with config and data folders of its own and
    none of the developer's keys or settings: nothing a test runs can read or touch the user's own files (the
    ``NEOCODE_*_DIR`` overrides work on every platform, unlike XDG variables)."""
    for name in list(os.environ):
        if name.startswith(USER_VARIABLES):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NEOCODE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("NEOCODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)  # no .env or sessions of the checkout's own
    return tmp_path
