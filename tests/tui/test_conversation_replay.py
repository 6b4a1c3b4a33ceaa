"""``neocode replay FILE.sse --tui``: a recording played into the real app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from neocode_tui.cli.replay import read_recording
from neocode_tui.cli.replay_tui import build_replay_app, until_played
from tests.support.waits import PATIENCE, screen_shows

STREAMS = Path(__file__).parent.parent / "streams"


async def test_a_recorded_parallel_tool_call_stream_plays_into_the_app(tmp_path: Path, monkeypatch) -> None:
    recording = read_recording(str(STREAMS / "anthropic_thinking_tool_use.sse"))
    app = build_replay_app(recording, "recording.sse", None, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await until_played(app)
        text = await screen_shows(app, pilot, "› (replay of recording.sse)", "∴ Thought for 1 line",
                                  "I'll read both files.", "old.py", "new.py")
    assert text.count("read_file") == 2 and "old.py" in text and "new.py" in text


def test_the_command_exits_by_itself_once_the_turn_is_on_screen(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "neocode_tui", "replay", str(STREAMS / "openai_gpt4o_parallel_tools.sse"),
         "--tui", "--headless", "--exit-when-done", "--rate", "2000"],
        cwd=tmp_path, capture_output=True, text=True, timeout=PATIENCE,
    )
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written in the folder it ran in


def test_a_missing_recording_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "neocode_tui", "replay", "nope.sse", "--tui", "--headless"],
        cwd=tmp_path, capture_output=True, text=True, timeout=PATIENCE,
    )
    assert done.returncode == 2 and "cannot read nope.sse" in done.stderr
