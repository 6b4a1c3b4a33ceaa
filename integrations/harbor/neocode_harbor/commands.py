"""The shell commands the NeoCode agent runs in a Harbor task's container, and what it
reads back from the agent's log folder (Harbor's ``/logs/agent``, the trial's
``agent/`` folder on the host).

A run is ``neocode -p`` with the task's instruction, its JSON result kept in the log folder
and its ATIF trajectory written beside it as it ends (``--trajectory``). The container is the
sandbox: commands run without bubblewrap (which a container seldom allows) and without
asking. Keys reach the run in its environment, never on a command line.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LOGS = "/logs/agent"
RESULT = "neocode.json"
TRAJECTORY = "trajectory.json"
PROVIDERS = {"openai": "openai", "anthropic": "anthropic"}
"""Harbor's provider prefix (``openai/gpt-5``) to NeoCode's provider."""
PASSED = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "NEOCODE_BASE_URL")
"""Variables of Harbor's own environment the run is given (the model's key and address)."""


def install_command(version: str | None = None) -> str:
    """NeoCode from PyPI, in a tool environment of its own (uv's), on the PATH."""
    spec = f"neocode-tui=={version}" if version else "neocode-tui"
    return ("set -euo pipefail; "
            "command -v uv >/dev/null 2>&1 || curl -LsSf https://astral.sh/uv/install.sh | sh; "
            'export PATH="$HOME/.local/bin:$PATH"; '
            f"uv tool install --python 3.12 {shlex.quote(spec)} && neocode --version")


def run_command(instruction: str, logs: str = LOGS, neocode: str = "neocode") -> str:
    """The task, headless, leaving its result and its trajectory; its exit code is the command's."""
    result, trajectory = shlex.quote(f"{logs}/{RESULT}"), shlex.quote(f"{logs}/{TRAJECTORY}")
    return (f'export PATH="$HOME/.local/bin:$PATH"; mkdir -p {shlex.quote(logs)}; '
            f"{neocode} -p {shlex.quote(instruction)} --output-format json --approval full-auto "
            f"--sandbox off --trajectory {trajectory} > {result}")


def run_env(model_name: str | None, environ: Mapping[str, str]) -> dict[str, str]:
    """The run's environment: the model Harbor names (``provider/model``) and its key."""
    env = {name: environ[name] for name in PASSED if environ.get(name)}
    if model_name:
        provider, _, model = model_name.partition("/")
        if model and provider in PROVIDERS:
            env["NEOCODE_PROVIDER"], env["NEOCODE_MODEL"] = PROVIDERS[provider], model
        else:
            env["NEOCODE_MODEL"] = model_name
    env["NEOCODE_EXIT_TRANSCRIPT"] = "false"
    return env


def context_numbers(logs_dir: Path) -> dict[str, Any]:
    """Tokens and cost as Harbor's ``AgentContext`` names them, from the run's JSON result;
    empty when the run left none."""
    try:
        result = json.loads((logs_dir / RESULT).read_text())
    except (OSError, ValueError):
        return {}
    usage = result.get("usage") if isinstance(result, dict) else None
    if not isinstance(usage, dict):
        return {}
    numbers = {"n_input_tokens": usage.get("input_tokens"), "n_cache_tokens": usage.get("cached_input_tokens"),
               "n_output_tokens": usage.get("output_tokens"), "cost_usd": result.get("cost_usd")}
    return {name: value for name, value in numbers.items() if isinstance(value, int | float)}
