"""The conversation view, driven through a real Textual app with Pilot."""

from __future__ import annotations

import itertools
import time

import pytest
from textual.app import App, ComposeResult

from neocode_tui.agent.loop_events import (
    LoopEvent,
    RunFinished,
    Streamed,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from neocode_tui.chat import Message, ToolCall
from neocode_tui.events import (
    ErrorInfo,
    MessageDone,
    ReasoningDelta,
    StreamError,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from neocode_tui.tui.conversation import ConversationView
from neocode_tui.tui.conversation.code_syntax import drawn_lines
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until

SIZE = (80, 30)

ANSWER = """# Plan

We read the file first, then change **one** function.

- keep the public API
- add a test

```python
def greet(name: str) -> str:
    # a comment that is long enough to matter
    return f"hello {name}"


class Greeter:
    def __call__(self, name):
        return greet(name)
```

Then run the tests:

1. `pytest -q`
2. look at the output

> Note: nothing else changes.
"""


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView()


def content(app: App[None]) -> str:
    """The screen without the scrollbar column, which moves as content grows below."""
    return "\n".join(line[:-2] for line in screen_text(app).splitlines())


def stream(turn: int, *events: object) -> list[LoopEvent]:
    return [Streamed(turn=turn, event=event) for event in events]  # type: ignore[arg-type]


def text_deltas(text: str, size: int) -> list[TextDelta]:
    return [TextDelta(text=text[i : i + size]) for i in range(0, len(text), size)]


async def show(view: ConversationView, events: list[LoopEvent]) -> None:
    for event in events:
        view.post(event)
    await view.settled()


def answer_run(deltas: list[TextDelta]) -> list[LoopEvent]:
    return [
        TurnStarted(turn=1),
        *stream(1, *deltas, MessageDone(finish_reason="stop")),
        TurnFinished(turn=1, finish_reason="stop"),
        RunFinished(turn=1, reason="done"),
    ]


LONG_CODE = "Here is the file:\n\n```python\n" + "".join(
    f"def step_{n}(x):\n    return x + {n}\n" for n in range(45)
) + "```\n\nThat is all.\n"


@pytest.mark.parametrize("answer", [ANSWER, LONG_CODE], ids=["mixed", "long-fence"])
async def test_many_deltas_end_on_the_same_screen_as_one_delta(answer: str) -> None:
    screens = []
    for size in (len(answer), 3, 1):
        app = Host()
        async with app.run_test(size=(80, 120)) as pilot:
            view = app.query_one(ConversationView)
            view.add_user_message("make it greet")
            await show(view, answer_run(text_deltas(answer, size)))
            await pilot.pause()
            screens.append(screen_text(app, styles=True))
            text = screen_text(app)
    assert "```" not in text and ("That is all." in text or 'return f"hello {name}"' in text)
    assert screens[1] == screens[0]
    assert screens[2] == screens[0]


async def test_a_long_fence_mid_stream_is_one_code_block_without_seams() -> None:
    app = Host()
    async with app.run_test(size=(80, 60)) as pilot:
        view = app.query_one(ConversationView)
        cut = LONG_CODE.index("def step_44")
        await show(view, [TurnStarted(turn=1), *stream(1, *text_deltas(LONG_CODE[:cut], 6))])
        await pilot.pause()
        lines = screen_text(app).splitlines()
        styled = screen_text(app, styles=True).splitlines()
        first = next(i for i, line in enumerate(lines) if "def step_20(" in line)
        last = next(i for i, line in enumerate(lines) if "return x + 43" in line)
        code_background = "48;2;39;40;34"
        assert all(code_background in styled[i] for i in range(first, last + 1))  # no gap between chunks
        assert "```" not in "\n".join(lines)


async def test_a_fence_cut_mid_stream_is_drawn_as_code_at_every_moment() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        cut = ANSWER.index("        return greet")
        await show(view, [TurnStarted(turn=1), *stream(1, *text_deltas(ANSWER[:cut], 5))])
        text = screen_text(app)
        assert "```" not in text  # the open fence is a code block, not literal backticks
        assert "class Greeter:" in text
        lines = text.splitlines()
        styled = screen_text(app, styles=True).splitlines()
        code_line = styled[next(i for i, line in enumerate(lines) if "class Greeter" in line)]
        prose_line = styled[next(i for i, line in enumerate(lines) if "We read the file" in line)]
        code_background = "48;2;39;40;34"  # the code theme's background
        assert code_background in code_line and code_background not in prose_line
        # Many deltas later the fence closes: still one code block, prose after it.
        await show(view, stream(1, *text_deltas(ANSWER[cut:], 5)))
        await pilot.pause()
        text = screen_text(app)
        assert "```" not in text
        assert "return greet(name)" in text and "Then run the tests:" in text


async def test_parallel_tool_calls_with_interleaved_deltas_each_grow_in_their_own_panel() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        write = '{"path": "src/app.py", "content": "import os\\nimport sys\\n\\nprint(os.sep)\\n"}'
        bash = '{"command": "pytest -q tests/test_app.py"}'
        events = [TurnStarted(turn=1), *stream(1, ToolCallStart(index=0, id="w", name="write_file"),
                                              ToolCallStart(index=1, id="b", name="bash"))]
        for i in range(0, max(len(write), len(bash)), 4):
            events += stream(1, ToolCallDelta(index=1, arguments=bash[i : i + 4]),
                             ToolCallDelta(index=0, arguments=write[i : i + 4]))
        half = len(events) // 2
        await show(view, events[:half])
        lines = screen_text(app).splitlines()
        write_top = next(i for i, line in enumerate(lines) if "write_file" in line)
        bash_top = next(i for i, line in enumerate(lines) if "─  bash  ─" in line)
        assert write_top < bash_top
        assert "src/app.py" in "\n".join(lines[write_top:bash_top])
        await show(view, events[half:] + stream(1, ToolCallEnd(index=0), ToolCallEnd(index=1)))
        lines = screen_text(app).splitlines()
        write_top = next(i for i, line in enumerate(lines) if "write_file" in line)
        bash_top = next(i for i, line in enumerate(lines) if "─  bash  ─" in line)
        write_panel = "\n".join(lines[write_top:bash_top])
        bash_panel = "\n".join(lines[bash_top:])
        assert "src/app.py" in write_panel and "content: 4 lines" in write_panel
        assert "print(os.sep)" in write_panel
        assert "$ pytest -q tests/test_app.py" in bash_panel and "src/app.py" not in bash_panel
        await show(view, [
            TurnFinished(turn=1, finish_reason="tool_calls"),
            ToolStarted(turn=1, index=0, call_id="w", name="write_file"),
            ToolFinished(turn=1, index=0, call_id="w", name="write_file", result="wrote src/app.py",
                         diff="--- a/src/app.py\n+++ b/src/app.py\n@@ -0,0 +1,4 @@\n+import os"),
            ToolFinished(turn=1, index=1, call_id="b", name="bash", result="1 passed", status="ok"),
        ])
        await pilot.pause()
        text = screen_text(app)
        assert text.count("✓ done") == 2
        assert "+import os" in text and "1 passed" in text


async def test_a_retry_takes_back_the_partial_answer_visibly() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, [
            TurnStarted(turn=1),
            *stream(1, *text_deltas("First attempt paragraph.\n\nSecond half that breaks", 4),
                    ToolCallStart(index=0, id="x", name="bash"),
                    ToolCallDelta(index=0, arguments='{"command": "rm -rf bu')),
        ])
        assert "First attempt paragraph." in screen_text(app)
        view.add_notice("info", "theme switched to light")  # the app's own notice, mid-attempt
        await show(view, [
            *stream(1, StreamRetry(attempt=2, max_attempts=3, delay=1.5, reason="connection lost"),
                    *text_deltas("The answer, complete.", 4), MessageDone(finish_reason="stop")),
            TurnFinished(turn=1, finish_reason="stop"),
        ])
        await pilot.pause()
        text = screen_text(app)
        assert "First attempt" not in text and "rm -rf" not in text and "bash" not in text
        assert "retrying" not in text  # said once, in the status bar, not per attempt here
        assert "theme switched to light" in text
        assert text.index("theme switched") < text.index("The answer, complete.")


async def test_an_interrupted_run_keeps_what_was_shown_and_says_so() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, [
            TurnStarted(turn=1),
            *stream(1, ReasoningDelta(text="thinking about it"),
                    *text_deltas("Half of the ans", 3),
                    ToolCallStart(index=0, id="b", name="bash"),
                    ToolCallDelta(index=0, arguments='{"command": "sleep 100"}')),
            RunFinished(turn=1, reason="cancelled"),
        ])
        await pilot.pause()
        text = screen_text(app)
        assert "Half of the ans" in text
        assert "⏹ interrupted" in text  # the tool panel that never ran
        assert "Interrupted" in text


async def test_late_events_of_a_cancelled_run_never_land_in_the_next_one() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, [TurnStarted(turn=1), *stream(1, TextDelta(text="old answer ")),
                          RunFinished(turn=1, reason="cancelled")])
        view.add_user_message("second question")
        await show(view, [
            *stream(1, TextDelta(text="LATE TEXT"), ToolCallStart(index=0, id="z", name="ghost_tool")),
            TurnStarted(turn=2),
            *stream(1, TextDelta(text="LATE AGAIN")),
            *stream(2, TextDelta(text="fresh answer"), MessageDone(finish_reason="stop")),
            TurnFinished(turn=2, finish_reason="stop"),
        ])
        await pilot.pause()
        text = screen_text(app)
        assert "fresh answer" in text and "old answer" in text
        assert "LATE" not in text and "ghost_tool" not in text


async def test_stream_errors_become_a_notice_that_says_what_to_do() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, [
            TurnStarted(turn=1),
            *stream(1, StreamError(kind="auth", message="The API key was rejected (HTTP 401)", status=401)),
            TurnFinished(
                turn=1, finish_reason=None,
                error=ErrorInfo(kind="auth", message="The API key was rejected (HTTP 401)"),
            ),
            RunFinished(turn=1, reason="error", error=ErrorInfo(kind="auth", message="The API key was rejected")),
        ])
        await pilot.pause()
        text = screen_text(app)
        assert "✖ The API key was rejected (HTTP 401). Check your API key" in text
        assert text.count("API key was rejected") == 1


def long_turn(turn: int, paragraphs: int) -> list[LoopEvent]:
    body = "".join(f"Paragraph {n} of turn {turn}, some words to wrap.\n\n" for n in range(paragraphs))
    return [TurnStarted(turn=turn), *stream(turn, *text_deltas(body, 7), MessageDone(finish_reason="stop")),
            TurnFinished(turn=turn, finish_reason="stop")]


async def test_scrolling_up_stops_following_and_the_way_back_down_follows_again() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, long_turn(1, 30))
        assert view.anchored and "Paragraph 29 of turn 1" in screen_text(app)
        await pilot.press("pageup")
        await pilot.wait_for_scheduled_animations()
        assert not view.anchored
        reading = content(app)
        assert "Paragraph 29 of turn 1" not in reading
        assert "more below" in reading
        await show(view, long_turn(2, 5))  # new output while the user reads
        await pilot.pause()
        assert content(app) == reading  # the reader's place holds
        await pilot.press("end")
        await screen_shows(app, pilot, "Paragraph 4 of turn 2", gone=["more below"])
        assert view.anchored
        await show(view, long_turn(3, 5))
        assert "Paragraph 4 of turn 3" in screen_text(app)  # following again


async def test_clicking_the_way_back_down_jumps_to_the_latest() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, long_turn(1, 30))
        view.scroll_home(animate=False)
        await pilot.pause()
        assert not view.anchored
        await pilot.click(ConversationView, offset=(10, view.scrollable_content_region.height - 1))
        await screen_shows(app, pilot, "Paragraph 29 of turn 1")
        assert view.anchored


async def test_a_resize_rewraps_settled_lines() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        sentence = "word " * 30
        await show(view, [TurnStarted(turn=1), *stream(1, TextDelta(text=sentence + "END\n\nnext"),
                                                       MessageDone(finish_reason="stop"))])
        def wrapped() -> list[str]:
            return [line for line in screen_text(app).splitlines() if "word" in line]

        wide = wrapped()
        await pilot.resize_terminal(50, 30)
        await wait_until(lambda: len(wrapped()) > len(wide), pause=pilot.pause, what="the lines rewrapped")
        await view.settled()
        narrow = wrapped()
        assert len(wide) >= 2
        assert all(len(line.rstrip()) <= 50 for line in narrow)
        assert "END" in screen_text(app)


async def test_long_tool_output_collapses_and_a_click_expands_it() -> None:
    app = Host()
    async with app.run_test(size=(80, 50)) as pilot:
        view = app.query_one(ConversationView)
        output = "\n".join(f"line {n}" for n in range(40))
        await show(view, [
            TurnStarted(turn=1),
            *stream(1, ToolCallStart(index=0, id="b", name="bash"),
                    ToolCallDelta(index=0, arguments='{"command": "seq 40"}'), MessageDone(finish_reason="tool_calls")),
            TurnFinished(turn=1, finish_reason="tool_calls"),
            ToolFinished(turn=1, index=0, call_id="b", name="bash", result=output),
        ])
        await pilot.pause()
        text = screen_text(app)
        # a command's first lines and its last (where errors are), the rest counted
        assert "line 1 " in text and "line 2 " not in text and "line 33" not in text
        assert "line 34" in text and "line 39" in text and "32 more lines" in text
        row = next(i for i, line in enumerate(text.splitlines()) if "line 1 " in line)
        await pilot.click(ConversationView, offset=(5, row))
        await screen_shows(app, pilot, "line 20", "line 39", gone=["more lines"])


async def test_a_resumed_transcript_shows_settled_with_results_paired() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        messages = [
            Message(role="user", content="list files"),
            Message(role="assistant", content="Listing **now**.",
                    tool_calls=[ToolCall(id="c1", name="list_dir", arguments='{"path": "."}')]),
            Message(role="tool", content="README.md\nsrc/", tool_call_id="c1", name="list_dir"),
            Message(role="assistant", content="Two entries."),
        ]
        view.load_transcript(messages)
        await view.settled()
        await pilot.pause()
        text = screen_text(app)
        for expected in ("› list files", "Listing now.", "list_dir", "README.md", "✓ done", "Two entries."):
            assert expected in text


async def test_settled_text_is_selectable() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, answer_run(text_deltas(ANSWER, 11)))
        view.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None
        assert "We read the file first, then change one function." in selected
        assert 'return f"hello {name}"' in selected


async def test_a_theme_switch_redraws_settled_text_in_the_new_colours() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, answer_run(text_deltas(ANSWER, 9)))
        await pilot.pause()
        dark = screen_text(app, styles=True)
        app.theme = "textual-light"
        await wait_until(lambda: screen_text(app, styles=True) != dark, pause=pilot.pause,
                         what="the light theme drawn")
        await view.settled()
        await pilot.pause()
        light = screen_text(app, styles=True)
        assert screen_text(app).count("hello {name}") == 1
        accent = app.theme_variables["accent"].lstrip("#")
        red, green, blue = (int(accent[i : i + 2], 16) for i in (0, 2, 4))
        assert f"38;2;{red};{green};{blue}" in light  # list numbers and inline code: the accent


async def test_reasoning_streams_dimmed_apart_from_the_answer_then_folds_and_unfolds() -> None:
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one(ConversationView)
        thought = "".join(f"thought line {n}\n" for n in range(1, 13))
        pieces = [ReasoningDelta(text=thought[i : i + 5]) for i in range(0, len(thought), 5)]
        await show(view, [TurnStarted(turn=1), *stream(1, *pieces)])
        text = screen_text(app)
        assert "∴ Thinking… (12 lines)" in text and "thought line 12" in text
        shown = [line.strip() for line in text.splitlines()]
        assert "thought line 1" not in shown and "thought line 7" in shown  # the latest lines only
        await show(view, [*stream(1, *text_deltas("The answer.", 4), MessageDone(finish_reason="stop")),
                          TurnFinished(turn=1, finish_reason="stop")])
        await pilot.pause()
        lines = screen_text(app).splitlines()
        folded = next(i for i, line in enumerate(lines) if "∴ Thought for 12 lines" in line)
        answer = next(i for i, line in enumerate(lines) if "The answer." in line)
        assert folded < answer and "thought line" not in "\n".join(lines)
        assert "thought" not in lines[answer]
        await pilot.click(ConversationView, offset=(4, folded))
        text = await screen_shows(app, pilot, "thought line 1 ", "thought line 12")
        shown = [line.strip() for line in text.splitlines()]
        assert "thought line 1" in shown and "thought line 12" in shown
        assert text.index("thought line 12") < text.index("The answer.")


async def test_the_scrollbar_follows_a_streaming_answer_as_a_fresh_layout_draws_it() -> None:
    """The view grows its scroll range without laying out the screen; the scrollbar it
    draws must be the one a full layout of the same content draws, at every stage: before
    the answer fills the screen (no thumb), once it overflows (the thumb appears) and as
    it grows."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        streamed = [TurnStarted(turn=1), *stream(1, *text_deltas(ANSWER * 4, 7))]
        checked = 0
        for start in range(0, len(streamed), 40):
            await show(view, streamed[start : start + 40])
            drawn = screen_text(app, styles=True)
            view.refresh(layout=True)
            await pilot.pause()
            assert screen_text(app, styles=True) == drawn
            checked += view.max_scroll_y > 0
        assert view.anchored and view.scroll_y == view.max_scroll_y > 0
        assert checked > 2


LATE_MEANINGS = {
    # Each answer has a line whose meaning a later line changes: streamed a character or
    # three at a time, the settled pieces must end as the answer drawn whole.
    "setext heading": "Intro paragraph.\n\nA line that becomes a heading\n=============================\n\nAfter it.\n",
    "setext after two lines": "First line of a paragraph\nsecond line of it\n---\n\nAfter it.\n",
    "fence closed late": "Before.\n\n~~~~js\nlet a = 1;\n```\nstill code\n~~~~\n\nAfter the fence.\n",
    "fence never closed": "Before.\n\n```python\ndef f():\n    return 1\n",
    "table rows": "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nAfter the table.\n",
    "table header late": "| a | b |\nnot a table yet\n\n| c | d |\n| --- | --- |\n| 5 | 6 |\n",
    "list continuation": "- one\n- two\n\n  still item two\n\n  more of two\n- three\n\nAfter.\n",
    "lazy continuation": "> quoted\ncontinued lazily\n\n1. first\n2. second\ncontinued lazily too\n",
    "indented code after list": "- item\n\n      code in the item\n\n    four spaces\n\nEnd.\n",
    # Code a later line recolours: each highlighted line is laid out once and reused.
    "string closed late": 'Code:\n\n```python\nx = 1\ns = """open\nstill, def f(): pass\n"""\ny = 2\n```\n\nAfter.\n',
    "comment closed late": "```java\nint a = 1;\n/* a comment\nint b = 2;\n*/\nint c = 3;\n```\n",
    "html comment": "Page:\n\n```html\n<p>a</p>\n<!-- c\n<b>x</b>\n-->\n<i>y</i>\n```\n",
    "string across chunks": "```python\n" + "v = 1\n" * 38 + 's = """\nin the string\n' * 3 + '"""\n```\n',
}


@pytest.mark.parametrize("answer", list(LATE_MEANINGS.values()), ids=list(LATE_MEANINGS))
async def test_a_line_that_changes_an_earlier_lines_meaning_ends_as_the_whole_answer_drawn(answer: str) -> None:
    screens = []
    for size in (len(answer), 1, 3):
        app = Host()
        async with app.run_test(size=(80, 40)) as pilot:
            view = app.query_one(ConversationView)
            await show(view, answer_run(text_deltas(answer, size)))
            await pilot.pause()
            screens.append(screen_text(app, styles=True))
    assert screens[1] == screens[0]
    assert screens[2] == screens[0]


@pytest.mark.parametrize("answer", list(LATE_MEANINGS.values()), ids=list(LATE_MEANINGS))
async def test_an_answer_drawn_after_every_delta_ends_as_the_whole_answer_drawn_afresh(answer: str) -> None:
    """What a frame draws is reused by later frames (a code line is laid out once): drawn
    after every few characters, the answer must end as it is drawn whole with nothing reused."""
    screens = []
    for size in (len(answer), 3):
        drawn_lines.clear()
        app = Host()
        async with app.run_test(size=(80, 40)) as pilot:
            view = app.query_one(ConversationView)
            for event in answer_run(text_deltas(answer, size)):
                await show(view, [event])
            await pilot.pause()
            screens.append(screen_text(app, styles=True))
    assert screens[1] == screens[0]


async def test_a_fast_stream_is_drawn_at_most_30_times_a_second() -> None:
    """Deltas that arrive faster than frames are applied together, no sooner than a 30th
    of a second apart, and the answer ends whole on screen, the view following it."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await show(view, [TurnStarted(turn=1)])
        applied: list[tuple[float, int]] = []
        flush = view._flush

        def counted() -> None:
            applied.append((time.perf_counter(), len(view._pending)))
            flush()

        view._flush = counted  # type: ignore[method-assign]
        deltas = text_deltas(ANSWER * 3, 4)
        for start in range(0, len(deltas), 10):  # a fast server: ten deltas as each lands
            for delta in deltas[start : start + 10]:
                view.post(Streamed(turn=1, event=delta))
            landed = len(applied)
            await wait_until(lambda landed=landed: len(applied) > landed, pause=pilot.pause,
                             what="the deltas applied")
        await view.settled()
        assert "nothing else changes." in screen_text(app)
        gaps = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(applied)]
        assert len(applied) > 3 and min(gaps) >= 1 / 30 - 0.002, gaps
        assert max(count for _, count in applied) > 1  # deltas were applied together
        assert view.anchored and view.scroll_y == view.max_scroll_y > 0


async def test_clearing_a_short_conversation_leaves_the_screen_empty() -> None:
    """Nothing scrolls when a conversation shorter than the screen is cleared: the lines it
    leaves must be repainted all the same."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        view.add_user_message("make it greet")
        await show(view, answer_run(text_deltas("Done: greet() now says hello.", 5)))
        await screen_shows(app, pilot, "says hello")
        view.clear()
        await screen_shows(app, pilot, gone=["says hello", "make it greet"])
        assert not content(app).strip()
