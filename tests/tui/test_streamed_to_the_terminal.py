"""Everything a model streams reaches the terminal, in order, however its events arrive
together: a reply's text and its tool call read at once, thinking, text and a call, text on
both sides of a call, a turn's last words with the turn's end.

Read from what the app sent the terminal (tests/support/sent.py): a block rendered and never
sent is in Textual's own picture of the screen, not on the user's.
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path

import pytest

from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from tests.support.model_server import ModelServer, Response
from tests.support.sent import SentScreen, rendered_before_every_message
from tests.support.sse import openai_sse, openai_turn
from tests.support.waits import wait_until

SIZE = (100, 40)
COMMAND = json.dumps({"command": "echo from-the-call"})
CALL = ("bash", COMMAND)
PANEL = "$ echo from-the-call"


def _chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


TEXT_CALL_TEXT = openai_sse([
    _chunk({"role": "assistant", "content": "Before the call."}),
    _chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                            "function": {"name": "bash", "arguments": COMMAND}}]}),
    _chunk({"content": "After the call."}),
    _chunk({}, "tool_calls"),
])

FIRST_REPLIES = {
    "text-then-call": (openai_turn("Answer: first", [CALL]), ["Answer: first", PANEL]),
    "thinking-text-call": (openai_turn("Answer: first", [CALL], reasoning="Weighing it up."),
                           ["∴ Thought for 1 line", "Answer: first", PANEL]),
    "text-call-text": (TEXT_CALL_TEXT, ["Before the call.", PANEL, "After the call."]),
}


def asked(server: ModelServer, count: int) -> bool:
    return len(server.requests) == count


def out_of_order(screen: str, pieces: list[str]) -> list[str]:
    """The pieces not on ``screen`` after the one before them (all of them found: [])."""
    wrong, at = [], 0
    for piece in pieces:
        found = screen.find(piece, at)
        if found < 0:
            wrong.append(piece)
        else:
            at = found + len(piece)
    return wrong


@pytest.mark.parametrize("first", FIRST_REPLIES)
async def test_a_reply_read_in_one_piece_reaches_the_terminal_whole_and_in_order(
    tmp_path: Path, model_server: ModelServer, first: str
) -> None:
    body, pieces = FIRST_REPLIES[first]
    # Each reply comes whole in one write (its text, its call, its usage and its end read
    # together), held until the view is done drawing what came before it.
    held = (asyncio.Event(), asyncio.Event())
    model_server.enqueue(Response(body=body, wait=held[0]), Response(body=openai_turn("All done."), wait=held[1]))
    workspace = tmp_path / "project"
    workspace.mkdir()
    settings = Settings(provider="openai", base_url=f"{model_server.url}/v1", model="m",
                        openai_api_key="sk-test", max_retries=0, approval="full-auto")
    app = NeoCodeApp(settings, None, workspace, remember_theme=False)
    sent = SentScreen(app, SIZE)

    async with app.run_test(size=SIZE, message_hook=rendered_before_every_message(app)) as pilot:
        await pilot.press(*"go", "enter")
        for number, release in enumerate(held, start=1):
            await wait_until(partial(asked, model_server, number), pause=pilot.pause, what=f"request {number}")
            await app.conversation.settled()
            release.set()
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run's end")
        await app.conversation.settled()
        shown = sent.text()

    assert out_of_order(shown, ["› go", *pieces, "All done."]) == [], shown
