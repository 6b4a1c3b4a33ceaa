"""``neocode import`` of the files the real Claude Code and Codex wrote here, then resumed with
``-p`` and in the app: the model and the screen get the prompt, the shell call and its output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.interchange import read_transcript, save_imported
from neocode_tui.providers.scripted import ScriptedProvider
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.dialects import Dialect
from tests.support.headless import neocode, session_files
from tests.support.real_agents import ANSWER, PROMPT, SECRET, claude_code_session, codex_rollout
from tests.support.waits import screen_shows, started


@pytest.fixture(scope="session")
def claude_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Claude Code run once for every test here."""
    return claude_code_session(tmp_path_factory.mktemp("claude-code"))


async def test_claude_codes_own_file_resumes_in_print_mode_with_its_call_and_result(
    model_server, workspace: Path, tmp_path: Path, claude_file: Path
) -> None:
    anthropic = Dialect("anthropic", model_server)
    imported = await neocode(anthropic, workspace, "import", str(claude_file))
    assert imported.code == 0, imported.err
    session_id = imported.out.split("neocode --resume ")[1].split()[0]
    anthropic.reply("It holds notes.")

    resumed = await neocode(anthropic, workspace, "--resume", session_id, "-p", "and what else?")

    assert "imported Claude Code session: 5 messages, 1 tool calls" in imported.out
    assert "left out" not in imported.out  # every line of the real file is understood or known to skip
    assert resumed.code == 0, resumed.err
    assert resumed.out.strip() == "It holds notes."
    sent = anthropic.request(1)["messages"]
    assert [message["role"] for message in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert [block["type"] for block in sent[0]["content"]][:2] == ["text", "image"]
    assert sent[0]["content"][0]["text"] == PROMPT and sent[0]["content"][1]["source"]["media_type"] == "image/png"
    look = sent[1]["content"]
    assert [block["type"] for block in look] == ["text", "tool_use"]
    assert look[1]["name"] == "Bash" and look[1]["input"] == {"command": "ls", "description": "List files"}
    [result] = sent[2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == look[1]["id"]
    assert "notes.txt" in json.dumps(result["content"])
    assert json.dumps(sent[3]["content"]).count(ANSWER) == 1
    [saved] = session_files(tmp_path / "data")
    assert SECRET not in saved.read_text()
    assert '"input_tokens": 260' in saved.read_text()  # both responses, the cached tokens counted in


async def test_claude_codes_own_file_resumes_in_the_app_with_its_history_on_screen(
    tmp_path: Path, workspace: Path, claude_file: Path
) -> None:
    session_id = save_imported(read_transcript(claude_file, lambda text: text.replace(SECRET, "[redacted]")),
                               workspace, "scripted")
    app = NeoCodeApp(Settings(provider="scripted"), ScriptedProvider([]), workspace, resume=session_id,
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = await screen_shows(app, pilot, "resumed session", PROMPT, "Let me look.", "Bash", ANSWER)
        assert SECRET not in screen


@pytest.fixture(scope="session")
def codex_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Codex run once for every test here."""
    return codex_rollout(tmp_path_factory.mktemp("codex"))


async def test_codexs_own_rollout_resumes_in_print_mode_with_its_call_and_output(
    openai_only: Dialect, workspace: Path, tmp_path: Path, codex_file: Path
) -> None:
    imported = await neocode(openai_only, workspace, "import", str(codex_file))
    assert imported.code == 0, imported.err
    session_id = imported.out.split("neocode --resume ")[1].split()[0]
    openai_only.reply("It holds notes.")

    resumed = await neocode(openai_only, workspace, "--resume", session_id, "-p", "and what else?")

    assert "left out" not in imported.out
    assert resumed.code == 0, resumed.err
    assert resumed.out.strip() == "It holds notes."
    sent = [message for message in openai_only.request(1)["messages"] if message["role"] != "system"]
    prompts = [message["content"] for message in sent if message["role"] == "user"]
    assert PROMPT in prompts and prompts[-1] == "and what else?"
    [call] = [call for message in sent for call in message.get("tool_calls") or []]
    assert call["function"]["name"] == "exec_command" and json.loads(call["function"]["arguments"]) == {"cmd": "ls"}
    [output] = [message for message in sent if message["role"] == "tool"]
    assert output["tool_call_id"] == call["id"] and "notes.txt" in output["content"]
    assert sent[-2] == {"role": "assistant", "content": ANSWER}
    [saved] = session_files(tmp_path / "data")
    assert SECRET not in saved.read_text() + json.dumps(sent)
    assert '"input_tokens": 230' in saved.read_text()  # Codex's own running total of both responses
    assert '"cache_creation_input_tokens": 0' in saved.read_text()  # Codex 0.169 counts cache writes too


async def test_codexs_own_rollout_resumes_in_the_app_with_its_history_on_screen(
    workspace: Path, codex_file: Path
) -> None:
    session_id = save_imported(read_transcript(codex_file, lambda text: text.replace(SECRET, "[redacted]")),
                               workspace, "scripted")
    app = NeoCodeApp(Settings(provider="scripted"), ScriptedProvider([]), workspace, resume=session_id,
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = await screen_shows(app, pilot, "resumed session", PROMPT, "exec_command", ANSWER)
        assert SECRET not in screen
