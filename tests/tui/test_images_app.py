"""Images in the app: a pasted or dropped path becomes a chip (name, dimensions, size,
thumbnail) above the input and goes with the next prompt, as an image, to the model."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image as PIL
from textual import events

from neocode_tui.events import MessageDone, TextDelta
from neocode_tui.providers.scripted import ScriptedProvider
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios.driver import PINNED_VERSION
from tests.support.model_server import ModelServer, Response
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, started, wait_until


def screenshot(path: Path, size: tuple[int, int] = (2400, 1350)) -> Path:
    """Sky above, grass below: a thumbnail shows both."""
    picture = PIL.new("RGB", size, (60, 140, 230))
    picture.paste((40, 170, 60), (0, size[1] // 2, size[0], size[1]))
    picture.save(path, "PNG")
    return path


def project(tmp_path: Path) -> Path:
    workspace = tmp_path / "project"
    workspace.mkdir()
    return workspace


async def test_a_pasted_path_is_attached_and_sent_as_an_image(tmp_path: Path, model_server: ModelServer) -> None:
    workspace = project(tmp_path)
    shot = screenshot(tmp_path / "Screenshot from today.png")  # outside the workspace: the user's
    model_server.enqueue(Response(body=openai_turn("A landscape.")))
    settings = Settings(provider="openai", base_url=model_server.url + "/v1", openai_api_key="sk-test",
                        max_retries=0)
    app = NeoCodeApp(settings, None, workspace, remember_theme=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await started(app, pilot)
        app.post_message(events.Paste(f"'{shot}' "))  # as a terminal sends a dropped file
        await screen_shows(app, pilot, "▣ Screenshot from today.png · 1600×900")
        assert app.prompt.text == ""  # the path was not typed
        await pilot.press(*"what is this?", "enter")
        await screen_shows(app, pilot, "A landscape.")
        assert app.image_chips.attachments == []

    [message] = [m for m in model_server.requests[0].json["messages"] if m["role"] == "user"]
    text, image = message["content"]
    assert text == {"type": "text", "text": "what is this?"}
    data = base64.b64decode(image["image_url"]["url"].split(",", 1)[1])
    picture = PIL.open(io.BytesIO(data))
    assert picture.size == (1600, 900) and picture.getpixel((5, 895)) == (40, 170, 60)


async def test_ordinary_text_and_denied_paths_are_not_attached(tmp_path: Path) -> None:
    workspace = project(tmp_path)
    screenshot(tmp_path / "private.png", (40, 40))
    os.symlink(tmp_path / "private.png", workspace / "link.png")
    app = NeoCodeApp(Settings(), None, workspace, remember_theme=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await started(app, pilot)
        app.post_message(events.Paste("see notes.png and more"))
        await wait_until(lambda: app.prompt.text == "see notes.png and more", pause=pilot.pause)
        await pilot.press("ctrl+u")
        app.post_message(events.Paste(str(workspace / "link.png")))
        await screen_shows(app, pilot, "link.png was not attached", "symlink that leads outside")
        assert app.image_chips.attachments == []


def test_the_image_chip_at_80x24(snap_compare, tmp_path: Path) -> None:
    """Sent with a prompt, then another waiting above the input: chips and thumbnails."""
    workspace = project(tmp_path)
    first = screenshot(workspace / "shot.png")
    second = screenshot(workspace / "diagram.png", (300, 600))
    provider = ScriptedProvider([[TextDelta(text="It is a landscape: sky over grass."),
                                  MessageDone(finish_reason="stop")]])
    app = NeoCodeApp(Settings(provider="scripted"), provider, workspace, clock=lambda: 0.0,
                     version=PINNED_VERSION, remember_theme=False, blink=False)

    async def run_before(pilot) -> None:
        await started(app, pilot)
        app.post_message(events.Paste(str(first)))
        await wait_until(lambda: len(app.image_chips.attachments) == 1, pause=pilot.pause)
        await pilot.press(*"what is this?", "enter")
        await screen_shows(app, pilot, "sky over grass")
        await wait_until(lambda: not app.working, pause=pilot.pause)
        app.post_message(events.Paste(f"file://{second}"))
        await screen_shows(app, pilot, "▣ diagram.png · 300×600")
        await app.conversation.settled()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_an_image_mentioned_with_at_shows_as_a_chip_under_the_prompt(
    tmp_path: Path, model_server: ModelServer
) -> None:
    workspace = project(tmp_path)
    screenshot(workspace / "shot.png")
    model_server.enqueue(Response(body=openai_turn("A landscape.")))
    settings = Settings(provider="openai", base_url=model_server.url + "/v1", openai_api_key="sk-test",
                        max_retries=0)
    app = NeoCodeApp(settings, None, workspace, remember_theme=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await started(app, pilot)
        await pilot.press(*"what is @shot.png", "escape", "enter")  # Esc: the picker closed, as typed
        shown = await screen_shows(app, pilot, "› what is @shot.png", "▣ shot.png · 1600×900", "A landscape.")
        assert shown.index("▣ shot.png") < shown.index("A landscape."), "with the prompt, not after the answer"
    [message] = [m for m in model_server.requests[0].json["messages"] if m["role"] == "user"]
    assert [part["type"] for part in message["content"]] == ["text", "image_url"]


def mentioned_app(workspace: Path) -> NeoCodeApp:
    screenshot(workspace / "shot.png")
    provider = ScriptedProvider([[TextDelta(text="It is a landscape: sky over grass."),
                                  MessageDone(finish_reason="stop")]])
    return NeoCodeApp(Settings(provider="scripted"), provider, workspace, clock=lambda: 0.0,
                      version=PINNED_VERSION, remember_theme=False, blink=False)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_chip_of_an_image_mentioned_with_at(size: tuple[int, int], snap_compare, tmp_path: Path) -> None:
    app = mentioned_app(project(tmp_path))

    async def run_before(pilot) -> None:
        await started(app, pilot)
        await pilot.press(*"what is @shot.png", "escape", "enter")
        await screen_shows(app, pilot, "▣ shot.png", "sky over grass")
        await wait_until(lambda: not app.working, pause=pilot.pause)
        await app.conversation.settled()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


WL_PASTE = """#!{python}
import sys
if sys.argv[1:] == ["--list-types"]:
    print("text/plain\\nimage/png")
elif sys.argv[1:] == ["--no-newline", "--type", "image/png"]:
    sys.stdout.buffer.write(open({image!r}, "rb").read())
else:
    sys.exit(1)
"""


async def test_ctrl_v_attaches_the_clipboard_s_image(
    tmp_path: Path, monkeypatch, model_server: ModelServer
) -> None:
    """Through the clipboard tool the desktop has (here a stand-in ``wl-paste`` that holds
    a screenshot), run as a subprocess while the app goes on."""
    import sys

    tools = tmp_path / "bin"
    tools.mkdir()
    copied = screenshot(tmp_path / "copied.png", (800, 450))
    (tools / "wl-paste").write_text(WL_PASTE.format(python=sys.executable, image=str(copied)))
    (tools / "wl-paste").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
    model_server.enqueue(Response(body=openai_turn("Sky and grass.")))
    settings = Settings(provider="openai", base_url=model_server.url + "/v1", openai_api_key="sk-test",
                        max_retries=0)
    app = NeoCodeApp(settings, None, project(tmp_path), remember_theme=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await started(app, pilot)
        await pilot.press("ctrl+v")
        await screen_shows(app, pilot, "▣ clipboard · 800×450")
        await pilot.press("enter")
        await screen_shows(app, pilot, "Sky and grass.")

    [message] = [m for m in model_server.requests[0].json["messages"] if m["role"] == "user"]
    [image] = message["content"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")


async def test_without_a_clipboard_image_ctrl_v_pastes_text_and_backspace_drops_a_chip(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    workspace = project(tmp_path)
    screenshot(workspace / "shot.png", (64, 32))
    app = NeoCodeApp(Settings(), None, workspace, remember_theme=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await started(app, pilot)
        app.copy_to_clipboard("copied words")
        await pilot.press("ctrl+v")
        await screen_shows(app, pilot, "no clipboard tool for images: install wl-clipboard")
        await wait_until(lambda: app.prompt.text == "copied words", pause=pilot.pause)
        await pilot.press("ctrl+u")
        app.post_message(events.Paste("shot.png"))  # a bare name in a sentence is text
        await wait_until(lambda: app.prompt.text == "shot.png", pause=pilot.pause)
        await pilot.press("ctrl+u")
        monkeypatch.setenv("HOME", str(tmp_path))
        app.post_message(events.Paste("~/project/shot.png"))
        await screen_shows(app, pilot, "▣ shot.png · 64×32")
        await pilot.press("backspace")
        await screen_shows(app, pilot, "no clipboard tool", gone=["▣ shot.png"])
        assert app.image_chips.attachments == []


async def test_a_resumed_session_shows_its_images_as_chips(tmp_path: Path) -> None:
    from neocode_tui.agent.session.agent_session import AgentSession

    workspace = project(tmp_path)
    screenshot(workspace / "shot.png", (320, 180))
    provider = ScriptedProvider([[TextDelta(text="Seen it."), MessageDone(finish_reason="stop")]])
    session = AgentSession(Settings(provider="scripted"), workspace, provider=provider)
    await session.prompt("look at @shot.png")
    await session.aclose()

    app = NeoCodeApp(Settings(provider="scripted"), None, workspace, remember_theme=False, resume="")
    async with app.run_test(size=(100, 32)) as pilot:
        await started(app, pilot)
        text = await screen_shows(app, pilot, "look at @shot.png", "▣ shot.png · 320×180", "Seen it.")
    assert "base64" not in text and "iVBOR" not in text
