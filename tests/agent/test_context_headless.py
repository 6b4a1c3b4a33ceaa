"""``neocode -p`` reports cost and context in its JSON, and compacts a resumed session that
no longer fits, as a user runs it: a real subprocess against the loopback model."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.context.figure import ASSUMED_WINDOW, CHARS_PER_TOKEN
from neocode_tui.agent.context.summary import SUMMARY_PREFIX
from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message
from tests.support.dialects import Dialect
from tests.support.headless import neocode, start
from tests.support.model_server import Response, json_response


async def run(dialect: Dialect, workspace: Path, *args: str, **settings: str) -> dict:
    process = await start(dialect, workspace, *args, "--output-format", "json", **settings)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return json.loads(out)


def answer(dialect: Dialect, text: str, usage: tuple[int, int] = (10, 5)) -> None:
    dialect.server.enqueue(Response(body=dialect.turn(text, usage=usage)))


async def test_json_has_the_cost_of_a_priced_model(dialect: Dialect, workspace: Path) -> None:
    answer(dialect, "Hi.", usage=(1000, 100))
    model = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}[dialect.name]

    output = await run(dialect, workspace, "-p", "hello", NEOCODE_MODEL=model)

    window, percent = {"openai": (128_000, 0.9), "anthropic": (200_000, 0.5)}[dialect.name]
    assert output["cost_usd"] == {"openai": 0.0035, "anthropic": 0.0045}[dialect.name]
    assert output["context"] == {"tokens": 1100, "window": window, "estimated": False,
                                 "percent": percent}


async def test_json_cost_is_null_for_an_unknown_model(openai_only: Dialect, workspace: Path) -> None:
    answer(openai_only, "Hi.", usage=(1000, 100))

    output = await run(openai_only, workspace, "-p", "hello", NEOCODE_CONTEXT_WINDOW="8000")

    assert output["cost_usd"] is None
    assert output["context"] == {"tokens": 1100, "window": 8000, "estimated": False, "percent": 13.8}


async def test_a_resumed_session_past_the_threshold_is_compacted_first(
    dialect: Dialect, workspace: Path
) -> None:
    answer(dialect, "Noted.")
    answer(dialect, "The user pasted a long log.")  # the summary
    answer(dialect, "Done.")
    window = {"NEOCODE_CONTEXT_WINDOW": "4000"}
    await run(dialect, workspace, "-p", "here is my log:\n" + "line of log\n" * 1000, **window)

    output = await run(dialect, workspace, "--continue", "-p", "now fix it", **window)

    assert output["result"] == "Done."
    assert "tools" not in dialect.request(2)  # the summary request
    sent = json.dumps(dialect.request(3)["messages"])
    assert SUMMARY_PREFIX.split(" (")[0] in sent and "line of log" not in sent
    assert output["context"]["tokens"] < 4000 * 0.85

    answer(dialect, "Then run the tests.")
    again = await neocode(dialect, workspace, "--continue", "-p", "and then?")
    assert (again.code, again.out) == (0, "Then run the tests.\n")
    resumed = json.dumps(dialect.request(4))
    assert "now fix it" in resumed and "line of log" not in resumed


async def test_a_bad_threshold_or_window_is_named_without_a_traceback(
    openai_only: Dialect, workspace: Path
) -> None:
    process = await start(openai_only, workspace, "-p", "hi", NEOCODE_COMPACT_THRESHOLD="1.5",
                          NEOCODE_CONTEXT_WINDOW="lots")
    _, err = await process.communicate()
    text = err.decode()
    assert process.returncode != 0 and "Traceback" not in text
    assert "NEOCODE_COMPACT_THRESHOLD" in text and "NEOCODE_CONTEXT_WINDOW" in text
    assert not openai_only.server.requests


def long_session(workspace: Path, chars: int) -> None:
    """A saved session of about ``chars`` characters of conversation, as a long day leaves."""
    store = SessionStore.create(workspace, provider="openai", model="test-model")
    for number in range(chars // 20_000):
        store.append_message(Message(role="user", content=f"question {number}: " + "why? " * 2_000))
        store.append_message(Message(role="assistant", content=f"answer {number}: " + "because. " * 1_100))
    store.close()


def sizes(dialect: Dialect) -> list[int]:
    return [int(request.headers["content-length"]) for request in dialect.server.requests]


async def test_with_no_known_window_a_history_past_the_assumed_one_is_compacted_before_it_is_sent(
    openai_only: Dialect, workspace: Path
) -> None:
    long_session(workspace, ASSUMED_WINDOW * CHARS_PER_TOKEN * 2)  # twice the assumed window
    answer(openai_only, "They asked why, many times.")  # the summary
    answer(openai_only, "Done.")

    output = await run(openai_only, workspace, "--continue", "-p", "now fix it")  # test-model: unknown

    assert output["result"] == "Done."
    assert "tools" not in openai_only.request(1)  # the summary request came first
    assert max(sizes(openai_only)) < ASSUMED_WINDOW * CHARS_PER_TOKEN * 0.6  # the history is 1 MB
    summary_input = openai_only.request(1)["messages"][-1]["content"]
    assert "question 0:" in summary_input and "messages left out" in summary_input
    sent = json.dumps(openai_only.request(2)["messages"])
    assert SUMMARY_PREFIX.split(" (")[0] in sent and "now fix it" in sent
    assert output["context"]["window"] is None  # still shown as unknown


async def test_a_history_too_long_for_the_window_sends_its_newest_messages_when_it_cannot_be_compacted(
    openai_only: Dialect, workspace: Path
) -> None:
    long_session(workspace, 400_000)
    openai_only.server.enqueue(json_response(500, {"error": {"message": "summariser down"}}))
    answer(openai_only, "Done.")

    process = await start(openai_only, workspace, "--continue", "-p", "now fix it",
                          NEOCODE_CONTEXT_WINDOW="50000")
    out, err = await process.communicate()

    assert (process.returncode, out.decode()) == (0, "Done.\n")
    assert len(openai_only.server.requests) == 2  # the summary request, then the newest part
    assert sizes(openai_only)[1] < 50_000 * CHARS_PER_TOKEN
    sent = json.dumps(openai_only.request(2)["messages"])
    assert "question 19:" in sent and "question 0:" not in sent and "now fix it" in sent
    text = err.decode()
    assert "could not compact" in text and "Traceback" not in text
    assert "of 40 are left out. The session file and the screen keep them all" in text


async def test_a_turn_too_long_for_the_window_is_not_sent_when_it_cannot_be_compacted(
    openai_only: Dialect, workspace: Path
) -> None:
    long_session(workspace, 40_000)  # each exchange alone is more than the window
    openai_only.server.enqueue(json_response(500, {"error": {"message": "summariser down"}}))

    process = await start(openai_only, workspace, "--continue", "-p", "now fix it",
                          NEOCODE_CONTEXT_WINDOW="4000")
    _, err = await process.communicate()

    assert process.returncode == 1
    assert len(openai_only.server.requests) == 1  # the summary request, not the 20 KB one
    text = err.decode()
    assert "could not compact" in text and "Traceback" not in text
    assert ("more than the model's context window (4,000 tokens), and could not be compacted"
            in " ".join(text.split()))
