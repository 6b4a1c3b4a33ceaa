"""The offline model plays scripted events and recorded bytes as a live model would."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.providers.offline import offline_provider
from neocode_tui.providers.scripted import ScriptedProvider, SSEReplay, scripted_reply
from tests.support.sse import anthropic_turn, openai_turn

REQUEST = ChatRequest(model="scripted", messages=[Message(role="user", content="hi")])


async def test_recorded_turns_in_both_dialects_play_through_the_parsers() -> None:
    provider = ScriptedProvider([
        SSEReplay(openai_turn("Hello, wörld", [("read_file", '{"path": "a.py"}')]), chunk_size=3),
        SSEReplay(anthropic_turn("Done ✓", thinking="hmm"), chunk_size=5),
    ])
    first = await collect(provider.stream(REQUEST))
    second = await collect(provider.stream(REQUEST))

    assert first.text == "Hello, wörld"
    assert [(c.name, c.arguments_json) for c in first.tool_calls] == [("read_file", {"path": "a.py"})]
    assert first.finish_reason == "tool_calls"
    assert (second.text, second.reasoning, second.finish_reason) == ("Done ✓", "hmm", "stop")


async def test_a_function_script_answers_what_it_is_sent() -> None:
    provider = ScriptedProvider(lambda request: scripted_reply(f"you said {request.messages[-1].content}"))
    turn = await collect(provider.stream(REQUEST))
    assert turn.text == "you said hi"
    assert provider.requests == [REQUEST]


async def test_running_out_of_turns_is_an_error_event_not_a_crash() -> None:
    provider = ScriptedProvider([scripted_reply("only one")])
    await collect(provider.stream(REQUEST))
    turn = await collect(provider.stream(REQUEST))
    assert turn.error is not None and "no more replies" in turn.error.message


async def test_rate_paces_the_deltas() -> None:
    import time

    provider = ScriptedProvider([scripted_reply("abcdefghij", delta=1)], rate=200)
    started = time.monotonic()
    turn = await collect(provider.stream(REQUEST))
    assert turn.text == "abcdefghij"
    assert time.monotonic() - started >= 10 / 200


async def test_the_offline_tour_in_an_empty_folder_offers_to_create_notes_without_a_failed_read(
    tmp_path: Path,
) -> None:
    loop = AgentLoop(offline_provider(), tmp_path, approval="full-auto")

    await loop.run("show me around")

    calls = [call.name for message in loop.messages for call in message.tool_calls]
    assert calls == ["list_dir", "write_file"]
    assert not any(message.is_error for message in loop.messages)
    assert (tmp_path / "NOTES.md").read_text() == "# Notes\n\n- Visited by NeoCode's offline model.\n"
