"""How long things took, on screen: a thought while and after the model thinks, a command's
``ran N s`` kept in the session file and shown again on resume, as is where a command went
(the background) and NeoCode's note of its end. The app's clock is the test's, so each
time is exact."""

from __future__ import annotations

import json
import math
from pathlib import Path

from neocode_tui.agent.notes import NOTICE_HEADER
from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message, ToolCall
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, StepProvider
from tests.support.waits import screen_shows, started, wait_until


async def test_a_thought_shows_how_long_it_took(tmp_path: Path) -> None:
    clock = [50.0]
    provider = StepProvider(ScriptedProvider([scripted_reply("Done.", reasoning="Let me think.", delta=5)]))
    app = NeoCodeApp(Settings(provider="scripted"), provider, tmp_path, clock=lambda: clock[0],
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"think", "enter")
        provider.allow(2)
        await wait_until(lambda: provider.held, pause=pilot.pause, what="two deltas of thought")
        await screen_shows(app, pilot, "∴ Thinking… (1 line)", gone=["(1 line) ·"])
        clock[0] = 53.1
        await screen_shows(app, pilot, "∴ Thinking… (1 line) · 3.1 s")
        clock[0] = 54.0
        provider.allow(math.inf)
        await screen_shows(app, pilot, "∴ Thought for 1 line · 4.0 s · Ctrl+T or click to expand", "Done.")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run's end")
        saved = app.session.id
    # Resumed, the thought keeps its time.
    again = NeoCodeApp(Settings(provider="scripted"), None, tmp_path, resume=saved, remember_theme=False)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        await screen_shows(again, pilot, "∴ Thought for 1 line · 4.0 s · Ctrl+T or click to expand", "Done.")


async def test_a_resumed_command_panel_says_how_long_it_ran(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    call = ToolCall(id="c1", name="bash", arguments=json.dumps({"command": "make test"}))
    for message in (
        Message(role="user", content="run the tests"),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", content="all passed", tool_call_id="c1", name="bash", duration=83.4),
        Message(role="assistant", content="They pass."),
    ):
        store.append_message(message)
    store.close()
    app = NeoCodeApp(Settings(provider="scripted"), None, tmp_path, resume=store.id, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await screen_shows(app, pilot, "$ make test", "✓ done · ran 1 min 23 s", "They pass.")


async def test_a_resumed_background_command_and_the_note_of_its_end_are_drawn_as_they_were(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    call = ToolCall(id="c1", name="bash", arguments=json.dumps({"command": "npm run dev"}))
    result = ("id: b1\n[sent to the background by the user: bash_output b1 reads its output, "
              "kill_bash b1 stops it]\nready on :3000")
    note = (f"{NOTICE_HEADER}\n- background command b1 (npm run dev) ended: exit code 1; "
            "bash_output b1 reads the rest of its output")
    for message in (
        Message(role="user", content="start the server"),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", content=result, tool_call_id="c1", name="bash", duration=2.5, job="b1"),
        Message(role="assistant", content="It runs."),
        Message(role="user", content=note, notice=True),
        Message(role="user", content="is it still up?"),
        Message(role="assistant", content="It stopped."),
    ):
        store.append_message(message)
    store.close()
    app = NeoCodeApp(Settings(provider="scripted"), None, tmp_path, resume=store.id, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        shown = await screen_shows(
            app, pilot, "↗ went on in the background as b1", "ready on :3000",
            "ℹ background command b1 (npm run dev) ended: exit code 1", "› is it still up?")
        assert "✓ done" not in shown and "kill_bash" not in shown and "NeoCode's notice" not in shown
        assert "› background command" not in " ".join(shown.split()), "a notice, not the user's words"
