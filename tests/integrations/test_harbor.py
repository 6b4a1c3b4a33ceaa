"""The Harbor adapter's commands run as Harbor runs an installed agent's: in the task's
folder, with the environment it builds, on a small task whose verifier then passes; the
counts Harbor's context gets and the ATIF trajectory come from what the run left."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from atif import Trajectory

from tests.support.dialects import API_KEY, Dialect
from tests.support.harbor_task import adapter_commands, hello_task
from tests.support.headless import NEOCODE
from tests.support.waits import PATIENCE


async def test_the_adapter_runs_a_task_to_a_passing_verifier_and_leaves_counts_and_a_trajectory(
    openai_only: Dialect, tmp_path: Path
) -> None:
    commands = adapter_commands()
    task = hello_task(tmp_path / "task")
    logs = tmp_path / "logs" / "agent"
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "hello.txt", "content": "hello\n"}))])
    openai_only.reply("Created hello.txt.")
    instruction = (task / "instruction.md").read_text()
    command = commands.run_command(instruction, logs=str(logs), neocode=NEOCODE)
    harbor_env = {"OPENAI_API_KEY": API_KEY, "NEOCODE_BASE_URL": openai_only.server.url + "/v1",
                  "AWS_SECRET_ACCESS_KEY": "not-for-the-agent"}
    env = commands.run_env("openai/gpt-4o", harbor_env)
    container = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"),
                 "NEOCODE_DATA_DIR": str(tmp_path / "data"), "NEOCODE_CONFIG_DIR": str(tmp_path / "config"),
                 "NEOCODE_MAX_RETRIES": "0"}

    process = await asyncio.create_subprocess_exec("bash", "-c", command, cwd=task / "app", env={**container, **env},
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    verified = await asyncio.create_subprocess_exec(str(task / "tests" / "test.sh"), str(task / "app"),
                                                    stdout=asyncio.subprocess.PIPE)
    reward, _ = await asyncio.wait_for(verified.communicate(), PATIENCE)

    assert process.returncode == 0, err.decode()
    assert reward.decode().strip() == "1"
    assert API_KEY not in command and "AWS_SECRET_ACCESS_KEY" not in env
    assert (env["NEOCODE_PROVIDER"], env["NEOCODE_MODEL"]) == ("openai", "gpt-4o")
    assert openai_only.request(1)["model"] == "gpt-4o"
    numbers = commands.context_numbers(logs)
    assert (numbers["n_input_tokens"], numbers["n_output_tokens"]) == (20, 10) and numbers["cost_usd"] > 0
    trajectory = Trajectory.model_validate_json((logs / commands.TRAJECTORY).read_text())
    assert trajectory.steps[0].message == instruction
    assert trajectory.steps[1].tool_calls[0].function_name == "write_file"
    assert trajectory.final_metrics.total_prompt_tokens == 20
    assert commands.context_numbers(tmp_path) == {}  # a run that left nothing fills nothing


def test_the_install_command_pins_the_version_harbor_asks_for() -> None:
    commands = adapter_commands()
    assert "uv tool install --python 3.12 neocode-tui==0.9.1 && neocode --version" in commands.install_command("0.9.1")
    assert "neocode-tui && neocode --version" in commands.install_command()
