"""``repair``: any sequence of messages becomes a transcript a model server accepts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from neocode_tui.agent.transcript import LOST_START, NO_RESULT, repair
from neocode_tui.chat import Message, ToolCall
from tests.support.transcripts import assert_valid

IDS = st.sampled_from(["a", "b", "c", "d", ""])


def calls() -> st.SearchStrategy[list[ToolCall]]:
    return st.lists(st.builds(ToolCall, id=IDS, name=st.sampled_from(["bash", "read_file"]),
                              arguments=st.just("{}")), max_size=3)


MESSAGES = st.one_of(
    st.builds(Message, role=st.just("user"), content=st.sampled_from(["go", "more"])),
    st.builds(Message, role=st.just("assistant"), content=st.sampled_from(["", "ok"]),
              tool_calls=calls()),
    st.builds(Message, role=st.just("tool"), content=st.just("out"),
              tool_call_id=st.one_of(st.none(), IDS)),
)


@st.composite
def valid_transcripts(draw: st.DrawFn) -> list[Message]:
    """What the loop writes: a prompt, then turns whose calls are each answered in order."""
    messages = []
    for _ in range(draw(st.integers(0, 4))):
        messages.append(Message(role="user", content=draw(st.sampled_from(["go", "more"]))))
        for _ in range(draw(st.integers(0, 3))):
            ids = draw(st.lists(st.sampled_from("abcd"), unique=True, max_size=3))
            messages.append(Message(role="assistant", content="ok", tool_calls=[
                ToolCall(id=i, name="bash", arguments="{}") for i in ids]))
            messages += [Message(role="tool", content="out", tool_call_id=i, name="bash")
                         for i in ids]
    return messages


@st.composite
def damaged_transcripts(draw: st.DrawFn) -> list[Message]:
    """A valid transcript after lost, repeated, reordered and foreign records."""
    messages = draw(valid_transcripts())
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(messages)))
        action = draw(st.sampled_from(["drop", "repeat", "swap", "insert"]))
        if action == "insert" or not messages:
            messages.insert(where, draw(MESSAGES))
        elif action == "drop":
            del messages[min(where, len(messages) - 1)]
        elif action == "repeat":
            messages.insert(where, messages[min(where, len(messages) - 1)])
        else:
            other = draw(st.integers(0, len(messages) - 1))
            where = min(where, len(messages) - 1)
            messages[where], messages[other] = messages[other], messages[where]
    return messages


TRANSCRIPTS = st.one_of(st.lists(MESSAGES, max_size=25), valid_transcripts(),
                        damaged_transcripts())


@settings(max_examples=400)
@given(TRANSCRIPTS)
def test_any_sequence_is_repaired_into_a_valid_transcript(messages: list[Message]) -> None:
    repaired = repair(messages)
    assert_valid(repaired.messages)
    assert (repaired.notes == []) == (repaired.messages == messages)


@given(valid_transcripts())
def test_a_valid_transcript_is_left_alone(messages: list[Message]) -> None:
    assert repair(messages) == (messages, [])


@settings(max_examples=300)
@given(TRANSCRIPTS)
def test_repair_keeps_every_user_and_assistant_text(messages: list[Message]) -> None:
    kept = [(m.role, m.content) for m in repair(messages).messages
            if m.role != "tool" and m.content != LOST_START]
    assert kept == [(m.role, m.content) for m in messages if m.role != "tool"]


@settings(max_examples=300)
@given(TRANSCRIPTS, TRANSCRIPTS)
def test_a_saved_continuation_loads_back_as_it_was_run(
    saved: list[Message], continuation: list[Message]
) -> None:
    """Loading repairs; a run then appends to the file; loading again gives what the run had."""
    loaded = repair(saved).messages
    if not loaded:
        return
    run = repair([*loaded, Message(role="user", content="next"), *continuation]).messages
    assert run[: len(loaded)] == loaded
    added = run[len(loaded):]
    assert repair([*saved, *added]).messages == run
    assert repair(run) == (run, [])


def test_a_result_lost_mid_transcript_is_marked_and_the_rest_kept() -> None:
    call_a = ToolCall(id="a", name="bash", arguments="{}")
    call_b = ToolCall(id="b", name="read_file", arguments="{}")
    messages = [
        Message(role="user", content="go"),
        Message(role="assistant", tool_calls=[call_a, call_b]),
        Message(role="tool", content="B done", tool_call_id="b"),  # out of order, a's lost
        Message(role="tool", content="stray", tool_call_id="zzz"),
        Message(role="user", content="and then?"),
    ]
    repaired = repair(messages)
    assert [(m.role, m.tool_call_id, m.content) for m in repaired.messages] == [
        ("user", None, "go"),
        ("assistant", None, ""),
        ("tool", "a", NO_RESULT),
        ("tool", "b", "B done"),
        ("user", None, "and then?"),
    ]
    assert repaired.notes == [
        "1 tool call(s) had no saved result and are marked interrupted",
        "1 tool result(s) without their call were dropped",
    ]


def test_a_transcript_whose_start_was_lost_begins_with_a_user_note() -> None:
    repaired = repair([Message(role="assistant", content="As I said…")])
    assert [(m.role, m.content) for m in repaired.messages] == [
        ("user", LOST_START), ("assistant", "As I said…"),
    ]
    assert repaired.notes == ["the start of the conversation was lost"]
