"""The Harbor adapter's command module, loaded from integrations/harbor as Harbor's
environment would import it (it imports nothing of Harbor, which needs Python 3.12), and a
small task laid out as Harbor's are: an instruction and a verifier script."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ADAPTER = Path(__file__).resolve().parents[2] / "integrations" / "harbor" / "neocode_harbor"


def adapter_commands() -> ModuleType:
    spec = importlib.util.spec_from_file_location("neocode_harbor_commands", ADAPTER / "commands.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hello_task(root: Path) -> Path:
    """``instruction.md`` asking for hello.txt, ``tests/test.sh`` checking it, ``app/`` to work in."""
    (root / "tests").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "instruction.md").write_text("Create hello.txt in the current folder containing the word hello.\n")
    (root / "tests" / "test.sh").write_text('#!/bin/sh\ngrep -qx hello "$1/hello.txt" && echo 1 || echo 0\n')
    (root / "tests" / "test.sh").chmod(0o755)
    return root
