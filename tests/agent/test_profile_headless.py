"""``neocode -p --profile NAME`` as a user runs it: the profile in the user's config.toml
picks the server and the model, over the environment's."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.support.dialects import API_KEY, Dialect
from tests.support.waits import PATIENCE

NEOCODE = str(Path(sys.executable).parent / "neocode")


async def test_a_profile_picks_the_server_and_model_of_a_headless_run(
    openai_only: Dialect, workspace: Path
) -> None:
    config = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'model = "file-model"\nmax_retries = 0\n\n[profiles.local]\nprovider = "openai"\n'
        f'base_url = "{openai_only.server.url}/v1"\nmodel = "qwen-local"\n'
    )
    openai_only.reply("From the profile's server.")
    env = {**os.environ, "OPENAI_API_KEY": API_KEY, "NEOCODE_MODEL": "env-model",
           "NEOCODE_BASE_URL": "http://127.0.0.1:9/v1"}

    process = await asyncio.create_subprocess_exec(
        NEOCODE, "-p", "hello", "--profile", "local", cwd=workspace, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)

    assert process.returncode == 0, err.decode()
    assert out.decode().strip() == "From the profile's server."
    assert openai_only.request(1)["model"] == "qwen-local"
