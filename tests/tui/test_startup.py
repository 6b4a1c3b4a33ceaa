"""Start-up: ``neocode``'s first frame is the whole screen, drawn before the agent loads.

The conversation with its opening notices, the input and the status bar come first; the
agent session (its loop, tools, MCP servers, hooks), the price list, Markdown and Pygments
load after that frame. How fast that is, is measured in bench/bench_startup.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

LATER = (
    "neocode_tui.agent.session", "neocode_tui.agent.tools", "neocode_tui.agent.mcp",
    "neocode_tui.agent.hooks", "genai_prices", "markdown_it", "pygments", "rapidfuzz",
    "pathspec", "httpx", "yaml",
)
"""What the first frame does not wait for."""

FIRST_FRAME = f"""
import io, json, os, runpy, sys
from rich.console import Console
from textual.app import App

def first_frame(app, screen, renderable):
    console = Console(width=app.size.width, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(renderable)
    loaded = [name for name in {LATER!r} if name in sys.modules]
    print(json.dumps({{"screen": console.export_text(), "loaded": loaded}}), flush=True)
    os._exit(0)

display = App._display
App._display = lambda app, screen, update: (
    first_frame(app, screen, update) if update is not None else display(app, screen, update)
)
sys.argv = ["neocode"]
runpy.run_module("neocode_tui", run_name="__main__", alter_sys=True)
"""
"""``python -m neocode_tui`` on Textual's headless driver, reporting its first frame."""


def test_the_first_frame_shows_the_whole_screen_before_the_agent_loads(tmp_path: Path) -> None:
    workspace, data, config = (tmp_path / name for name in ("project", "data", "config"))
    for folder in (workspace, data, config):
        folder.mkdir()
    env = {key: value for key, value in os.environ.items()
           if "API_KEY" not in key and not key.startswith(("NEOCODE_", "TEXTUAL"))}
    env.update(NEOCODE_DATA_DIR=str(data), NEOCODE_CONFIG_DIR=str(config), COLUMNS="100",
               LINES="30", TEXTUAL_DRIVER="textual.drivers.headless_driver:HeadlessDriver")
    run = subprocess.run([sys.executable, "-c", FIRST_FRAME], cwd=workspace, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    frame = json.loads(run.stdout.splitlines()[-1])
    screen = frame["screen"]
    assert "NeoCode" in screen and "type a task and press Enter" in screen
    assert "No API key: this is the offline scripted model" in screen
    assert "approval: ask" in screen  # the status bar, from the settings
    assert frame["loaded"] == []
