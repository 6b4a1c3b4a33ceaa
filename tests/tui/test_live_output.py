"""A running command's output on screen: its latest lines live, bounded however much it
prints, kept on Esc, and once it ends its first and last lines with the rest a key away."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App, ComposeResult

from neocode_tui.agent.loop_events import (
    Streamed,
    ToolFinished,
    ToolOutputDelta,
    ToolStarted,
    TurnStarted,
)
from neocode_tui.events import ToolCallStart
from neocode_tui.live_output import MAX_LINE_CHARS, LiveTail
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.conversation import ConversationView
from neocode_tui.tui.conversation.blocks import ToolBlock
from neocode_tui.tui.scenarios import Driver, Release, StepProvider, Type
from tests.support.waits import screen_shows, wait_until


def command_app(tmp_path: Path, command: str) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    call = ("bash", json.dumps({"command": command}))
    turns = [scripted_reply("Running it.", [call]), scripted_reply("ok")]
    return NeoCodeApp(
        Settings(provider="scripted", approval="full-auto"), StepProvider(ScriptedProvider(turns)),
        workspace, remember_theme=False,
    )


async def test_a_running_command_shows_its_latest_lines_and_escape_keeps_them(tmp_path: Path) -> None:
    command = 'for n in $(seq 1 30); do echo "step $n of 30"; done; touch printed; sleep 30'
    app = command_app(tmp_path, command)
    async with app.run_test(size=(100, 40)) as pilot:
        await Driver(pilot).play([Type("build it")])
        app.provider.allow(float("inf"))  # type: ignore[attr-defined]
        text = await screen_shows(app, pilot, "step 30 of 30")  # the last line, live
        assert app.working and "◐ running" in text
        assert "… 20 earlier lines" in text  # the last 10 are shown, the rest counted
        assert "step 21 of 30" in text and "step 20 of 30" not in text
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the command stopped")
        # What was printed stays.
        await screen_shows(app, pilot, "⏹ interrupted", "step 21 of 30", "step 30 of 30", "stopped")


async def test_a_finished_command_shows_its_first_and_last_lines_and_ctrl_t_the_rest(tmp_path: Path) -> None:
    command = 'seq 1 200; echo "error: the build broke" >&2; exit 2'
    app = command_app(tmp_path, command)
    async with app.run_test(size=(100, 50)) as pilot:
        await Driver(pilot).play([Type("build it"), Release()])
        text = await screen_shows(app, pilot, "✗ failed")
        lines = [line.strip("│ ") for line in text.splitlines()]
        assert "1" in lines and "2" in lines and "3" not in lines  # the head
        assert "error: the build broke" in text and "[exit code 2]" in text  # the tail
        assert "194 more lines" in text and "100" not in lines
        await pilot.press("ctrl+t")
        text = await screen_shows(app, pilot, gone=["more lines"])
        lines = [line.strip("│ ") for line in text.splitlines()]
        assert "199" in lines  # the whole output, up to its end


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView()


async def test_ten_megabytes_of_output_keep_only_a_bounded_tail_and_show_its_end() -> None:
    app = Host()
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(ConversationView)
        view.post(TurnStarted(turn=1))
        view.post(Streamed(turn=1, event=ToolCallStart(index=0, id="c", name="bash")))
        view.post(ToolStarted(turn=1, index=0, call_id="c", name="bash", arguments={"command": "make"}))
        line = "compiling module with a rather long name and some flags -O2 -g\n"
        chunk = line * (65536 // len(line))
        sent = 0
        while sent < 10_000_000:
            view.post(ToolOutputDelta(turn=1, index=0, call_id="c", text=chunk))
            sent += len(chunk)
        view.post(ToolOutputDelta(turn=1, index=0, call_id="c", text="linking: done\n"))
        await view.settled()
        await pilot.pause()
        block = next(b for b in view._lines.blocks if isinstance(b, ToolBlock))
        assert block.output is not None and len(block.output.lines) == 10
        total = sent // len(line) + 1
        assert block.output.total_lines == total
        await screen_shows(app, pilot, "linking: done", f"… {total - 10:,} earlier lines")
        view.post(ToolFinished(turn=1, index=0, call_id="c", name="bash", result="ok\nlinking: done"))
        await view.settled()
        await screen_shows(app, pilot, gone=["earlier lines"])


def test_the_tail_is_bounded_whatever_the_lines_look_like() -> None:
    tail = LiveTail(keep=3)
    tail.feed("x" * 5_000_000)  # one endless line
    tail.feed("y" * 5_000_000)
    assert tail.lines == ["x" * MAX_LINE_CHARS] and tail.total_lines == 1
    tail.feed("\n" + "".join(f"{n}\n" for n in range(100_000)) + "last")
    assert tail.lines == ["99998", "99999", "last"] and tail.hidden == 99_999
    tail.feed("\r 10%\r 20%")  # a progress bar redraws its line
    assert tail.lines[-1] == " 20%"
    tail.feed("\r 99%\r\nnext\r\n")
    assert tail.lines == ["99999", " 99%", "next"]


async def test_a_long_command_keeps_streaming_past_its_first_screenfuls(tmp_path: Path) -> None:
    """Live lines keep coming after the part of the output that the result's head keeps."""
    from neocode_tui.agent.tools import default_tools
    from neocode_tui.agent.workspace import Workspace

    bash = default_tools().get("bash")
    assert bash is not None
    seen: list[str] = []
    args = bash.args_model(command="for n in $(seq 1 20000); do echo line-$n; done")
    await bash.run(args, Workspace(tmp_path), seen.append)
    live = "".join(seen)
    assert "line-1\n" in live and live.rstrip().endswith("line-20000")
