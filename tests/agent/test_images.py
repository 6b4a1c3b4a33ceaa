"""Images reach the model as images: from ``@shot.png``, from ``read_file``, scaled to size,
stored once per session, refused clearly by a model that takes none. Over real HTTP on
127.0.0.1; what the model got is decoded back with Pillow."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PIL

from neocode_tui.agent.images.decode import MAX_BYTES, MAX_SIDE, ImageError, prepare
from neocode_tui.agent.loop_events import Notice, RunFinished
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.store.images import images_dir
from neocode_tui.agent.store.session_store import sessions_dir
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.images import sent_images
from tests.support.model_server import Response
from tests.support.recorder import Recorder


def png(path: Path, size: tuple[int, int], colour: tuple[int, int, int] = (200, 30, 40)) -> bytes:
    picture = PIL.new("RGB", size, colour)
    picture.paste((10, 220, 90), (0, 0, size[0] // 2, size[1] // 2))
    out = io.BytesIO()
    picture.save(out, "PNG")
    path.write_bytes(out.getvalue())
    return out.getvalue()


def noise(size: int) -> bytes:
    """A PNG that does not compress: its bytes are far over the cap at its size."""
    rng = random.Random(7)
    picture = PIL.frombytes("RGB", (size, size), rng.randbytes(size * size * 3))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def session_for(dialect: Dialect, workspace: Path, recorder: Recorder | None = None,
                **settings: Any) -> AgentSession:
    return AgentSession(Settings(provider=dialect.name, **settings), workspace, FrontEnd(listener=recorder),
                        provider=dialect.provider())


async def test_a_mentioned_image_is_sent_scaled_to_its_long_side(dialect: Dialect, workspace: Path) -> None:
    png(workspace / "shot.png", (3200, 1800))
    dialect.reply("A red picture with a green corner.")
    session = session_for(dialect, workspace)
    await session.prompt("what is in @shot.png?")

    [(media_type, picture, message)] = sent_images(dialect, 1)
    assert message["role"] == "user"
    assert media_type == "image/png" and picture.size == (MAX_SIDE, 900)
    assert picture.getpixel((10, 10)) == (10, 220, 90)
    assert picture.getpixel((MAX_SIDE - 10, 890)) == (200, 30, 40)
    text = json.dumps(message["content"], ensure_ascii=False)
    assert "what is in @shot.png?" in text and "shot.png · 1600×900" in text
    await session.aclose()


async def test_read_file_on_an_image_sends_the_image(dialect: Dialect, workspace: Path) -> None:
    png(workspace / "chart.png", (400, 300))
    dialect.reply(calls=[("call_1", "read_file", '{"path": "chart.png"}')])
    dialect.reply("It is a chart.")
    session = session_for(dialect, workspace)
    await session.prompt("look at chart.png")

    result = json.dumps(dialect.tool_results(2)["call_1"], ensure_ascii=False)
    assert "chart.png is an image (chart.png · 400×300" in result
    [(media_type, picture, message)] = sent_images(dialect, 2)
    assert media_type == "image/png" and picture.size == (400, 300)
    if dialect.name == "openai":
        # A tool message carries text only: the image follows as user content.
        assert message["role"] == "user"
        roles = [m["role"] for m in dialect.request(2)["messages"]]
        assert roles[-2:] == ["tool", "user"]
    else:
        assert message["content"][0]["type"] == "tool_result"
    await session.aclose()


async def test_a_huge_image_is_cut_to_the_byte_cap(openai_only: Dialect, workspace: Path) -> None:
    raw = noise(1500)
    assert len(raw) > MAX_BYTES
    (workspace / "noise.png").write_bytes(raw)
    openai_only.reply("Noise.")
    session = session_for(openai_only, workspace)
    await session.prompt("@noise.png")

    [(_, picture, message)] = sent_images(openai_only, 1)
    data = message["content"][-1]["image_url"]["url"].split(",", 1)[1]
    assert len(base64.b64decode(data)) <= MAX_BYTES
    assert max(picture.size) <= 1500
    picture.load()  # decodes whole: a real image
    await session.aclose()


async def test_the_session_stores_each_image_once_and_resume_sends_it_again(
    openai_only: Dialect, workspace: Path
) -> None:
    raw = png(workspace / "shot.png", (640, 480))
    for answer in ("First.", "Second.", "After resuming."):
        openai_only.reply(answer)
    session = session_for(openai_only, workspace)
    await session.prompt("@shot.png")
    await session.prompt("again: @shot.png")
    session_id = session.id
    await session.aclose()

    [stored] = list(images_dir().iterdir())
    assert stored.read_bytes() == raw and stored.stat().st_mode & 0o777 == 0o600
    assert images_dir().stat().st_mode & 0o777 == 0o700
    session_file = sessions_dir() / f"{session_id}.jsonl"
    text = session_file.read_text()
    assert base64.b64encode(raw).decode()[:200] not in text
    assert text.count(stored.name) == 2

    resumed = session_for(openai_only, workspace)
    resumed.resume(session_id)
    await resumed.prompt("what did I show you?")
    pictures = sent_images(openai_only, 3)
    assert [picture.size for _, picture, _ in pictures] == [(640, 480), (640, 480)]
    await resumed.aclose()


async def test_a_stored_image_that_is_gone_or_altered_is_said_missing(
    openai_only: Dialect, workspace: Path
) -> None:
    png(workspace / "shot.png", (64, 64))
    openai_only.reply("Seen.")
    openai_only.reply("Gone.")
    session = session_for(openai_only, workspace)
    await session.prompt("@shot.png")
    session_id = session.id
    await session.aclose()
    [stored] = list(images_dir().iterdir())
    stored.write_bytes(b"not the same bytes")

    recorder = Recorder()
    resumed = session_for(openai_only, workspace, recorder)
    resumed.resume(session_id)
    assert any("could not be read back" in notice.message for notice in recorder.of(Notice))
    await resumed.prompt("and now?")
    assert sent_images(openai_only, 2) == []
    assert "[image shot.png · 64×64" in json.dumps(openai_only.request(2)["messages"], ensure_ascii=False)
    await resumed.aclose()


async def test_a_model_without_images_gets_a_line_and_the_user_a_notice(
    dialect: Dialect, workspace: Path
) -> None:
    png(workspace / "shot.png", (100, 50))
    dialect.reply("I cannot see it.")
    recorder = Recorder()
    session = session_for(dialect, workspace, recorder, images=False)
    await session.prompt("@shot.png")

    assert sent_images(dialect, 1) == []
    sent = json.dumps(dialect.request(1)["messages"], ensure_ascii=False)
    assert "image shot.png · 100×50" in sent and "not sent: this model takes no images" in sent
    assert any("1 image(s) not sent" in notice.message for notice in recorder.of(Notice))
    await session.aclose()


async def test_a_server_that_refuses_images_says_how_to_turn_them_off(
    openai_only: Dialect, workspace: Path
) -> None:
    png(workspace / "shot.png", (100, 50))
    openai_only.server.enqueue(Response(
        status=400, headers={"content-type": "application/json"},
        body=b'{"error": {"message": "image input is not supported by this model"}}'))
    session = session_for(openai_only, workspace)
    finished = await session.prompt("@shot.png")

    assert isinstance(finished, RunFinished) and finished.error is not None
    assert "image input is not supported" in finished.error.message
    assert "set images = false in its profile" in finished.error.message
    await session.aclose()


async def test_an_image_outside_the_workspace_stays_out(dialect: Dialect, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    png(tmp_path / "private.png", (20, 20))
    os.symlink(tmp_path / "private.png", root / "link.png")
    dialect.reply(calls=[("call_1", "read_file", '{"path": "link.png"}')])
    dialect.reply("Could not.")
    recorder = Recorder()
    session = session_for(dialect, root, recorder)
    await session.prompt("@link.png @../private.png")

    assert sent_images(dialect, 1) == [] and sent_images(dialect, 2) == []
    problems = [notice.message for notice in recorder.of(Notice)]
    assert any("@link.png was not attached" in problem for problem in problems)
    assert any("@../private.png was not attached" in problem for problem in problems)
    assert "symlink" in json.dumps(dialect.tool_results(2)["call_1"], ensure_ascii=False)
    await session.aclose()


def test_bad_images_get_a_clear_message() -> None:
    with pytest.raises(ImageError, match="notes.txt is not an image that can be read"):
        prepare(b"plain words", "notes.txt")
    with pytest.raises(ImageError, match="fake.png is a damaged image"):
        prepare(b"\x89PNG\r\n\x1a\nnot really", "fake.png")
    bomb = io.BytesIO()
    PIL.new("1", (20_000, 20_000)).save(bomb, "PNG")  # a few KB that claim 400 M pixels
    with pytest.raises(ImageError, match="bomb.png claims more pixels than the"):
        prepare(bomb.getvalue(), "bomb.png")


def test_an_image_counts_towards_the_context() -> None:
    from neocode_tui.agent.context.figure import message_tokens
    from neocode_tui.chat import Message

    image = prepare(noise(300), "noise.png")
    plain = Message(role="user", content="look")
    assert message_tokens(plain.model_copy(update={"images": [image]})) == message_tokens(plain) + 120


async def test_an_image_that_cannot_be_stored_apart_stays_in_its_line(
    openai_only: Dialect, workspace: Path
) -> None:
    png(workspace / "shot.png", (32, 32))
    images_dir().parent.mkdir(parents=True)
    images_dir().write_text("a file where the folder would be")
    openai_only.reply("Seen.")
    openai_only.reply("Still seen.")
    session = session_for(openai_only, workspace)
    await session.prompt("@shot.png")
    session_id = session.id
    await session.aclose()

    resumed = session_for(openai_only, workspace)
    resumed.resume(session_id)
    await resumed.prompt("again?")
    assert [picture.size for _, picture, _ in sent_images(openai_only, 2)] == [(32, 32)]
    await resumed.aclose()


def test_metadata_is_dropped_and_a_photo_stays_upright() -> None:
    picture = PIL.new("RGB", (200, 100), (250, 250, 250))
    picture.paste((0, 0, 0), (0, 0, 100, 100))  # dark left half, as stored
    exif = PIL.Exif()
    exif[0x0112] = 6  # orientation: shown turned 90° clockwise
    exif[0x8825] = {2: (52.0, 31.0, 12.0)}  # a GPS latitude
    out = io.BytesIO()
    picture.save(out, "JPEG", exif=exif, quality=95)

    image = prepare(out.getvalue(), "photo.jpg")
    sent = PIL.open(io.BytesIO(base64.b64decode(image.data)))
    assert image.media_type == "image/jpeg" and sent.size == (100, 200) == (image.width, image.height)
    assert not sent.getexif() and "exif" not in sent.info
    assert sum(sent.getpixel((50, 20))) < 100  # the dark half is now on top


EPS = b"""%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 10 10
%%EndComments
newpath 0 0 moveto 10 10 lineto stroke
showpage
%%EOF
"""
DOS_EPS = b"\xc5\xd0\xd3\xc6" + (30).to_bytes(4, "little") + len(EPS).to_bytes(4, "little") + bytes(18) + EPS


@pytest.fixture
def ghostscript_watch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``gs`` first on the PATH that leaves a mark when anything starts it; Pillow looks
    for it afresh (it remembers what it found)."""
    from PIL import EpsImagePlugin

    bin_dir, mark = tmp_path / "bin", tmp_path / "gs-ran"
    bin_dir.mkdir()
    (bin_dir / "gs").write_text(f"#!/bin/sh\necho \"$@\" >> {mark}\nexit 1\n")
    (bin_dir / "gs").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(EpsImagePlugin, "gs_binary", None)
    return mark


async def test_postscript_from_any_source_is_refused_before_a_decoder_and_starts_no_program(
    ghostscript_watch: Path, workspace: Path, tmp_path: Path
) -> None:
    from acp.schema import ImageContentBlock
    from mcp import types as mcp_types

    from neocode_tui.agent.mcp.result import result_output
    from neocode_tui.agent.workspace import Workspace
    from neocode_tui.cli.acp.images import BadImage, prompt_images
    from neocode_tui.tui.attachments import load_paths

    refused = "is not an image that can be read (only PNG, JPEG, GIF and WebP are)"
    for data in (EPS, DOS_EPS):
        encoded = base64.b64encode(data).decode("ascii")
        result = mcp_types.CallToolResult(content=[mcp_types.ImageContent(
            type="image", data=encoded, mimeType="image/png")])
        text, images = await asyncio.to_thread(result_output, result, "shots")
        assert images == [] and f"not sent: shots image 1 {refused}" in text
        with pytest.raises(BadImage, match=re.escape(f"shot.png {refused}")):
            await prompt_images([ImageContentBlock(type="image", data=encoded, mime_type="image/png",
                                                   uri="file:///tmp/shot.png")])
        (tmp_path / "dropped.png").write_bytes(data)
        attached, problems = await load_paths([tmp_path / "dropped.png"], Workspace(workspace))
        assert attached == [] and problems == [f"dropped.png was not attached: dropped.png {refused}"]
    assert not ghostscript_watch.exists(), "Ghostscript was started"


def test_png_jpeg_gif_and_webp_are_still_sent() -> None:
    for kind in ("PNG", "JPEG", "GIF", "WEBP"):
        out = io.BytesIO()
        PIL.new("RGB", (40, 30), (200, 30, 40)).save(out, kind)
        image = prepare(out.getvalue(), f"shot.{kind.lower()}")
        sent = PIL.open(io.BytesIO(base64.b64decode(image.data)))
        assert image.media_type == f"image/{sent.format.lower()}" and sent.size == (40, 30)
        red, green, blue = sent.convert("RGB").getpixel((20, 15))
        assert red > 150 and green < 80 and blue < 80, kind
