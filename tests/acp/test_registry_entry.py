"""integrations/acp-registry/neocode/agent.json, the entry that lists NeoCode in the ACP
registry: valid in the registry's format, and naming a command that runs this NeoCode."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError

from neocode_tui import __version__
from tests.support.acp_registry import AgentEntry
from tests.support.waits import PATIENCE

ROOT = Path(__file__).parents[2]
ENTRY = ROOT / "integrations" / "acp-registry" / "neocode" / "agent.json"


def test_the_entry_is_valid_and_runs_this_version_through_uvx() -> None:
    entry = AgentEntry.model_validate_json(ENTRY.read_text(encoding="utf-8"))
    assert entry.id == ENTRY.parent.name  # the registry's check: the folder is the id
    assert entry.version == __version__
    uvx = entry.distribution.uvx
    assert uvx is not None and uvx.args == ["acp"]
    # The registry runs ``uvx PACKAGE ARGS``: the package pinned to this version, and a
    # command of the package's own name, which is neocode.
    name, _, version = uvx.package.partition("==")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (name, version) == (project["name"], __version__)
    assert project["scripts"][name] == project["scripts"]["neocode"]
    command = Path(sys.executable).parent / name
    shown = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=PATIENCE)
    assert shown.stdout.strip() == f"neocode {__version__}"


@pytest.mark.parametrize("broken", [
    {"id": "NeoCode"}, {"version": "latest"}, {"description": ""},
    {"distribution": {}}, {"distribution": {"pip": {"package": "neocode-tui"}}},
])
def test_the_model_refuses_what_the_registry_schema_refuses(broken: dict[str, object]) -> None:
    entry = {**json.loads(ENTRY.read_text(encoding="utf-8")), **broken}
    with pytest.raises(ValidationError):
        AgentEntry.model_validate(entry)
