"""Nothing the model, a command, a file or a server sends reaches the terminal as a control:
the app shows each one escaped, and what Textual writes to its driver carries none of them."""

from __future__ import annotations

import json
from pathlib import Path

from textual import events

from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message
from neocode_tui.events import StreamError, TextDelta
from neocode_tui.providers.scripted import ScriptedProvider, TurnSource, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.approval import ApprovalScreen
from neocode_tui.tui.screens.session_picker import SessionPicker
from tests.support.mcp_config import user_config
from tests.support.reading import screen_text, terminal_output
from tests.support.terminal import HOSTILE, HOSTILE_LINES, PIECES, WITHOUT_CR, foreign_controls, missing
from tests.support.waits import screen_shows, wait_until


def app_for(tmp_path: Path, turns: TurnSource, **settings: str) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    (workspace / "evil.txt").write_text(HOSTILE_LINES)
    provider = ScriptedProvider(turns)
    return NeoCodeApp(Settings(provider="scripted", **settings), provider, workspace, remember_theme=False)


def assert_nothing_reaches_the_terminal(app: NeoCodeApp) -> None:
    written = terminal_output(app)
    assert [raw for raw, _ in PIECES if raw in written] == []
    assert foreign_controls(written) == []


async def send(app: NeoCodeApp, pilot, prompt: str) -> None:
    app.prompt.load_text(prompt)
    await pilot.press("enter")


async def test_model_text_thinking_and_a_tool_name_are_shown_escaped(tmp_path: Path) -> None:
    reply = scripted_reply(
        f"Answer: {HOSTILE}", [("look\x1b]0;pwned\x07", "{}")], reasoning=f"Thinking: {HOSTILE}",
        delta=3,  # every sequence arrives cut across deltas
    )
    app = app_for(tmp_path, [reply, scripted_reply("done.")], approval="full-auto")
    async with app.run_test(size=(160, 50)) as pilot:
        await send(app, pilot, "go")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run's end")
        await pilot.press("ctrl+o")  # unfold the thinking
        await wait_until(lambda: "Thinking:" in screen_text(app), pause=pilot.pause)
        screen = screen_text(app)
        answer = screen[screen.index("Answer:") :]
        thought = screen[screen.index("Thinking:") : screen.index("Answer:")]
        assert missing(answer) == [] and missing(thought) == []
        assert "look␛]0;pwned␇" in screen  # the panel's title, and the unknown-tool error
        assert_nothing_reaches_the_terminal(app)


async def test_a_command_s_live_output_and_its_result_are_shown_escaped(tmp_path: Path) -> None:
    live = ("bash", json.dumps({"command": "cat evil.txt; sleep 60"}))
    finished = ("bash", json.dumps({"command": "cat evil.txt"}))
    app = app_for(tmp_path, [scripted_reply("", [live]), scripted_reply("", [finished]),
                             scripted_reply("done.")], approval="full-auto")
    async with app.run_test(size=(100, 60)) as pilot:
        await send(app, pilot, "show evil.txt")
        await wait_until(lambda: missing(screen_text(app), WITHOUT_CR) == [],
                         pause=pilot.pause, what="the escaped output while the command runs")
        assert app.working and "│X" in screen_text(app).replace(" ", "")
        assert_nothing_reaches_the_terminal(app)
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause)

        await send(app, pilot, "again")
        await wait_until(lambda: "done." in screen_text(app), pause=pilot.pause)
        screen = screen_text(app)
        assert missing(screen[screen.rindex("$ cat evil.txt") :]) == []
        assert_nothing_reaches_the_terminal(app)


async def test_the_approval_dialog_shows_a_command_and_a_diff_escaped(tmp_path: Path) -> None:
    command = ("bash", json.dumps({"command": f"echo {HOSTILE}"}))
    write = ("write_file", json.dumps({"path": "notes.txt", "content": HOSTILE_LINES}))
    app = app_for(tmp_path, [scripted_reply("", [command]), scripted_reply("", [write]),
                             scripted_reply("done.")])
    async with app.run_test(size=(160, 50)) as pilot:
        await send(app, pilot, "go")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause)
        screen = await screen_shows(app, pilot, "$ echo")
        assert missing(screen[screen.index("$ echo") :]) == []
        assert_nothing_reaches_the_terminal(app)

        await pilot.press("n", "enter")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen) and "notes.txt" in screen_text(app),
                         pause=pilot.pause, what="the write's approval")
        screen = screen_text(app)
        assert missing(screen[screen.index("+++") :], WITHOUT_CR) == []  # a diff ends a line at CR
        assert_nothing_reaches_the_terminal(app)
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause)


async def test_an_error_from_the_server_is_shown_escaped(tmp_path: Path) -> None:
    failing = [TextDelta(text="partial"), StreamError(kind="server", message=f"upstream: {HOSTILE}")]
    app = app_for(tmp_path, [failing])
    async with app.run_test(size=(160, 40)) as pilot:
        await send(app, pilot, "go")
        await wait_until(lambda: "upstream:" in screen_text(app), pause=pilot.pause)
        screen = screen_text(app)
        assert missing(screen[screen.index("upstream:") :]) == []
        assert_nothing_reaches_the_terminal(app)


async def test_a_failed_mcp_server_s_stderr_is_shown_escaped(tmp_path: Path) -> None:
    script = "printf '%s' \"$EVIL\" >&2; exit 3"
    evil = "".join(f"{raw}\n" for raw, _ in PIECES[:5])  # the log's last lines are shown
    user_config({"evil": {"command": "sh", "args": ["-c", script], "env": {"EVIL": evil}}})
    app = app_for(tmp_path, [])
    async with app.run_test(size=(120, 50)) as pilot:
        mcp = app.session.mcp
        await wait_until(lambda: mcp.status()[0].state == "failed", pause=pilot.pause)
        await send(app, pilot, "/mcp")
        await wait_until(lambda: "evil (user mcp.json): failed" in screen_text(app), pause=pilot.pause)
        screen = screen_text(app)
        assert missing(screen[screen.index("evil (user mcp.json)") :], PIECES[:5]) == []
        assert_nothing_reaches_the_terminal(app)


async def test_session_titles_in_the_picker_are_shown_escaped(tmp_path: Path) -> None:
    app = app_for(tmp_path, [])
    store = SessionStore.create(app.workspace, provider="openai", model="gpt\x1b]0;pwned\x07")
    store.append_message(Message(role="user", content="t\x1b[2J\x1b]52;c;cHduZWQ=\x07"))
    store.close()
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/resume")
        await wait_until(lambda: isinstance(app.screen, SessionPicker), pause=pilot.pause)
        await pilot.pause()
        screen = screen_text(app)
        assert "t␛[2J␛]52;c;cHduZWQ=␇" in screen and "gpt␛]0;pwned␇" in screen
        assert_nothing_reaches_the_terminal(app)


async def test_a_latest_prompt_a_saved_title_and_a_fork_s_parent_in_the_picker_are_shown_escaped(
    tmp_path: Path
) -> None:
    app = app_for(tmp_path, [])
    parent = SessionStore.create(app.workspace, provider="openai", model="m")
    parent.append_title("p\x1b]0;pwned\x07", "model")
    parent.append_message(Message(role="user", content="first"))
    parent.close()
    fork = SessionStore.create(app.workspace, provider="openai", model="m", forked_from=parent.id)
    fork.append_title("n\x1b[2J\x9b31m", "user")
    fork.append_prompt("l\x1b]52;c;cHduZWQ=\x07")
    fork.append_message(Message(role="user", content="l"))
    fork.close()
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/resume")
        await wait_until(lambda: isinstance(app.screen, SessionPicker), pause=pilot.pause)
        await pilot.pause()
        screen = screen_text(app)
        assert "n␛[2J\\x9b31m" in screen and "› l␛]52;c;cHduZWQ=␇" in screen
        assert 'forked from "p␛]0;pwned␇"' in screen
        assert_nothing_reaches_the_terminal(app)


async def test_what_is_drawn_outside_the_escaped_paths_loses_its_controls(tmp_path: Path) -> None:
    """The last line of defence: text pasted into the input is Textual's to draw, not the
    app's, and still never reaches the terminal as a control."""
    app = app_for(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(HOSTILE))  # as the terminal sends a paste
        await wait_until(lambda: "pwned" in app.prompt.text, pause=pilot.pause)
        await pilot.pause()
        assert "\x1b]52;c;cHduZWQ=\x07" in app.prompt.text  # what is sent is what was pasted
        assert "]52;c;cHduZWQ=" in screen_text(app)
        assert_nothing_reaches_the_terminal(app)


async def test_a_folder_s_custom_command_is_listed_escaped(tmp_path: Path) -> None:
    app = app_for(tmp_path, [])
    commands = app.workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "evil.md").write_text("Look at \x1b]0;pwned\x07\x1b[2J this.")
    shown = "Look at ␛]0;pwned␇␛[2J this."
    async with app.run_test(size=(SIZE[0], 100)) as pilot:
        await pilot.press("/", "e", "v")
        await wait_until(lambda: shown in screen_text(app), pause=pilot.pause, what="the completion")
        assert_nothing_reaches_the_terminal(app)
        await pilot.press("escape", "ctrl+u", "f1")
        await wait_until(lambda: shown in screen_text(app), pause=pilot.pause, what="the command in /help")
        assert_nothing_reaches_the_terminal(app)
        await pilot.press("escape", "ctrl+p", *"evil")
        await wait_until(lambda: shown in screen_text(app), pause=pilot.pause, what="the palette")
        assert_nothing_reaches_the_terminal(app)
