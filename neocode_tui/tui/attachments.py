"""Images the user attaches in the app: a pasted or dropped path, or the clipboard (Ctrl+V).

Terminals deliver a dropped file as its path, pasted text (quoted, backslash-escaped or as
a ``file://`` URI); a paste that is nothing but paths of image files attaches those files
instead of typing the text. Everything slow runs off the event loop: reading and scaling
in a thread, the clipboard tools (``wl-paste`` on Wayland, ``xclip`` on X11) as
subprocesses awaited with a time limit.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from neocode_tui.agent import PathOutsideWorkspace, Workspace
from neocode_tui.agent.images import MAX_SOURCE_BYTES, ImageError, open_image, prepare, read_pasted
from neocode_tui.chat import Image

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
CLIPBOARD_SECONDS = 5.0
THUMB_COLUMNS = 12
THUMB_ROWS = 3
"""A thumbnail's cells: two pixels to a cell, one above the other (``▀``)."""
Pixel = tuple[int, int, int]


@dataclass(frozen=True)
class Attachment:
    image: Image
    thumbnail: tuple[tuple[tuple[Pixel, Pixel], ...], ...] = ()
    """Rows of cells, each (upper pixel, lower pixel); empty when none was made."""


def pasted_paths(text: str) -> list[Path] | None:
    """The image files a paste names, when it names nothing else; None for ordinary text.
    Only whole paths count (as a dropped file comes): a bare ``shot.png`` pasted into a
    sentence is text (``@shot.png`` attaches it)."""
    text = text.strip()
    if not text or len(text) > 10_000:
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    paths: list[Path] = []
    for word in words:
        if word.startswith("file://"):
            word = unquote(urlparse(word).path)
        path = Path(word).expanduser()
        if not path.is_absolute() or path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            return None
        paths.append(path)
    return paths or None


async def load_paths(paths: list[Path], workspace: Workspace) -> tuple[list[Attachment], list[str]]:
    """The attachments for ``paths``, and what went wrong with the others, in words."""
    return await asyncio.to_thread(_load_paths, paths, workspace)


def _load_paths(paths: list[Path], workspace: Workspace) -> tuple[list[Attachment], list[str]]:
    loaded: list[Attachment] = []
    problems: list[str] = []
    for path in paths:
        try:
            loaded.append(_attachment(read_pasted(path, workspace)))
        except (ImageError, PathOutsideWorkspace) as exc:
            problems.append(f"{path.name} was not attached: {exc}")
        except OSError as exc:
            problems.append(f"{path.name} was not attached: {exc.strerror or exc}")
    return loaded, problems


async def clipboard_image() -> Attachment | str | None:
    """The clipboard's image; None when it holds none (then it is text to paste); a string
    saying why when no clipboard tool is there or it failed."""
    command = _clipboard_command()
    if command is None:
        return "no clipboard tool for images: install wl-clipboard (Wayland) or xclip (X11)"
    types = await _run([*command["types"]])
    if types is None:
        return None
    listed = types.decode("utf-8", "replace").split()
    kind = next((t for t in ("image/png", "image/jpeg", "image/webp", "image/gif") if t in listed), None)
    if kind is None:
        return None
    data = await _run([*command["read"], kind])
    if not data:
        return "the clipboard's image could not be read"
    try:
        return await asyncio.to_thread(lambda: _attachment(prepare(data, "clipboard")))
    except ImageError as exc:
        return str(exc)


def _clipboard_command() -> dict[str, list[str]] | None:
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        return {"types": ["wl-paste", "--list-types"], "read": ["wl-paste", "--no-newline", "--type"]}
    if os.environ.get("DISPLAY") and shutil.which("xclip"):
        return {"types": ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
                "read": ["xclip", "-selection", "clipboard", "-o", "-t"]}
    return None


async def _run(argv: list[str]) -> bytes | None:
    """A clipboard tool's output (at most an image's worth), or None when it failed or
    took longer than ``CLIPBOARD_SECONDS``; it is ended either way."""
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL)
    except OSError:
        return None
    assert process.stdout is not None
    try:
        async with asyncio.timeout(CLIPBOARD_SECONDS):
            data = await process.stdout.read(MAX_SOURCE_BYTES + 1)
            code = await process.wait()
    except TimeoutError:
        data, code = b"", -1
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return data if code == 0 and len(data) <= MAX_SOURCE_BYTES else None


def _attachment(image: Image) -> Attachment:
    """``image`` with its thumbnail (made here, in the thread, so drawing costs nothing)."""
    import base64

    from PIL import Image as PIL

    # Square pixels, two to a cell: the thumbnail keeps the image's shape.
    tall = THUMB_ROWS * 2
    columns = max(1, min(THUMB_COLUMNS, round(tall * image.width / max(image.height, 1))))
    lines = max(1, min(THUMB_ROWS, round(columns * image.height / max(image.width, 1) / 2)))
    with open_image(base64.b64decode(image.data), image.name or "image") as picture:
        small = picture.convert("RGB").resize((columns, lines * 2), PIL.Resampling.BOX)
    pixels = [[small.getpixel((x, y)) for x in range(columns)] for y in range(lines * 2)]
    rows = tuple(
        tuple((_rgb(pixels[2 * row][x]), _rgb(pixels[2 * row + 1][x])) for x in range(columns))
        for row in range(lines)
    )
    return Attachment(image, rows)


def _rgb(value: object) -> Pixel:
    assert isinstance(value, tuple)
    red, green, blue = value[:3]
    return int(red), int(green), int(blue)
