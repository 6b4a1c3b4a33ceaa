"""A resumed session looks as it did: a denied call reads denied and an interrupted one
interrupted, not both "failed"; a command stopped part way keeps the lines it had printed,
and where a run was interrupted the notice that said so is there again."""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot

from neocode_tui.events import MessageDone, StreamEvent
from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, Type
from neocode_tui.tui.screens.approval import ApprovalScreen
from tests.support.apps import scenario_app, scripted_app
from tests.support.reading import reading
from tests.support.screens import SCREENS
from tests.support.waits import screen_shows, started, wait_until


async def test_a_denied_call_reads_denied_after_a_resume(tmp_path: Path) -> None:
    app = scenario_app("approval", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCREENS["approval"].steps)
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), what="the approval dialog")
        await pilot.press("escape")  # no
        await driver.step(Release())
        live = await screen_shows(app, pilot, "⊘ denied")
        assert "✗ failed" not in live

    again = NeoCodeApp(Settings(provider="scripted"), app.provider, app.workspace, resume="",
                       remember_theme=False)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(again, pilot, "resumed session", "⊘ denied")
        assert "✗ failed" not in resumed


async def test_an_interrupted_command_reads_interrupted_after_a_resume(tmp_path: Path) -> None:
    command = json.dumps({"command": "printf 'mark%s\\n' er; sleep 600"})
    app = scripted_app(tmp_path, [scripted_reply("", [("bash", command)])], approval="full-auto")
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("wait")])
        app.provider.allow(float("inf"))  # type: ignore[attr-defined]  # a step would settle: it never ends
        await screen_shows(app, pilot, "marker")  # its output: the command runs
        await pilot.press("escape")
        await screen_shows(app, pilot, "⏹ interrupted")

    again = NeoCodeApp(Settings(provider="scripted"), app.provider, app.workspace, resume="",
                       remember_theme=False)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(again, pilot, "resumed session", "⏹ interrupted")
        assert "✗ failed" not in resumed


def resumed_app(app: NeoCodeApp, size: tuple[int, int] = SIZE) -> NeoCodeApp:
    """The app started again on the same folder with ``--continue``."""
    return NeoCodeApp(Settings(provider="scripted"), app.provider, app.workspace, resume="",
                      remember_theme=False)


INTERRUPTED_NOTICE = "Interrupted by you: the run stopped here; send a message to go on."
STOPPED_COMMAND = 'for n in $(seq 1 30); do echo "step $n of 30"; done; sleep 600'


async def stop_a_command(app: NeoCodeApp, pilot: Pilot[NeoCodeApp]) -> str:
    """Run ``STOPPED_COMMAND`` until it has printed its 30 lines, then Esc; the screen then."""
    await Driver(pilot).play([Type("build it")])
    app.provider.allow(float("inf"))  # type: ignore[attr-defined]  # a step would settle: it never ends
    await screen_shows(app, pilot, "step 30 of 30")
    await pilot.press("escape")
    return await screen_shows(app, pilot, "⏹ interrupted", INTERRUPTED_NOTICE)


def command_turns() -> list[list[StreamEvent]]:
    return [scripted_reply("Running it.", [("bash", json.dumps({"command": STOPPED_COMMAND}))])]


async def test_a_stopped_command_keeps_its_lines_and_the_notice_after_a_resume(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, command_turns(), approval="full-auto")
    async with app.run_test(size=(100, 40)) as pilot:
        live = await stop_a_command(app, pilot)
        assert "… 20 earlier lines" in live and "step 21 of 30" in live

    again = resumed_app(app)
    async with again.run_test(size=(100, 40)) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(
            again, pilot, "resumed session", "⏹ interrupted", "… 20 earlier lines", "step 21 of 30",
            "step 30 of 30", "stopped and may have done part of its work", INTERRUPTED_NOTICE,
        )
        assert "step 20 of 30" not in resumed  # the same last lines as live, the rest counted
        # The notice is the screen's: the model is sent a valid history without it.
        messages = again.session.messages
        assert [m.role for m in messages] == ["user", "assistant", "tool"]
        assert messages[2].tool_call_id == messages[1].tool_calls[0].id
        assert all(INTERRUPTED_NOTICE not in m.content for m in messages)
        assert "step 30 of 30" not in messages[2].content


async def test_an_answer_interrupted_while_it_streamed_keeps_its_notice_after_a_resume(
    tmp_path: Path,
) -> None:
    answer = "The loader reads the index twice because the cache is cold."
    app = scripted_app(tmp_path, [scripted_reply(answer, delta=4)])
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("why twice?"), Release(6)])
        await screen_shows(app, pilot, "The loader reads")
        await wait_until(lambda: app.provider.held, pause=pilot.pause, what="the stream held")
        await pilot.press("escape")
        await screen_shows(app, pilot, INTERRUPTED_NOTICE)

    again = resumed_app(app)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(again, pilot, "resumed session", "The loader reads",
                                     INTERRUPTED_NOTICE)
        assert "cache is cold" not in resumed  # what was shown, not the rest of the answer
        assert [m.role for m in again.session.messages] == ["user", "assistant"]


async def test_an_answer_cut_at_the_token_limit_says_so_again_after_a_resume(tmp_path: Path) -> None:
    cut = "the answer was cut off at the model's output token limit"
    turn = [*scripted_reply("The first half of a long answer")[:-1], MessageDone(finish_reason="length")]
    app = scripted_app(tmp_path, [turn, scripted_reply("The rest.")])
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("explain"), Release(), Type("go on"), Release()])
        live = await screen_shows(app, pilot, "The rest.", cut)

    again = resumed_app(app)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(again, pilot, "resumed session", "The rest.", cut)
    for screen in (live, resumed):  # after the answer it cut, before the next prompt
        first, notice, second = (reading(screen).index(text) for text in ("first half", cut, "go on"))
        assert first < notice < second
    sent = app.provider.inner.requests[1].messages  # type: ignore[attr-defined]
    assert all(cut not in m.content for m in sent)
