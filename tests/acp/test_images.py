"""An editor's image prompt (ACP ``image`` blocks) reaches the model as an image."""

from __future__ import annotations

import asyncio
import base64
import io
from pathlib import Path

import pytest
from acp import RequestError, image_block, text_block
from PIL import Image as PIL

from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.images import sent_images
from tests.support.waits import PATIENCE


def encoded_png(size: tuple[int, int]) -> str:
    picture = PIL.new("RGB", size, (0, 120, 255))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


async def test_an_image_prompt_is_sent_to_the_model_scaled(model: Dialect, workspace: Path, home: Path) -> None:
    model.reply("A blue screenshot.")
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        init = next(m["result"] for m in ed.traffic if m.get("id") == 0 and "result" in m)
        assert init["agentCapabilities"]["promptCapabilities"]["image"] is True
        session = await ed.conn.new_session(cwd=str(workspace))
        prompt = [text_block("what is this?"),
                  image_block(encoded_png((2000, 1000)), "image/png", uri="file:///tmp/shot.png")]
        reply = await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=prompt), PATIENCE)
        many = [image_block(encoded_png((8, 8)), "image/png") for _ in range(21)]
        with pytest.raises(RequestError, match="the prompt has 21 images; at most 20"):
            await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=many), PATIENCE)

    assert reply.stop_reason == "end_turn"
    [(media_type, picture, message)] = sent_images(model, 1)
    assert media_type == "image/png" and picture.size == (1600, 800)
    assert message["content"][0] == {"type": "text", "text": "what is this?"}
