"""``neocode replay`` as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.waits import PATIENCE

STREAMS = Path(__file__).parent.parent / "streams"


def neocode(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neocode_tui", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=PATIENCE)


def test_json_is_the_collected_turn() -> None:
    path = STREAMS / "anthropic_thinking_tool_use.sse"
    result = neocode("replay", str(path), "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout) == json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


def test_events_prints_one_json_line_per_event() -> None:
    result = neocode("replay", str(STREAMS / "groq_x_groq_usage.sse"), "--events")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["text_delta"] * 4 + ["usage", "message_done"]
    assert "".join(line.get("text", "") for line in lines) == "Groq streams fast."


def test_plain_replay_prints_the_text_and_a_summary() -> None:
    result = neocode("replay", str(STREAMS / "openai_gpt4o_parallel_tools.sse"))
    assert result.stdout == "I'll look at both files to find where the config is loaded.\n"
    assert "2 tool call(s): read_file, grep" in result.stderr


def test_a_stream_that_carried_an_error_still_exits_zero(tmp_path: Path) -> None:
    result = neocode("replay", str(STREAMS / "openai_truncated_mid_call.sse"), "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["error"]["kind"] == "truncated"


def test_the_dialect_can_be_forced(tmp_path: Path) -> None:
    result = neocode("replay", str(STREAMS / "anthropic_thinking_tool_use.sse"), "--dialect", "openai", "--json")
    assert result.returncode == 0  # read as the wrong dialect: an error in the turn, not a crash
    assert json.loads(result.stdout)["error"] is not None


def test_an_unreadable_file_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    result = neocode("replay", str(tmp_path / "missing.sse"), "--json")
    assert (result.returncode, result.stdout) == (2, "")
    assert "cannot read" in result.stderr and "missing.sse" in result.stderr


def test_replay_never_imports_textual() -> None:
    code = ("import sys; from neocode_tui.cli import main; "
            f"main(['replay', {str(STREAMS / 'groq_x_groq_usage.sse')!r}, '--json']); "
            "print(sorted(m for m in ('textual', 'httpx') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE)
    assert result.stdout.splitlines()[-1] == "[]"


def _shell(command: str, **paths: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in bash with ``$NEOCODE`` the replay command, for redirections Python's
    subprocess cannot make (a closed descriptor)."""
    env = {**os.environ, "NEOCODE": f"{sys.executable} -m neocode_tui replay"}
    env.update({name: str(path) for name, path in paths.items()})
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env,
                          timeout=PATIENCE)


def test_a_deeply_nested_chunk_is_a_malformed_chunk(tmp_path: Path) -> None:
    path = tmp_path / "deep.sse"
    path.write_text("data: " + "[" * 100_000 + "\n\n")
    for flags in ([], ["--dialect", "openai"]):
        result = neocode("replay", str(path), *flags)
        # A chunk nested past reason is a malformed chunk like any other: reported, no crash.
        assert result.returncode == 0 and "Traceback" not in result.stderr
        assert "error (malformed): malformed chunk from the server: not JSON" in result.stderr


PEAK_MEMORY = """
import re, sys
from pathlib import Path
from neocode_tui.cli.dispatch import main
code = main(sys.argv[1:])
status = Path("/proc/self/status").read_text()  # VmHWM: this process's peak, since its exec
print(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1), file=sys.stderr)
sys.exit(code)
"""


def test_a_huge_single_line_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.sse"
    with path.open("wb") as handle:  # 200 MB, one line, sparse on disk
        handle.write(b'data: {"choices": [{"delta": {"content": "')
        handle.truncate(200_000_000)
    result = subprocess.run([sys.executable, "-c", PEAK_MEMORY, "replay", str(path), "--json"],
                            capture_output=True, text=True, timeout=PATIENCE)
    message, peak_kb = result.stderr.splitlines()
    assert (result.returncode, result.stdout) == (2, "")
    assert message == (f"neocode replay: cannot read {path}: "
                       "it is larger than 16 MB, the most a recording may have")
    assert int(peak_kb) < 120_000  # the cap and the interpreter, not 200 MB


def test_a_closed_stdout_is_reported_on_stderr_with_exit_1() -> None:
    result = _shell('$NEOCODE "$FILE" --json >&-', FILE=STREAMS / "groq_x_groq_usage.sse")
    assert result.returncode == 1
    assert result.stderr == "neocode replay: cannot write the replay: stdout is closed\n"


def test_a_full_disk_on_stdout_is_reported_with_exit_1() -> None:
    result = _shell('$NEOCODE "$FILE" --events > /dev/full', FILE=STREAMS / "groq_x_groq_usage.sse")
    assert result.returncode == 1
    assert result.stderr == "neocode replay: cannot write the replay: No space left on device\n"


def test_closed_stdout_and_stderr_exit_1_silently() -> None:
    result = _shell('$NEOCODE "$FILE" >&- 2>&-; echo "exit $?"',
                    FILE=STREAMS / "groq_x_groq_usage.sse")
    assert result.stdout == "exit 1\n"


def test_a_closed_stdin_does_not_matter_to_a_replay() -> None:
    result = _shell('$NEOCODE "$FILE" --json <&-', FILE=STREAMS / "groq_x_groq_usage.sse")
    assert result.returncode == 0
    assert json.loads(result.stdout)["text"] == "Groq streams fast."


def test_a_reader_that_goes_away_ends_the_replay_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "neocode_tui", "replay", str(STREAMS / "groq_x_groq_usage.sse"),
         "--events"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the first event is written
    stderr = process.stderr.read()
    assert process.wait(timeout=PATIENCE) == 1
    assert stderr == b""
