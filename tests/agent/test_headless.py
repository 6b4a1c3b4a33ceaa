"""``neocode -p`` as a user runs it: a real subprocess talking HTTP to the loopback model."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import LoopEventAdapter
from neocode_tui.agent.transcript import NO_RESULT, STOPPED
from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import NEOCODE, neocode, session_files, start
from tests.support.model_server import Response
from tests.support.processes import wait_dead
from tests.support.waits import PATIENCE, wait_for_file

HOST_PIDS = ("--sandbox", "off")
"""For tests that read `$$`: inside the sandbox it counts in the sandbox's own numbering."""


async def test_json_output_reports_calls_usage_and_session(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    dialect.reply("Reading.", [("j1", "read_file", '{"path": "app.py"}')])
    dialect.reply("", [("j2", "write_file", '{"path": "new.py", "content": "x = 1\\n"}')])
    dialect.reply("It greets. I could not write new.py.")

    result = await neocode(dialect, workspace, "-p", "what does app.py do?", "--output-format", "json")

    assert result.code == 0, result.err
    output = json.loads(result.out)
    assert output["result"] == "It greets. I could not write new.py."
    assert output["error"] is None and output["turns"] == 3 and output["stop_reason"] == "done"
    read, write = output["tool_calls"]
    assert read == {"id": "j1", "name": "read_file", "arguments": {"path": "app.py"},
                    "result": dialect.tool_results(2)["j1"], "is_error": False}
    assert write["is_error"] and "--approval auto-edit or full-auto" in write["result"]
    assert not (workspace / "new.py").exists()
    assert output["usage"]["input_tokens"] == 30
    [saved] = session_files(isolated_dirs / "data")
    assert saved.stem == output["session_id"]
    everything = saved.read_text() + result.out + result.err
    assert API_KEY not in everything
    assert API_KEY in json.dumps(dialect.server.requests[0].headers)  # it was really in use


async def test_text_output_streams_the_answer_and_puts_tools_on_stderr(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("Looking.", [("t1", "grep", '{"pattern": "hello"}')])
    dialect.reply("It prints hello.")

    result = await neocode(dialect, workspace, "-p", "what does it print?")

    assert result.code == 0, result.err
    assert result.out == "Looking.\n\nIt prints hello.\n"
    assert "→ grep 'hello'" in result.err


async def test_stream_json_is_one_event_per_line(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("", [("s1", "list_dir", "{}")])
    dialect.reply("One file.")

    result = await neocode(dialect, workspace, "-p", "list", "--output-format", "stream-json")

    assert result.code == 0, result.err
    lines = [json.loads(line) for line in result.out.splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["provider"] == dialect.name
    events = [LoopEventAdapter.validate_python(line) for line in lines[1:]]
    kinds = [event.type for event in events]
    assert events[0].type == "session_titled" and events[0].title == "list"
    assert events[0].session_id == lines[0]["session_id"]
    assert kinds[1] == "turn_started" and kinds[-1] == "run_finished"
    assert "tool_started" in kinds and "tool_finished" in kinds
    deltas = [e.event.text for e in events if e.type == "stream" and e.event.type == "text_delta"]
    assert "".join(deltas) == "One file."


async def test_prompt_from_stdin(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("Piped prompt received.")
    result = await neocode(dialect, workspace, "-p", "-", stdin=b"summarise this folder\n")
    assert result.code == 0 and result.out == "Piped prompt received.\n"
    first = json.dumps(dialect.request(1)["messages"])
    assert "summarise this folder" in first


async def test_a_failed_run_exits_1_with_the_error_and_no_key(dialect: Dialect, workspace: Path) -> None:
    dialect.server.enqueue(Response(status=401, headers={"content-type": "application/json"},
                                    body=b'{"error": {"message": "bad key"}}'))
    result = await neocode(dialect, workspace, "-p", "hi", "--output-format", "json")
    assert result.code == 1
    output = json.loads(result.out)
    assert output["error"]["kind"] == "auth" and output["stop_reason"] == "error"
    assert API_KEY not in result.out + result.err

    dialect.server.enqueue(Response(status=401, headers={"content-type": "application/json"},
                                    body=b'{"error": {"message": "bad key"}}'))
    text = await neocode(dialect, workspace, "-p", "hi")
    assert text.code == 1 and text.err.startswith("neocode: ") and API_KEY not in text.err


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["-p", "hi", "--max-turns", "0"], None, "--max-turns: 0: Input should be greater than or equal to 1"),
        (["-p", "-"], b"  \n", "the prompt is empty"),
        (["-p", "hi", "--resume", "20990101-000000-abcdef"], None, "no saved session with id"),
        (["-p", "hi", "--resume", "../../etc/passwd"], None, "is not a session id"),
        (["-p", "hi", "--continue"], None, "no saved session for"),
        (["-p", "hi", "--output-format", "xml"], None, "invalid choice"),
    ],
)
async def test_bad_usage_exits_2_with_a_clear_message(
    openai_only: Dialect, workspace: Path, args: list[str], stdin: bytes | None, message: str
) -> None:
    result = await neocode(openai_only, workspace, *args, stdin=stdin)
    assert result.code == 2
    assert message in result.err
    assert openai_only.server.requests == []


async def test_resume_after_a_kill_repairs_the_transcript(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    dialect.reply("Running it.", [("r1", "bash", '{"command": "echo $$ > shell.pid; sleep 60"}')])
    process = await start(dialect, workspace, "-p", "run the long job", "--approval", "full-auto",
                          *HOST_PIDS)
    group = int(await wait_for_file(workspace / "shell.pid"))
    process.kill()  # SIGKILL: no cleanup runs, as after a crash or a closed terminal
    await process.wait()
    os.killpg(group, signal.SIGKILL)  # what the dead neocode could not stop
    [saved] = session_files(isolated_dirs / "data")
    with saved.open("a") as handle:
        handle.write('{"type": "message", "message": {"role": "ass')  # a write torn by the kill

    dialect.reply("Picking up where we left off.")
    resumed = await neocode(dialect, workspace, "--continue", "-p", "go on", "--output-format", "json")

    assert resumed.code == 0, resumed.err
    output = json.loads(resumed.out)
    assert output["session_id"] == saved.stem
    assert output["result"] == "Picking up where we left off."
    assert dialect.tool_results(2) == {"r1": NO_RESULT}
    sent = json.dumps(dialect.request(2)["messages"])
    assert sent.index("run the long job") < sent.index("Running it.") < sent.index("go on")

    listing = await neocode(dialect, workspace, "sessions")
    assert listing.code == 0
    assert listing.out.startswith(f"{saved.stem}  ") and "run the long job" in listing.out


def test_headless_does_not_import_textual() -> None:
    code = "import sys, neocode_tui.cli, neocode_tui.cli.headless; print('textual' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


async def test_ctrl_c_stops_the_run_and_its_command_and_saves_a_valid_session(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    dialect.reply("Running it.", [("i1", "bash", '{"command": "echo $$ > shell.pid; sleep 60"}')])
    process = await start(dialect, workspace, "-p", "run it", "--approval", "full-auto",
                          "--output-format", "json", *HOST_PIDS)
    shell = int(await wait_for_file(workspace / "shell.pid"))

    process.send_signal(signal.SIGINT)
    out, _ = await asyncio.wait_for(process.communicate(), PATIENCE)

    assert process.returncode == 130
    output = json.loads(out)
    assert output["stop_reason"] == "cancelled"
    assert output["tool_calls"] == [{"id": "i1", "name": "bash",
                                     "arguments": {"command": "echo $$ > shell.pid; sleep 60"},
                                     "result": STOPPED, "is_error": True}]
    assert await wait_dead(shell)
    [saved] = session_files(isolated_dirs / "data")
    assert STOPPED in saved.read_text()


async def test_sessions_in_a_folder_without_any(openai_only: Dialect, workspace: Path) -> None:
    result = await neocode(openai_only, workspace, "sessions")
    assert result.code == 0
    assert result.out == f"no saved sessions for {workspace}\n"


async def test_the_key_in_use_is_scrubbed_from_tool_output(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    (workspace / "notes.txt").write_text(f"my key is {API_KEY}\n")
    dialect.reply("", [("x1", "bash", '{"command": "cat notes.txt"}')])
    dialect.reply("It holds a key.")

    result = await neocode(dialect, workspace, "-p", "what is in notes.txt?", "--approval",
                           "full-auto", "--output-format", "stream-json")

    assert result.code == 0, result.err
    assert dialect.tool_results(2) == {"x1": "my key is [redacted]"}
    [saved] = session_files(isolated_dirs / "data")
    assert API_KEY not in result.out + result.err + saved.read_text()


async def test_ctrl_c_in_text_mode_says_how_to_continue(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    openai_only.reply("Waiting.", [("i2", "bash", '{"command": "echo $$ > shell.pid; sleep 60"}')])
    process = await start(openai_only, workspace, "-p", "wait", "--approval", "full-auto")
    await wait_for_file(workspace / "shell.pid")

    process.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)

    [saved] = session_files(isolated_dirs / "data")
    assert process.returncode == 130
    assert out.decode() == "Waiting.\n"
    assert f"neocode: interrupted (continue with: neocode --resume {saved.stem})" in err.decode()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_sigterm_and_sighup_end_the_run_like_ctrl_c(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path, signum: int, code: int
) -> None:
    openai_only.reply("Working on it.", [("t1", "bash", '{"command": "echo $$ > shell.pid; sleep 60"}')])
    process = await start(openai_only, workspace, "-p", "work", "--approval", "full-auto",
                          *HOST_PIDS)
    shell = int(await wait_for_file(workspace / "shell.pid"))

    process.send_signal(signum)
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)

    assert process.returncode == code
    assert out.decode() == "Working on it.\n"  # the partial result
    assert "neocode: interrupted (continue with: neocode --resume" in err.decode()
    assert await wait_dead(shell)
    [saved] = session_files(isolated_dirs / "data")
    assert STOPPED in saved.read_text()


async def _without_a_key(workspace: Path, *flags: str) -> tuple[int | None, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "NEOCODE_P"))}
    run = await asyncio.create_subprocess_exec(
        NEOCODE, "-p", "hello", *flags, cwd=workspace, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(run.communicate(), PATIENCE)
    return run.returncode, out.decode(), err.decode()


async def test_print_mode_without_a_key_is_an_error_not_the_offline_tour(workspace: Path) -> None:
    """A script that forgot its key is told so, not answered by the offline model."""
    code, out, err = await _without_a_key(workspace)
    assert code == 1 and out == ""
    assert "no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY" in err


async def test_print_mode_runs_the_offline_model_when_it_is_named(workspace: Path) -> None:
    code, out, err = await _without_a_key(workspace, "--provider", "scripted")
    assert code == 0, err
    assert "offline" in out.lower() and "no API key" not in err


async def test_a_prompt_with_bytes_that_are_not_utf8_runs(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("Bonjour.")
    process = await start(openai_only, workspace, "-p", os.fsdecode(b"caf\xe9"))
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 0, err
    assert out.decode() == "Bonjour.\n"
    assert openai_only.request(1)["messages"][-1]["content"] == "caf\ufffd"


async def test_an_untrusted_env_in_the_folder_cannot_switch_on_full_auto(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / ".env").write_text("NEOCODE_APPROVAL=full-auto\nNEOCODE_BASE_URL=http://127.0.0.2:9/v1\n")
    openai_only.reply("", [("e1", "bash", '{"command": "touch pwned"}')])
    openai_only.reply("I could not run it.")

    result = await neocode(openai_only, workspace, "-p", "run it")

    assert result.code == 0, result.err
    assert not (workspace / "pwned").exists()
    assert "NEOCODE_APPROVAL in" in result.err and "was ignored: this folder is not trusted" in result.err
    assert len(openai_only.server.requests) == 2  # the user's server, not the .env's

    trusted = await neocode(openai_only, workspace, "-p", "run it", "--trust")
    assert trusted.code == 1  # now the .env's base URL applies, and nothing listens there
    assert "NEOCODE_APPROVAL" not in trusted.err


async def test_a_retried_answer_reaches_stdout_once(openai_only: Dialect, workspace: Path) -> None:
    broken = openai_only.turn("Hello wor" + "ld, this answer breaks" * 3)
    openai_only.server.enqueue(Response(body=broken[: len(broken) // 2], chunk_sizes=20))
    openai_only.reply("Hello world.")
    process = await start(openai_only, workspace, "-p", "hi", NEOCODE_MAX_RETRIES="1")
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert out.decode() == "Hello world.\n", err
    assert "retrying 2/" in err.decode()


async def test_headless_offers_mcp_tools_from_the_first_request(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    time_server = {"command": str(Path(sys.executable).parent / "mcp-server-time"),
                   "args": ["--local-timezone", "UTC"]}
    config = isolated_dirs / "config" / "mcp.json"  # the user's own servers: trusted
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"mcpServers": {"time": time_server}}))
    openai_only.reply("", [("t1", "mcp__time__get_current_time", '{"timezone": "UTC"}')])
    openai_only.reply("It is now.")

    result = await neocode(openai_only, workspace, "-p", "what time is it?", "--approval", "full-auto")

    assert result.code == 0, result.err
    offered = [tool["function"]["name"] for tool in openai_only.request(1)["tools"]]
    assert "mcp__time__get_current_time" in offered
    assert '"timezone": "UTC"' in openai_only.tool_results(2)["t1"]
