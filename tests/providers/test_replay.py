"""``neocode replay`` as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

STREAMS = Path(__file__).parent.parent / "streams"


def neocode(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neocode_tui", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=60)


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
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.splitlines()[-1] == "[]"
