"""A bell or a desktop notification when the agent waits for the user, only while the
terminal window has no focus: the bytes written to the terminal, through the real app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual import events

from neocode_tui.errors import SettingsError
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.load import load_settings
from neocode_tui.settings.model import NotifyMode, Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.attention import notification
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.approval import ApprovalScreen
from tests.support.processes import waiting_for
from tests.support.waits import screen_shows, wait_until

_STARTS = ("\a", "\x1b]9;", "\x1b]777;")


def test_each_mode_builds_its_sequence_and_text_cannot_break_out_of_it() -> None:
    assert notification("off", "done") == ""
    assert notification("bell", "done") == "\a"
    assert notification("osc9", "done: your turn") == "\x1b]9;NeoCode: done: your turn\a"
    assert notification("osc777", "a; b") == "\x1b]777;notify;NeoCode;a; b\a"
    hostile = "approval needed: rm -rf x\a\x1b]52;c;cGF5bG9hZA==\x07\x9c"
    sequence = notification("osc9", hostile)
    assert sequence.count("\a") == 1 and sequence.count("\x1b") == 1 and "\x9c" not in sequence


def test_notify_is_a_setting_with_a_clear_message_for_a_bad_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_settings(tmp_path).settings.notify == "bell"
    monkeypatch.setenv("NEOCODE_NOTIFY", "osc777")
    assert load_settings(tmp_path).settings.notify == "osc777"
    monkeypatch.setenv("NEOCODE_NOTIFY", "loud")
    with pytest.raises(SettingsError) as caught:
        load_settings(tmp_path)
    expected = "the environment (NEOCODE_NOTIFY): 'loud': Input should be 'off', 'bell', 'osc9' or 'osc777'"
    assert expected in str(caught.value)


def app_with(
    tmp_path: Path, notify: NotifyMode, turns: list[object], approval: str = "full-auto"
) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    settings = Settings(provider="scripted", approval=approval, notify=notify)  # type: ignore[arg-type]
    return NeoCodeApp(settings, ScriptedProvider(turns), workspace, remember_theme=False)  # type: ignore[arg-type]


class Terminal:
    """What the app writes to its terminal, caught at the driver's one write method."""

    def __init__(self, app: NeoCodeApp) -> None:
        assert app._driver is not None
        self.written: list[str] = []
        write = app._driver.write

        def spy(data: str) -> None:
            self.written.append(data)
            write(data)

        app._driver.write = spy  # type: ignore[method-assign]

    @property
    def calls(self) -> list[str]:
        return [data for data in self.written if data.startswith(_STARTS)]


async def send(app: NeoCodeApp, pilot, text: str, *, typed: bool = True) -> None:
    """Typed with keys (a key press tells the app its window has focus), or not, as a
    prompt given on the command line starts while the user is elsewhere."""
    if typed:
        app.prompt.insert(text)
        await pilot.press("enter")
    else:
        app.prompt.post_message(app.prompt.Submitted(app.prompt, text))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("bell", "\a"), ("osc9", "\x1b]9;NeoCode: done: your turn\a"),
     ("osc777", "\x1b]777;notify;NeoCode;done: your turn\a"), ("off", None)],
)
async def test_a_finished_turn_calls_back_only_while_the_terminal_is_not_focused(
    tmp_path: Path, mode: NotifyMode, expected: str | None
) -> None:
    app = app_with(tmp_path, mode, [scripted_reply("first"), scripted_reply("second")])
    async with app.run_test(size=SIZE) as pilot:
        terminal = Terminal(app)
        await send(app, pilot, "go")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the first run to end")
        await pilot.pause()
        assert terminal.calls == []  # watched: nothing
        app.post_message(events.AppBlur())
        await send(app, pilot, "again", typed=False)
        await wait_until(lambda: "second" in str(app.session.messages), pause=pilot.pause, what="the answer")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the second run to end")
        await wait_until(lambda: terminal.calls == ([expected] if expected else []), pause=pilot.pause,
                         what=f"the call back {expected!r}")


async def test_an_approval_waiting_unwatched_sends_a_notification_naming_it(tmp_path: Path) -> None:
    call = ("write_file", json.dumps({"path": "notes.md", "content": "hello\n"}))
    turns = [scripted_reply("Writing.", [call]), scripted_reply("ok")]
    app = app_with(tmp_path, "osc9", turns, approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        terminal = Terminal(app)
        app.post_message(events.AppBlur())
        await send(app, pilot, "write the notes", typed=False)
        await wait_until(
            lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause, what="the question"
        )
        await wait_until(lambda: bool(terminal.calls), pause=pilot.pause, what="the notification")
        assert len(terminal.calls) == 1
        assert terminal.calls[0].startswith("\x1b]9;NeoCode: approval needed: ")
        assert "notes.md" in terminal.calls[0]


async def test_a_background_command_ending_while_idle_is_told_on_screen_and_called_back(tmp_path: Path) -> None:
    call = ("bash", json.dumps({"command": f"{waiting_for('go')}; exit 4", "run_in_background": True}))
    app = app_with(tmp_path, "osc9", [scripted_reply("Started.", [call]), scripted_reply("ok")])
    async with app.run_test(size=SIZE) as pilot:
        terminal = Terminal(app)
        await send(app, pilot, "start it")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run to end")
        app.post_message(events.AppBlur())
        await pilot.pause()
        (app.workspace / "go").touch()
        await wait_until(lambda: bool(terminal.calls), pause=pilot.pause, what="the notification")
        [called] = terminal.calls
        assert called.startswith("\x1b]9;NeoCode: background command b1 (until [ -e go ]")
        assert "ended: exit code 4" in called
        await screen_shows(app, pilot, "ℹ background command b1", "ended: exit code 4", "/ps shows its last lines")
