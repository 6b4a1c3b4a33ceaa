"""A resumed session too long for the model's window, in the app: the meter reads what the
next request will send (not the whole history against the window), the history stays on
screen, and the next prompt compacts it first."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type
from tests.support.long_session import WINDOW, long_session
from tests.support.waits import screen_shows, started, wait_until


async def test_a_resumed_session_too_long_reads_what_will_be_sent_and_is_compacted_first(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    total = long_session(workspace)
    provider = StepProvider(ScriptedProvider([
        scripted_reply("They asked why each step reads twice."),  # the summary
        scripted_reply("All fixed."),
    ]))
    app = NeoCodeApp(Settings(provider="scripted", context_window=WINDOW), provider, workspace,
                     resume="", remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        figure = app.session.meter.context
        assert figure.fraction is not None and 0.5 < figure.fraction <= 0.85
        shown = await screen_shows(app, pilot, "resumed session", f"ctx ~{figure.fraction:.0%}",
                                   "question 499:")
        assert shown.count("ctx ") == 1  # that figure, not the whole history's 1,600 %
        assert len(app.session.messages) == total

        await Driver(pilot).play([Type("now fix them all"), Release()])
        await screen_shows(app, pilot, "compacted 1,992 messages", "the history is more than fits the window",
                           "All fixed.")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run's end")
        after = app.session.meter.context
        assert after.fraction is not None and after.fraction < 0.5  # the summary and the last two turns
