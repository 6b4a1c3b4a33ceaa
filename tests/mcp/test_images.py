"""An MCP tool's image reaches the model as an image, in each dialect's way."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.loop_events import ToolFinished
from tests.support.dialects import Dialect
from tests.support.images import sent_images
from tests.support.mcp_config import user_config
from tests.support.mcp_sessions import open_session


async def test_a_tool_s_image_is_sent_to_the_model(dialect: Dialect, workspace: Path, http_server: str) -> None:
    user_config({"remote": {"type": "http", "url": http_server}})
    dialect.reply("", [("p1", "mcp__remote__photo", "{}")])
    dialect.reply("Yellow and blue.")
    session, recorder = await open_session(dialect, workspace)

    finished = await session.prompt("what does the photo show?")

    assert finished.reason == "done"
    [done] = recorder.of(ToolFinished)
    assert [image.width for image in done.images] == [1600]
    [(media_type, picture, message)] = sent_images(dialect, 2)
    assert media_type == "image/png" and picture.size == (1600, 800)
    assert picture.getpixel((1590, 790)) == (20, 40, 220)
    assert message["role"] == "user"
    assert "attached]" in str(dialect.tool_results(2)["p1"])
    await session.aclose()
