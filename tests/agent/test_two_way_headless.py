"""``neocode -p --input-format stream-json``: a program holds a conversation with one
headless session over stdin and stdout, as Claude Code's Agent SDK does with ``claude``.
A real subprocess, the scripted model over real HTTP, a real folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.support.calls import QUESTIONS, ask_call
from tests.support.dialects import Dialect
from tests.support.headless import start
from tests.support.waits import PATIENCE

TWO_WAY = ("-p", "--input-format", "stream-json", "--output-format", "stream-json")


def user(text: str, **fields: str) -> bytes:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text},
                       "session_id": "default", "parent_tool_use_id": None, **fields}).encode() + b"\n"


def answer(request_id: str, decision: dict[str, Any]) -> bytes:
    return json.dumps({"type": "control_response", "response": {
        "subtype": "success", "request_id": request_id, "response": decision}}).encode() + b"\n"


def write_call(call_id: str, path: str, content: str) -> tuple[str, str, str]:
    return (call_id, "write_file", json.dumps({"path": path, "content": content}))


class Program:
    """The program on the other end: writes lines to neocode's stdin, reads its stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.seen: list[dict[str, Any]] = []

    async def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line)
        await self.process.stdin.drain()

    async def until(self, kind: str) -> dict[str, Any]:
        """Lines until one of ``type`` ``kind`` (kept in ``seen``); that one."""
        assert self.process.stdout is not None
        while True:
            raw = await asyncio.wait_for(self.process.stdout.readline(), PATIENCE)
            assert raw, f"stdout ended before a {kind} line: {self.seen[-3:]}"
            line = json.loads(raw)
            self.seen.append(line)
            if line["type"] == kind:
                return line

    async def end(self) -> tuple[int, str]:
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        err = await asyncio.wait_for(self.process.stderr.read(), PATIENCE)
        code = await asyncio.wait_for(self.process.wait(), PATIENCE)
        return code, err.decode()


async def test_a_conversation_of_several_messages_with_a_write_allowed_and_one_denied(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [write_call("w1", "notes.txt", "first\n")])
    openai_only.reply("Wrote notes.txt.")
    openai_only.reply("You asked me to write notes.txt.")
    openai_only.reply("", [write_call("w2", "other.txt", "second\n")])
    openai_only.reply("Understood, I left other.txt alone.")
    program = Program(await start(openai_only, workspace, *TWO_WAY, "--permission-prompt-tool",
                                  "stdio", stdin=True))

    header = await program.until("session")
    await program.send(user("write notes.txt"))
    question = await program.until("control_request")
    assert question["request"]["subtype"] == "can_use_tool"
    assert question["request"]["tool_name"] == "write_file"
    assert question["request"]["tool_use_id"] == "w1"
    assert question["request"]["input"] == {"path": "notes.txt", "content": "first\n"}
    assert not (workspace / "notes.txt").exists()  # nothing runs before the answer
    await program.send(answer(question["request_id"], {"behavior": "allow", "updatedInput": {}}))
    first = await program.until("run_finished")
    assert first["reason"] == "done" and first["final_text"] == "Wrote notes.txt."
    assert (workspace / "notes.txt").read_text() == "first\n"

    await program.send(b"this is not json\n")
    bad = await program.until("input_error")
    assert bad["line"] == 3 and bad["message"].startswith("not JSON")
    await program.send(user("what did I ask you?"))
    second = await program.until("run_finished")
    assert second["final_text"] == "You asked me to write notes.txt."
    # The same session: the model is sent the whole conversation so far.
    said = [m["content"] for m in openai_only.request(3)["messages"] if m["role"] == "user"]
    assert said[-2:] == ["write notes.txt", "what did I ask you?"]

    await program.send(user("write other.txt"))
    question = await program.until("control_request")
    await program.send(answer(question["request_id"], {"behavior": "deny", "message": "not that file"}))
    third = await program.until("run_finished")
    assert third["final_text"] == "Understood, I left other.txt alone."
    assert not (workspace / "other.txt").exists()
    assert "not that file" in openai_only.tool_results(5)["w2"]

    code, err = await program.end()
    assert code == 0, err
    assert {line.get("session_id") for line in program.seen if line["type"] == "session"} == {
        header["session_id"]}
    assert "Traceback" not in err


async def test_without_the_permission_prompt_tool_a_call_that_needs_a_yes_is_refused_as_in_any_run(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [write_call("w1", "notes.txt", "x\n")])
    openai_only.reply("I could not write it.")
    program = Program(await start(openai_only, workspace, *TWO_WAY, stdin=True))
    await program.send(user("write notes.txt"))
    finished = await program.until("run_finished")
    code, err = await program.end()

    assert code == 0, err
    assert finished["final_text"] == "I could not write it."
    assert [line for line in program.seen if line["type"] == "control_request"] == []
    assert openai_only.tool_results(2)["w1"].startswith("not run: write_file needs approval")
    assert not (workspace / "notes.txt").exists()


async def test_stream_json_input_without_stream_json_output_is_bad_usage(
    openai_only: Dialect, workspace: Path
) -> None:
    process = await start(openai_only, workspace, "-p", "--input-format", "stream-json", stdin=True)
    out, err = await asyncio.wait_for(process.communicate(user("hi")), PATIENCE)
    assert process.returncode == 2 and out == b""
    assert err.decode() == "neocode: --input-format stream-json needs --output-format stream-json\n"


async def test_the_model_s_questions_go_to_the_program_as_claude_code_s_ask_user_question(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [ask_call("q1")])
    openai_only.reply("SQLite it is, sign-in and export first.")
    openai_only.reply("", [ask_call("q2")])
    openai_only.reply("I will pick myself.")
    program = Program(await start(openai_only, workspace, *TWO_WAY, "--permission-prompt-tool",
                                  "stdio", stdin=True))

    await program.send(user("plan the app"))
    question = await program.until("control_request")
    asked = question["request"]
    assert asked["subtype"] == "can_use_tool" and asked["tool_name"] == "AskUserQuestion"
    assert asked["tool_use_id"] == "q1"
    assert [q["question"] for q in asked["input"]["questions"]] == [q["question"] for q in QUESTIONS]
    assert asked["input"]["questions"][1]["multiSelect"] is True
    await program.send(answer(question["request_id"], {"behavior": "allow", "updatedInput": {
        **asked["input"], "answers": {"Which database should the app use?": "SQLite",
                                      "Which parts should come first?": "Sign-in, Export"}}}))
    first = await program.until("run_finished")
    assert first["final_text"] == "SQLite it is, sign-in and export first."
    told = openai_only.tool_results(2)["q1"]
    assert '"Which database should the app use?" → SQLite' in told
    assert '"Which parts should come first?" → Sign-in; Export' in told

    await program.send(user("and the rest?"))
    question = await program.until("control_request")
    await program.send(answer(question["request_id"], {"behavior": "deny", "message": "later"}))
    second = await program.until("run_finished")
    assert second["final_text"] == "I will pick myself."
    assert "closed the questions without answering" in openai_only.tool_results(4)["q2"]
    code, err = await program.end()
    assert code == 0 and "Traceback" not in err


async def test_an_answer_without_answers_tells_the_model_nobody_answered(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [ask_call("q1")])
    openai_only.reply("I chose PostgreSQL myself.")
    program = Program(await start(openai_only, workspace, *TWO_WAY, "--permission-prompt-tool",
                                  "stdio", stdin=True))
    await program.send(user("plan the app"))
    question = await program.until("control_request")
    await program.send(answer(question["request_id"], {"behavior": "allow", "updatedInput": {}}))
    finished = await program.until("run_finished")
    assert finished["final_text"] == "I chose PostgreSQL myself."
    told = openai_only.tool_results(2)["q1"]
    assert told.startswith("not asked: the program driving NeoCode could not answer the questions")
    assert "updatedInput.answers" in told
    code, err = await program.end()
    assert code == 0 and "Traceback" not in err


async def waiting_on_a_write(dialect: Dialect, workspace: Path, *answers: str) -> tuple[Program, dict[str, Any]]:
    """A conversation whose first message, "write notes.txt", waits on the program's yes;
    the model's ``answers`` come after. The program, and the question it was asked."""
    dialect.reply("", [write_call("w1", "notes.txt", "first\n")])
    for text in answers:
        dialect.reply(text)
    program = Program(await start(dialect, workspace, *TWO_WAY, "--permission-prompt-tool", "stdio", stdin=True))
    await program.send(user("write notes.txt"))
    return program, await program.until("control_request")


async def test_a_message_sent_next_joins_the_running_turn_and_one_sent_later_waits_for_its_end(
    openai_only: Dialect, workspace: Path
) -> None:
    program, question = await waiting_on_a_write(openai_only, workspace, "Wrote notes.txt, and I will add a title.",
                                                 "The title is added.")
    # Both sent while the run waits on its question: the first joins it, the second waits.
    await program.send(user("also give it a title", priority="next"))
    await program.send(user("now add the title", priority="later"))
    await program.send(answer(question["request_id"], {"behavior": "allow", "updatedInput": {}}))
    first = await program.until("run_finished")
    second = await program.until("run_finished")
    code, err = await program.end()

    assert code == 0 and "Traceback" not in err
    assert first["final_text"] == "Wrote notes.txt, and I will add a title."
    assert second["final_text"] == "The title is added."
    steered = [line for line in program.seen if line["type"] == "steered"]
    assert [line["text"] for line in steered] == ["also give it a title"]
    # The running turn's next request reads it after the tool's result; the later one is a run of its own.
    joined = openai_only.request(2)["messages"]
    assert [m["role"] for m in joined[-2:]] == ["tool", "user"]
    assert joined[-1]["content"] == "also give it a title"
    said = [m["content"] for m in openai_only.request(3)["messages"] if m["role"] == "user"]
    assert said[-3:] == ["write notes.txt", "also give it a title", "now add the title"]


async def test_a_message_sent_now_stops_the_run_and_is_answered_before_those_waiting(
    openai_only: Dialect, workspace: Path
) -> None:
    program, _ = await waiting_on_a_write(openai_only, workspace, "Doing that instead.", "And then the rest.")
    await program.send(user("then the rest"))
    await program.send(user("stop, write nothing", priority="now"))
    stopped = await program.until("run_finished")
    instead = await program.until("run_finished")
    rest = await program.until("run_finished")
    code, err = await program.end()

    assert code == 0 and "Traceback" not in err
    assert stopped["reason"] != "done" and not (workspace / "notes.txt").exists()
    assert instead["final_text"] == "Doing that instead."
    assert rest["final_text"] == "And then the rest."
    said = [m["content"] for m in openai_only.request(3)["messages"] if m["role"] == "user"]
    assert said[-3:] == ["write notes.txt", "stop, write nothing", "then the rest"]
