"""A Claude Code session and a Codex rollout, imported, open in the app with ``--resume``:
their prompts, answers and tool calls are on the screen as NeoCode's own would be."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.interchange import read_transcript, save_imported
from neocode_tui.providers.scripted import ScriptedProvider
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.other_agents import claude_code_file, codex_file
from tests.support.waits import screen_shows, started


async def test_imported_sessions_open_in_the_app_with_their_calls(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    for made, shown in ((claude_code_file(tmp_path, "sk-never-shown"), ("It holds app.py and a README.", "Bash")),
                        (codex_file(tmp_path, "sk-never-shown"), ("Added a module docstring", "apply_patch"))):
        session_id = save_imported(read_transcript(made, lambda text: text.replace("sk-never-shown", "[redacted]")),
                                   workspace, "scripted")
        app = NeoCodeApp(Settings(provider="scripted"), ScriptedProvider([]), workspace, resume=session_id,
                         remember_theme=False)
        async with app.run_test(size=SIZE) as pilot:
            await started(app, pilot)
            screen = await screen_shows(app, pilot, "resumed session", *shown)
            assert "sk-never-shown" not in screen
