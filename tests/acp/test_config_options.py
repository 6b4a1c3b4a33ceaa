"""Session config options: an editor's mode, model and effort menus, set with
``session/set_config_option``, sent on to the model and back on resume, through the
Python ACP SDK's client and the official TypeScript one."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.schema import ConfigOptionUpdate, CurrentModeUpdate

from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.ts_editor import run_editor


def _current(options: list) -> dict[str, str]:
    return {option.id: option.current_value for option in options}


def _values(options: list, option_id: str) -> list[str]:
    [option] = [option for option in options if option.id == option_id]
    return [choice.value for choice in option.options]


async def test_an_editor_sets_mode_model_and_effort_and_a_resumed_session_keeps_them(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home, NEOCODE_FALLBACK_MODELS="gpt-5-mini,gpt-4o")
    model.reply("First.")
    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.set_config_option(config_id="model", session_id=session.session_id, value="gpt-5-mini")
        await first.conn.set_config_option(config_id="effort", session_id=session.session_id, value="high")
        answered = await first.conn.set_config_option(config_id="mode", session_id=session.session_id,
                                                      value="plan")
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("what is here?")])
        told = list(first.client.updates)

    model.reply("Second.")
    async with editor(env, workspace) as second:
        resumed = await second.conn.resume_session(cwd=str(workspace), session_id=session.session_id)
        await second.conn.prompt(session_id=session.session_id, prompt=[text_block("and now?")])

    assert [option.id for option in session.config_options] == ["mode", "model", "effort"]
    assert [option.category for option in session.config_options] == ["mode", "model", "thought_level"]
    assert _current(session.config_options) == {"mode": "ask", "model": "test-model", "effort": "off"}
    assert _values(session.config_options, "model") == ["test-model", "gpt-5-mini", "gpt-4o"]
    assert _values(session.config_options, "effort") == ["off", "low", "medium", "high"]
    assert _current(answered.config_options) == {"mode": "plan", "model": "gpt-5-mini", "effort": "high"}
    assert [u.current_mode_id for u in told if isinstance(u, CurrentModeUpdate)] == ["plan"]
    for number in (1, 2):  # the first run's request and the resumed run's
        sent = model.request(number)
        assert (sent["model"], sent["reasoning_effort"]) == ("gpt-5-mini", "high")
    assert _current(resumed.config_options) == {"mode": "plan", "model": "gpt-5-mini", "effort": "high"}
    assert resumed.modes.current_mode_id == "plan"


async def test_a_slash_command_that_changes_the_model_redraws_the_options_and_a_bad_value_is_refused(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home)
    async with editor(env, workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("/effort low")])
        with pytest.raises(RequestError) as unknown_model:
            await ed.conn.set_config_option(config_id="model", session_id=session.session_id, value="gpt-9")
        with pytest.raises(RequestError) as unknown_option:
            await ed.conn.set_config_option(config_id="temperature", session_id=session.session_id, value="1")
        await ed.conn.set_session_mode(session_id=session.session_id, mode_id="auto-edit")
        redrawn = [_current(u.config_options) for u in ed.client.updates if isinstance(u, ConfigOptionUpdate)]

    assert redrawn == [{"mode": "ask", "model": "test-model", "effort": "low"},
                       {"mode": "auto-edit", "model": "test-model", "effort": "low"}]
    assert "no model 'gpt-9' offered: the models are test-model" in str(unknown_model.value)
    assert "no config option 'temperature'" in str(unknown_option.value)
    assert model.server.requests == []  # none of it reached the model


async def test_a_typescript_sdk_editor_sets_options_and_gets_them_back_on_resume(
    model: Dialect, workspace: Path, home: Path, tmp_path: Path
) -> None:
    env = agent_env(model.server.url, home, NEOCODE_FALLBACK_MODELS="gpt-5-mini")
    model.reply("Done.")
    ed = await run_editor(tmp_path, env, cwd=str(workspace), prompts=["hello"],
                          options=[{"configId": "model", "value": "gpt-5-mini"},
                                   {"configId": "effort", "value": "medium"}])
    made = await ed.until("session")
    configured = [(await ed.until("configured"))["response"] for _ in range(2)]
    await ed.until("done")
    assert await ed.process.wait() == 0  # the SDK parsed every answer against its schema
    again = await run_editor(tmp_path, env, cwd=str(workspace), resume=made["response"]["sessionId"])
    resumed = await again.until("resumed")
    await again.until("done")
    assert await again.process.wait() == 0

    def current(options: list[dict]) -> dict[str, str]:
        return {option["id"]: option["currentValue"] for option in options}

    assert current(made["response"]["configOptions"])["model"] == "test-model"
    assert current(configured[-1]["configOptions"]) == {"mode": "ask", "model": "gpt-5-mini", "effort": "medium"}
    assert (model.request(1)["model"], model.request(1)["reasoning_effort"]) == ("gpt-5-mini", "medium")
    assert current(resumed["response"]["configOptions"]) == {"mode": "ask", "model": "gpt-5-mini",
                                                             "effort": "medium"}
