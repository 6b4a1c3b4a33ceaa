"""``neocode export --format atif`` checked against the ATIF package's own models, and
``neocode import`` of a Claude Code session and of a Codex rollout, resumed with ``-p``."""

from __future__ import annotations

import json
from pathlib import Path

from atif import Trajectory

from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import neocode, session_files
from tests.support.other_agents import claude_code_file, codex_file


async def test_a_run_exported_as_atif_is_a_valid_trajectory_with_calls_results_tokens_and_cost(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    openai_only.reply("Reading.", [("r1", "read_file", '{"path": "app.py"}')])
    openai_only.reply("It prints hello.")
    at_end = tmp_path / "at-end.json"
    run = await neocode(openai_only, workspace, "-p", "what does app.py print?", "--model", "gpt-4o",
                        "--output-format", "json", "--trajectory", str(at_end))
    assert run.code == 0, run.err
    target = tmp_path / "trajectory.json"

    exported = await neocode(openai_only, workspace, "export", "--format", "atif", "-o", str(target))
    again = await neocode(openai_only, workspace, "export", "-o", str(target))

    assert exported.code == 0, exported.err
    assert at_end.read_text() == target.read_text()  # -p --trajectory writes the same file
    trajectory = Trajectory.model_validate_json(target.read_text())
    assert trajectory.schema_version == "ATIF-v1.8"
    assert trajectory.session_id == json.loads(run.out)["session_id"]
    assert (trajectory.agent.name, trajectory.agent.model_name) == ("neocode", "gpt-4o")
    user, reading, answer = trajectory.steps
    assert (user.source, user.message) == ("user", "what does app.py print?")
    assert reading.source == "agent" and reading.message == "Reading."
    [call] = reading.tool_calls
    assert (call.tool_call_id, call.function_name, call.arguments) == ("r1", "read_file", {"path": "app.py"})
    [result] = reading.observation.results
    assert result.source_call_id == "r1" and "print(greet())" in result.content
    assert answer.message == "It prints hello." and answer.model_name == "gpt-4o"
    for step in (reading, answer):
        assert (step.metrics.prompt_tokens, step.metrics.completion_tokens) == (10, 5)
        assert step.metrics.cost_usd > 0 and step.timestamp
    final = trajectory.final_metrics
    assert (final.total_prompt_tokens, final.total_completion_tokens, final.total_steps) == (20, 10, 3)
    assert final.total_cost_usd == round(reading.metrics.cost_usd + answer.metrics.cost_usd, 6)
    assert again.code == 1 and "exists" in again.err and "Traceback" not in again.err


async def test_a_claude_code_session_is_imported_and_resumed_with_its_calls_image_and_no_secret(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    source = claude_code_file(tmp_path, API_KEY)
    imported = await neocode(openai_only, workspace, "import", str(source))
    assert imported.code == 0, imported.err
    session_id = imported.out.split("neocode --resume ")[1].split()[0]
    openai_only.reply("It greets.")

    resumed = await neocode(openai_only, workspace, "--resume", session_id, "-p", "and what else?")

    assert "imported Claude Code session: 6 messages, 1 tool calls" in imported.out
    assert "1 line(s) it could not use were left out" in imported.out  # the torn last line
    assert resumed.code == 0, resumed.err
    assert resumed.out.strip() == "It greets."
    sent = openai_only.request(1)["messages"]
    roles = [message["role"] for message in sent if message["role"] != "system"]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant", "user"]
    first = next(message for message in sent if message["role"] == "user")
    assert [part["type"] for part in first["content"]] == ["text", "image_url"]
    call = next(message for message in sent if message.get("tool_calls"))
    assert call["content"] == "Let me look."
    assert call["tool_calls"][0]["function"] == {"name": "Bash",
                                                 "arguments": '{"command": "ls", "description": "List files"}'}
    result = next(message for message in sent if message["role"] == "tool")
    assert result["tool_call_id"] == call["tool_calls"][0]["id"] and "README.md" in result["content"]
    assert "subagent chatter" not in json.dumps(sent)
    [saved] = session_files(tmp_path / "data")
    assert API_KEY not in saved.read_text() + json.dumps(sent)
    assert '"input_tokens": 6510' in saved.read_text()  # every response's tokens, cached ones in


async def test_a_codex_rollout_is_imported_and_resumed_and_its_context_stays_a_note(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    source = codex_file(tmp_path, API_KEY)
    imported = await neocode(openai_only, workspace, "import", str(source))
    assert imported.code == 0, imported.err
    session_id = imported.out.split("neocode --resume ")[1].split()[0]
    openai_only.reply("Done before.")
    exported = await neocode(openai_only, workspace, "export", session_id)

    resumed = await neocode(openai_only, workspace, "--resume", session_id, "-p", "did it work?")

    assert "imported Codex session: 7 messages, 2 tool calls" in imported.out
    assert resumed.code == 0, resumed.err
    sent = openai_only.request(1)["messages"]
    calls = [call for message in sent for call in message.get("tool_calls") or []]
    assert [call["function"]["name"] for call in calls] == ["shell", "apply_patch"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"command": ["bash", "-lc", "ls"], "workdir": "."}
    results = [message["content"] for message in sent if message["role"] == "tool"]
    assert results[0].startswith("app.py\nKEY=") and "Success. Updated" in results[1]
    assert API_KEY not in json.dumps(sent)
    trajectory = Trajectory.model_validate_json(exported.out)
    sources = [step.source for step in trajectory.steps]
    assert sources == ["system", "user", "agent", "agent", "agent"]  # Codex's context is a note, not a prompt
    assert trajectory.steps[2].reasoning_content == "**Looking at the file first**"
    assert [[r.source_call_id for r in step.observation.results] for step in trajectory.steps[2:4]] == [
        ["call_ls1"], ["call_patch1"]]
    assert trajectory.steps[4].message == "Added a module docstring to app.py."


async def test_a_file_that_is_no_session_is_refused_in_words(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"hello": "world"}\nnot json\n')

    refused = await neocode(openai_only, workspace, "import", str(notes))
    missing = await neocode(openai_only, workspace, "import", str(tmp_path / "nowhere.jsonl"))
    unknown = await neocode(openai_only, workspace, "export", "zzz")

    assert refused.code == 1 and "neither a Claude Code session" in refused.err
    assert missing.code == 1 and "cannot read" in missing.err
    assert unknown.code == 1 and "no saved session" in unknown.err
    assert "Traceback" not in refused.err + missing.err + unknown.err
    assert session_files(tmp_path / "data") == []
