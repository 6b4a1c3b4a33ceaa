"""A ``task`` call on screen: one panel following the child, folding to its answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.chat import ChatRequest
from neocode_tui.events import StreamEvent
from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import Press, Release, Scenario, Type, play
from tests.support.subagent_scenes import FILES, FOLDED, RUNNING
from tests.support.waits import screen_shows


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("scenario", [RUNNING, FOLDED], ids=["running", "folded"])
def test_task_panel(scenario: Scenario, size: tuple[int, int], snap_compare, tmp_path: Path) -> None:
    app = scenario.build_app(scenario.prepare(tmp_path))
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: play(scenario, pilot))


async def test_the_panel_follows_the_child_folds_and_unfolds_to_its_transcript(tmp_path: Path) -> None:
    app = RUNNING.build_app(RUNNING.prepare(tmp_path))
    async with app.run_test(size=(100, 32)) as pilot:
        await play(RUNNING, pilot)
        await screen_shows(app, pilot, "task · explore: find --verbose handling", "→ grep verbose in src",
                           "◐ running · 1 tool · 960 tokens")
        await play(RUNNING, pilot, [Release()])
        # Folded to one line of the answer, with the figures: tool uses and the child's tokens.
        shown = await screen_shows(app, pilot, "`--verbose` is not handled yet", "ctrl+t: transcript (4 messages)",
                                   "✓ done · ran 0.0 s · 1 tool · 1,920 tokens", gone=["Where is the --verbose flag"])
        assert "Nothing else in `src` reads the flag." not in shown
        await pilot.press("ctrl+t")
        await screen_shows(app, pilot, "› Where is the --verbose flag handled in src?",
                           "Searching src for the flag.", "→ grep verbose in src",
                           gone=["ctrl+t: transcript"])


async def test_a_resumed_session_shows_the_task_folded_with_its_transcript(tmp_path: Path) -> None:
    workspace = FOLDED.prepare(tmp_path)
    first = FOLDED.build_app(workspace)
    async with first.run_test(size=(100, 32)) as pilot:
        await play(FOLDED, pilot)
        saved = first.session.id
    app = FOLDED.build_app(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await play(FOLDED, pilot, [Type(f"/resume {saved}")])
        await screen_shows(app, pilot, "task · explore: find --verbose handling", "`--verbose` is not handled yet",
                           "ctrl+t: transcript (4 messages)", "✓ done · ran 0.0 s · 1 tool · 1,920 tokens")
        await pilot.press("ctrl+t")
        await screen_shows(app, pilot, "› Where is the --verbose flag handled in src?")


def writer_model(request: ChatRequest) -> list[StreamEvent]:
    if "working for another agent" in request.system:
        if len(request.messages) == 1:
            note = json.dumps({"path": "NOTES.md", "content": "- check --verbose\n"})
            return scripted_reply("", [("write_file", note)])
        return scripted_reply("Wrote NOTES.md.")
    if len(request.messages) == 1:
        arguments = json.dumps({"description": "note it", "prompt": "Note the flag", "agent": "writer"})
        return scripted_reply("", [("task", arguments)])
    return scripted_reply("Noted.")


WRITER = Scenario(
    "task-asks", "a subagent's write asked about", lambda: writer_model, (Type("Take a note"), Release()),
    files={**FILES, ".neocode/agents/writer.md": "---\nname: writer\ndescription: Writes notes\n"
                                                 "tools: Write\n---\nYou write notes.\n"},
)


async def test_a_childs_write_asks_in_the_dialog_naming_the_agent(tmp_path: Path) -> None:
    workspace = WRITER.prepare(tmp_path)
    app = WRITER.build_app(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await play(WRITER, pilot)
        await screen_shows(app, pilot, "the writer agent asks: Allow write_file? write NOTES.md",
                           "awaiting your approval")
        await play(WRITER, pilot, [Press("y"), Release()])
        await screen_shows(app, pilot, "Wrote NOTES.md.", "Noted.")
    assert (workspace / "NOTES.md").read_text() == "- check --verbose\n"
