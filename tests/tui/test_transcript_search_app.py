"""Searching the conversation: Ctrl+F (or your key) searches prompts, answers and tool
output, folded output too; Enter, n and N jump between matches, scrolling each into view
and marking it; Up and Down jump between prompts; Esc closes the search."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message, ToolCall
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, started, wait_until

SIZE = (80, 24)
QUESTION = re.compile(r"› question (\d+)\b")


def exchange(n: int) -> list[Message]:
    """A question, a file read whose 30 lines fold (the ninth of file 7 holds a needle), an answer."""
    source = "\n".join(f"line {i} of m{n}" + (" needle_in_the_file" if (n, i) == (7, 9) else "") for i in range(30))
    call = ToolCall(id=f"c{n}", name="read_file", arguments=json.dumps({"path": f"src/m{n}.py"}))
    return [
        Message(role="user", content=f"question {n}: what does module {n} do?"),
        Message(role="assistant", content="Reading it.", tool_calls=[call]),
        Message(role="tool", content=source, tool_call_id=f"c{n}", name="read_file"),
        Message(role="assistant", content=f"Module {n} counts to {n}."),
    ]


def resumed_app(workspace: Path, exchanges: int = 12) -> NeoCodeApp:
    store = SessionStore.create(workspace, provider="scripted", model="scripted")
    for n in range(exchanges):
        for message in exchange(n):
            store.append_message(message)
    store.close()
    return NeoCodeApp(Settings(provider="scripted"), workspace=workspace, resume="", remember_theme=False)


def questions(app: NeoCodeApp) -> list[int]:
    return [int(number) for number in QUESTION.findall(screen_text(app))]


def marked(app: NeoCodeApp, text: str) -> bool:
    """``text`` is on screen in the mark of the match landed on: bold, dark on a colour (the
    other matches are bold and underlined in the text's own colours)."""
    mark = r"\x1b\[1;38;2;\d+;\d+;\d+;48;2;\d+;\d+;\d+m"
    return re.search(mark + re.escape(text), screen_text(app, styles=True)) is not None


async def test_a_match_in_folded_tool_output_is_unfolded_scrolled_to_and_marked(workspace: Path) -> None:
    app = resumed_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await screen_shows(app, pilot, "Module 11 counts to 11.", gone=["needle_in_the_file"])
        await pilot.press("ctrl+f", *"NEEDLE")  # any case
        await screen_shows(app, pilot, "search:", "1 match, 1 place · Enter jumps · Esc closes")
        await pilot.press("enter")
        await screen_shows(app, pilot, "line 9 of m7 needle_in_the_file", "NEEDLE · 1 of 1 · n older")
        await wait_until(lambda: marked(app, "needle"), pause=pilot.pause, what="the match marked")
        assert "line 12 of m7" in screen_text(app), "unfolded: the lines past the first eight are there"
        await pilot.press("escape")
        await screen_shows(app, pilot, "line 9 of m7 needle_in_the_file", gone=["search:"])
        assert not marked(app, "needle") and app.prompt.has_focus, "the marks go, the keys go back to the prompt"


async def test_n_goes_back_through_the_matches_and_N_forward_wrapping_around(workspace: Path) -> None:
    app = resumed_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press("ctrl+f", *"what does module 1", "enter")  # modules 1, 10 and 11
        await screen_shows(app, pilot, "1 of 3 · n older · N newer")
        assert 11 in questions(app) and marked(app, "what does module 1")
        await pilot.press("n")
        await screen_shows(app, pilot, "2 of 3")
        assert 10 in questions(app) and 11 not in questions(app) and marked(app, "what does module 1")
        await pilot.press("n")
        await screen_shows(app, pilot, "3 of 3")
        await wait_until(lambda: 1 in questions(app) and 10 not in questions(app), pause=pilot.pause,
                         what="question 1 in view")
        await pilot.press("n")  # past the oldest: round to the newest
        await screen_shows(app, pilot, "1 of 3")
        await pilot.press("N")  # forward from the newest: round to the oldest
        await screen_shows(app, pilot, "3 of 3")
        await pilot.press("enter")  # Enter goes on back, as n does: the newest again
        await screen_shows(app, pilot, "1 of 3")


async def test_up_and_down_jump_between_prompts_and_slash_searches_again(workspace: Path) -> None:
    app = resumed_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press("ctrl+f", *"counts to 5.", "enter")
        await screen_shows(app, pilot, "Module 5 counts to 5.", "1 of 1")
        await pilot.press("up")  # the prompt before the match: question 5's
        await wait_until(lambda: questions(app)[:1] == [5], pause=pilot.pause, what="question 5 on top")
        await pilot.press("up")
        await wait_until(lambda: questions(app)[:1] == [4], pause=pilot.pause, what="question 4 on top")
        await pilot.press("down", "down")
        await wait_until(lambda: questions(app)[:1] == [6], pause=pilot.pause, what="question 6 on top")
        await pilot.press("/", "ctrl+a", *"zebra", "ctrl+k")  # the query edited again: to "zebra"
        await screen_shows(app, pilot, "no match · Esc closes")
        assert app.transcript_search.query_input.value == "zebra"


async def test_the_search_follows_your_key(workspace: Path, tmp_path: Path) -> None:
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[keys]\nsearch = "ctrl+x /"\n')
    app = resumed_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press("ctrl+f", *"ab")
        assert app.prompt.text == "ab" and not app.transcript_search.is_open
        await pilot.press("ctrl+x", "slash")
        await screen_shows(app, pilot, "search:")
        assert app.transcript_search.query_input.has_focus


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_transcript_search_screen(size: tuple[int, int], snap_compare, workspace: Path) -> None:
    app = resumed_app(workspace)

    async def run_before(pilot) -> None:
        await started(app, pilot)
        await pilot.press("ctrl+f", *"module 7", "enter")  # the prompt and the answer: the answer first
        await screen_shows(app, pilot, "module 7 · 1 of 2")
        await wait_until(lambda: marked(app, "Module 7"), pause=pilot.pause, what="the match marked")

    assert snap_compare(app, terminal_size=size, run_before=run_before)
