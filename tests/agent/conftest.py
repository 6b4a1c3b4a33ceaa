"""Fixtures of the agent tests (their model, ``dialect`` and ``openai_only``, is every
folder's: tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from neocode_tui.agent.sandbox.bubblewrap import probe
from tests.support.sandbox import planted_home


@pytest.fixture
def isolated_dirs(isolated_user: Path) -> Path:
    """The folder holding this test's own ``config`` and ``data`` folders."""
    return isolated_user


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder with credentials in it, where a real one would be: outside /tmp (a
    test module that wants a plain home of its own defines its own ``home``)."""
    folder = planted_home()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("NEOCODE_CONFIG_DIR", str(folder / ".config" / "neocode"))
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace, the home folder and /tmp: read-only in the sandbox."""
    folder = Path(tempfile.mkdtemp(prefix="neocode-outside-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def no_user_namespaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A bubblewrap that fails as it does on a kernel without unprivileged namespaces."""
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, "
                    "likely because the kernel does not allow non-privileged user "
                    "namespaces.' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    probe.cache_clear()
    yield
    probe.cache_clear()
