"""Claude Code guard hooks as their packages publish them, configured where and as Claude Code
users configure them: cc-safety-net from npm (MIT, JavaScript: denies ``git reset --hard``
and reading ``.env``), azet-guard (Apache-2.0, Python: asks before a ``.env`` is read, set up
by its own installer) and cervellaswarm-agent-hooks' bash validator (Apache-2.0, Python:
asks before ``git reset --hard``) from PyPI. tests/node/package.json and pyproject.toml's dev
extras pin each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.claude_sets import NODE_MODULES
from tests.support.git_repo import git

BIN = Path(sys.executable).parent
SAFETY_NET = NODE_MODULES / "cc-safety-net" / "dist" / "bin" / "cc-safety-net.js"
SAFETY_NET_HOOK = f"node {SAFETY_NET} --claude-code"
"""The hook command cc-safety-net's Claude Code plugin runs."""
CERVELLA_HOOK = str(BIN / "cervella-bash-validator")
SECRET = "DB_PASSWORD=hunter2-kept-out"
WORK = "def greet():\n    return 'hello, uncommitted work'\n"


def claude_settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def add_hook(settings: Path, event: str, matcher: str, command: str, timeout: int = 30) -> None:
    """One more hook in a Claude Code settings file, the others kept."""
    data: dict[str, Any] = json.loads(settings.read_text()) if settings.exists() else {}
    entry = {"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}
    data.setdefault("hooks", {}).setdefault(event, []).append(entry)
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(data, indent=2))


def install_azet_guard(home: Path) -> None:
    """azet-guard's own installer, writing the user's ~/.claude/settings.json."""
    assert (BIN / "azet-guard").exists(), "azet-guard is missing: pip install -e '.[dev]'"
    subprocess.run([str(BIN / "azet-guard"), "install"], env={**os.environ, "HOME": str(home)},
                   check=True, capture_output=True, timeout=60)


def python_guards(home: Path) -> None:
    install_azet_guard(home)
    add_hook(claude_settings(home), "PreToolUse", "Bash", CERVELLA_HOOK)


def javascript_guard(home: Path) -> None:
    assert SAFETY_NET.exists(), f"{SAFETY_NET} is missing: run npm ci --prefix tests/node"
    add_hook(claude_settings(home), "PreToolUse", "Bash|Read|Write|Edit|Glob|Grep|LS", SAFETY_NET_HOOK)


def guarded_project(workspace: Path) -> None:
    """A git project with uncommitted work in app.py and a secret in .env."""
    (workspace / "app.py").write_text("def greet():\n    return 'hello'\n")
    git(workspace, "init", "-q")
    git(workspace, "commit", "-q", "--allow-empty", "-m", "start")
    git(workspace, "add", "app.py")
    git(workspace, "commit", "-q", "-m", "app")
    (workspace / "app.py").write_text(WORK)
    (workspace / ".env").write_text(SECRET + "\n")
