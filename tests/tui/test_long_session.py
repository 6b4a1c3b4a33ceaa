"""Long resumed sessions: drawn as they come into view, nothing lost on the way, memory bounded.

A resumed session's blocks start with estimated heights and are rendered only when the reader
reaches them, and lines far from the viewport are let go. These tests page through real
session files in the real app and check that every message is shown, in order, whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message, ToolCall
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.conversation import ConversationView
from neocode_tui.tui.conversation.block_lines import RESIDENT_LINES
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, started, wait_until

SIZE = (80, 24)
QUESTION = re.compile(r"› question (\d+)\b")


def exchange(n: int) -> list[Message]:
    """One question and its answer, in shapes whose drawn height the estimates miss: lists,
    a code fence, a file read whose output folds, a paragraph that wraps."""
    lines = "\n".join(f"    value_{n}_{i} = compute({i})" for i in range(3 + n % 25))
    answer = f"Answer {n}.\n\n" + "- one point\n- another point\n" * (n % 3) + (
        f"\n```python\ndef step_{n}():\n{lines}\n```\n" if n % 2 else "That is the whole of it. " * (n % 9)
    )
    call = ToolCall(id=f"c{n}", name="read_file", arguments=json.dumps({"path": f"src/m{n}.py"}))
    return [
        Message(role="user", content=f"question {n}: what does module {n} do?"),
        Message(role="assistant", content="Reading it.", tool_calls=[call]),
        Message(role="tool", content=f"line 1 of m{n}\n" + lines + f"\nlast line of m{n}",
                tool_call_id=f"c{n}", name="read_file"),
        Message(role="assistant", content=answer),
    ]


def answer_end(n: int) -> str:
    """The last line of answer ``n`` (odd: it ends with its code)."""
    last = 2 + n % 25
    return f"value_{n}_{last} = compute({last})"


def saved_session(workspace: Path, exchanges: int) -> None:
    store = SessionStore.create(workspace, provider="scripted", model="scripted")
    for n in range(exchanges):
        for message in exchange(n):
            store.append_message(message)
    store.close()


@asynccontextmanager
async def resumed(workspace: Path, exchanges: int) -> AsyncIterator[tuple[Pilot, NeoCodeApp, ConversationView]]:
    """The app resuming a saved session of ``exchanges`` exchanges, its first screen drawn."""
    saved_session(workspace, exchanges)
    app = NeoCodeApp(Settings(provider="scripted"), workspace=workspace, resume="", remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        yield pilot, app, app.conversation


def questions_on_screen(app: NeoCodeApp) -> list[int]:
    return [int(number) for number in QUESTION.findall(screen_text(app))]


async def page(pilot, key: str, app: NeoCodeApp) -> None:
    await pilot.press(key)
    await app.conversation.settled()


async def page_to_the_top(pilot, app: NeoCodeApp) -> list[int]:
    """Page Up to the first line; the questions seen on the way, sorted."""
    seen: set[int] = set()
    for _ in range(1_000):
        seen |= set(questions_on_screen(app))
        if app.conversation.scroll_y == 0:
            return sorted(seen)
        await page(pilot, "pageup", app)
    raise AssertionError("Page Up never reached the top")


async def test_paging_up_and_down_a_long_resumed_session_shows_every_question_in_order(workspace: Path) -> None:
    async with resumed(workspace, 26) as (pilot, app, view):
        await screen_shows(app, pilot, answer_end(25))  # the end of the last answer

        assert await page_to_the_top(pilot, app) == list(range(26))
        assert questions_on_screen(app)[0] == 0

        seen: list[int] = []
        while not view.anchored:
            on_screen = questions_on_screen(app)
            assert on_screen == sorted(on_screen)
            seen = sorted(set(seen) | set(on_screen))
            await page(pilot, "pagedown", app)
        assert seen + [n for n in questions_on_screen(app) if n not in seen] == list(range(26))


async def test_a_page_up_moves_by_a_page_of_what_is_there(workspace: Path) -> None:
    """Page Up moves by the view's height less two lines, exactly, though the heights of what
    it reaches were estimates until then: what was the top line is now the last but one
    (the last is the jump bar)."""
    async with resumed(workspace, 60) as (pilot, app, view):
        height = view.scrollable_content_region.height
        width = view.scrollable_content_region.width  # the text, without the scrollbar
        for _ in range(8):
            before = [line[:width] for line in screen_text(app).splitlines()[:height]]
            await page(pilot, "pageup", app)
            after = [line[:width] for line in screen_text(app).splitlines()[:height]]
            assert after[height - 2] == before[0]
            assert "more below" in after[height - 1]


async def test_a_long_session_holds_the_lines_near_the_screen_only(workspace: Path) -> None:
    async with resumed(workspace, 600) as (pilot, app, view):
        lines = view._lines
        await view.settled()  # whatever the first screen still had to draw
        await pilot.pause()
        assert lines.resident_lines < 10 * SIZE[1]  # the first screen drew what it shows, and no more since
        assert lines.total > 4 * RESIDENT_LINES  # the whole would be far more than is held
        lines.budget = 300  # less than the real budget, to reach it in fewer pages

        view.scroll_home(animate=False, immediate=True)
        await view.settled()
        seen = set(questions_on_screen(app))
        for _ in range(60):
            await page(pilot, "pagedown", app)
            seen |= set(questions_on_screen(app))
            assert lines.resident_lines <= lines.budget + 3 * SIZE[1]
        assert sorted(seen) == list(range(max(seen) + 1)) and max(seen) > 20

        await pilot.press("end")
        await view.settled()
        await screen_shows(app, pilot, answer_end(599))  # the end of the last answer
        assert lines.resident_lines <= lines.budget + 3 * SIZE[1]


async def test_the_whole_transcript_unfolds_blocks_far_above_when_they_are_reached(workspace: Path) -> None:
    async with resumed(workspace, 120) as (pilot, app, view):
        assert "last line of m5" not in screen_text(app)
        await pilot.press("ctrl+o")
        view.scroll_home(animate=False, immediate=True)
        await view.settled()
        for _ in range(200):
            if "value_5_7 = compute(7)" in screen_text(app):
                break  # m5's file, unfolded: its eighth line was hidden while folded
            await page(pilot, "pagedown", app)
        assert "value_5_7 = compute(7)" in screen_text(app)


async def test_selecting_everything_copies_the_whole_conversation_even_what_was_never_drawn(
    workspace: Path,
) -> None:
    async with resumed(workspace, 200) as (pilot, app, view):
        view.text_select_all()
        await pilot.pause()
        text = app.screen.get_selected_text() or ""
        assert [int(n) for n in re.findall(r"› question (\d+)\b", text)] == list(range(200))
        assert "last line of m0" in text and "def step_199():" in text


async def test_after_a_resize_the_reader_keeps_their_place_and_paging_up_shows_every_question(
    workspace: Path,
) -> None:
    async with resumed(workspace, 30) as (pilot, app, view):
        for _ in range(4):
            await page(pilot, "pageup", app)
        place = questions_on_screen(app)
        assert place
        await pilot.resize_terminal(60, 20)
        await wait_until(lambda: view.size.width < SIZE[0], pause=pilot.pause, what="the narrower view")
        await view.settled()
        assert place[0] in questions_on_screen(app)
        assert await page_to_the_top(pilot, app) == list(range(place[-1] + 1))
