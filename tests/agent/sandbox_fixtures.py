"""What the sandbox tests share: a home folder holding credentials, outside /tmp."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SECRET = "ssh-SECRET-4b1d"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder with credentials in it, where a real one would be: outside /tmp."""
    folder = Path(tempfile.mkdtemp(prefix="neocode-home-", dir="/var/tmp"))
    (folder / ".ssh").mkdir()
    (folder / ".ssh" / "id_ed25519").write_text(SECRET)
    (folder / ".aws").mkdir()
    (folder / ".aws" / "credentials").write_text(f"aws_secret_access_key={SECRET}")
    (folder / ".netrc").write_text(f"machine example.com password {SECRET}")
    (folder / ".env").write_text(f"TOKEN={SECRET}")
    (folder / "notes.txt").write_text("just notes")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("NEOCODE_CONFIG_DIR", str(folder / ".config" / "neocode"))
    (folder / ".config" / "neocode").mkdir(parents=True)
    (folder / ".config" / "neocode" / "config.json").write_text(f'{{"key": "{SECRET}"}}')
    yield folder
    shutil.rmtree(folder)
