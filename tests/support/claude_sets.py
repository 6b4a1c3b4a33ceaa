"""Claude Code setups people use, as npm publishes them (tests/node/package.json pins each):
NextSpark's agents, commands in subfolders and skills with bundled scripts (MIT), and
selfish-pipeline's commands with ``!`command``` lines and its agents (MIT). A test copies
what it needs into a workspace or a home folder, as a user would."""

from __future__ import annotations

import shutil
from pathlib import Path

NODE_MODULES = Path(__file__).resolve().parents[1] / "node" / "node_modules"
NEXTSPARK = NODE_MODULES / "@nextsparkjs" / "ai-workflow" / "claude"
SELFISH = NODE_MODULES / "selfish-pipeline"


def copied(source: Path, target: Path) -> Path:
    """``source`` (a file or a folder) copied to ``target``, which is returned."""
    assert source.exists(), f"{source} is missing: run npm ci --prefix tests/node"
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copy2(source, target)
    return target
