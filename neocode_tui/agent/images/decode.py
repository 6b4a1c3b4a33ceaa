"""Images for the model: recognised by their first bytes, decoded and scaled with Pillow.

Only PNG, JPEG, GIF and WebP are opened, each by the plugin its magic number names
(``open_image``, the one way any part of NeoCode opens an image).

Every image, whatever brought it (a mention, a paste, ``read_file``, an MCP tool, an
editor), goes through ``prepare``: decoded (so what is sent is an image, not bytes that
claim to be one), bounded in pixels before decoding (a decompression bomb is refused),
scaled so its long side is at most ``MAX_SIDE`` and re-encoded until it fits ``MAX_BYTES``.
An image that carries metadata (EXIF with a phone's GPS position, XMP, text chunks) is
re-encoded without it even when it fits: what is sent is the picture, not where it was taken.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.chat import Image, Message

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

    from neocode_tui.agent.tools.base import Deadline
    from neocode_tui.agent.workspace import Workspace

MAX_SIDE = 1600
"""Pixels of an image's long side as sent: more costs tokens and tells the model little."""
MAX_BYTES = 3_500_000
"""Bytes of an image as sent: its base64 stays under the 5 MB the hosted APIs take."""
MAX_SOURCE_BYTES = 40_000_000
"""Bytes of an image file read at all."""
MAX_PIXELS = 60_000_000
"""Pixels of an image decoded at all (a small file can claim a huge canvas)."""
SENT = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
"""The formats opened at all (every API takes them as they are), by Pillow's names."""
_MAGIC = {b"\x89PNG\r\n\x1a\n": "PNG", b"\xff\xd8\xff": "JPEG", b"GIF87a": "GIF", b"GIF89a": "GIF"}
TEXT_ONLY = "this model takes no images (images = false in its settings)"
_PLAIN_INFO = frozenset({
    "dpi", "gamma", "transparency", "aspect", "jfif", "jfif_version", "jfif_unit", "jfif_density",
    "progressive", "progression", "interlace", "duration", "loop", "background", "version",
    "srgb", "adobe", "adobe_transform", "icc_profile", "chromaticity",
})
"""What Pillow reads from an image that says how to show it, not anything about it."""


class ImageError(ValueError):
    """Bytes that cannot be sent as an image; the message says why, for the user or model."""


def format_of(head: bytes) -> str | None:
    """The format of ``SENT`` whose magic number ``head`` starts with; None for any other."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WEBP"
    return next((kind for magic, kind in _MAGIC.items() if head.startswith(magic)), None)


def looks_like_image(head: bytes) -> bool:
    """Whether a file's first bytes are those of an image format that is opened."""
    return format_of(head) is not None


def open_image(raw: bytes, name: str) -> Picture:
    """``raw`` opened by Pillow only as the format its own bytes say, one of ``SENT``.
    Pillow would try all its plugins, and some hand the bytes to a program outside any
    sandbox (EPS and PostScript to Ghostscript), so no other plugin ever sees them."""
    from PIL import Image as PIL

    kind = format_of(raw[:16])
    if kind is None:
        raise ImageError(f"{name} is not an image that can be read (only PNG, JPEG, GIF and WebP are)")
    return PIL.open(io.BytesIO(raw), formats=[kind])


def prepare(raw: bytes, name: str) -> Image:
    """``raw`` as an image to send, scaled and re-encoded where it is too large."""
    from PIL import Image as PIL
    from PIL import UnidentifiedImageError

    if len(raw) > MAX_SOURCE_BYTES:
        raise ImageError(f"{name} is {len(raw)} bytes, more than the {MAX_SOURCE_BYTES} an image may have")
    try:
        with open_image(raw, name) as picture:
            width, height = picture.size
            if width * height > MAX_PIXELS:
                raise ImageError(f"{name} is {width}×{height} pixels, more than the {MAX_PIXELS} decoded")
            picture.load()
            media_type = SENT.get(picture.format or "")
            plain = not set(picture.info) - _PLAIN_INFO
            if media_type and plain and max(width, height) <= MAX_SIDE and len(raw) <= MAX_BYTES:
                return _image(raw, media_type, name, width, height)
            return _shrunk(picture, name)
    except UnidentifiedImageError:
        raise ImageError(f"{name} is not an image that can be read") from None
    except PIL.DecompressionBombError:
        raise ImageError(f"{name} claims more pixels than the {MAX_PIXELS} decoded") from None
    except (OSError, SyntaxError, ValueError) as exc:
        if isinstance(exc, ImageError):
            raise
        raise ImageError(f"{name} is a damaged image ({exc})") from None


def _shrunk(picture: Picture, name: str) -> Image:
    """Scaled to ``MAX_SIDE``, upright (EXIF's orientation applied, as it is then dropped),
    as PNG where that fits ``MAX_BYTES`` and as JPEG (smaller each try) where it does not;
    a photo (a JPEG) tries JPEG first. An animation keeps its first frame."""
    from PIL import Image as PIL
    from PIL import ImageOps

    side = MAX_SIDE
    photo = picture.format == "JPEG"
    upright = ImageOps.exif_transpose(picture)
    frame = upright.convert("RGBA" if _has_alpha(picture) else "RGB")
    while True:
        scaled = frame.copy()
        scaled.thumbnail((side, side), PIL.Resampling.LANCZOS)
        for media_type, data in _encodings(scaled, photo):
            if len(data) <= MAX_BYTES:
                return _image(data, media_type, name, *scaled.size)
        side = side * 3 // 4


def _encodings(picture: Picture, photo: bool) -> Iterable[tuple[str, bytes]]:
    if not photo:
        yield "image/png", _encoded(picture, "PNG", optimize=True)
    opaque = picture.convert("RGB") if picture.mode != "RGB" else picture
    for quality in (85, 70):
        yield "image/jpeg", _encoded(opaque, "JPEG", quality=quality)


def _encoded(picture: Picture, kind: str, **options: object) -> bytes:
    out = io.BytesIO()
    picture.save(out, kind, **options)
    return out.getvalue()


def _has_alpha(picture: Picture) -> bool:
    return picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info


def _image(data: bytes, media_type: str, name: str, width: int, height: int) -> Image:
    return Image(
        media_type=media_type, data=base64.b64encode(data).decode("ascii"),
        sha256=hashlib.sha256(data).hexdigest(), name=name, width=width, height=height,
        size=len(data),
    )


def read_image(workspace: Workspace, path: Path, shown: str, deadline: Deadline | None = None) -> Image | None:
    """The workspace file at ``path`` as an image, opened the way ``read_file`` opens files
    (confined, no symlink swapped in, regular files only); None when it is not one."""
    fd, status = workspace.open_file(path)
    try:
        if not looks_like_image(os.pread(fd, 16, 0)):
            return None
        if status.st_size > MAX_SOURCE_BYTES:
            raise ImageError(f"{shown} is {status.st_size} bytes, more than the {MAX_SOURCE_BYTES} "
                             "an image may have")
        chunks: list[bytes] = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            if deadline is not None:
                deadline.check()
    finally:
        os.close(fd)
    return prepare(b"".join(chunks), shown)


def describe(image: Image) -> str:
    """One line for a person or the model: name, dimensions and size."""
    return f"{image.name or 'image'} · {image.width}×{image.height} · {human_size(image.size)}"


def human_size(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.0f} KB"
    return f"{size / 1_000_000:.1f} MB"


def without_images(messages: list[Message]) -> list[Message]:
    """The transcript for a model that takes no images: each image becomes a line saying it
    was there and was not sent, so the model knows what it cannot see."""
    if not any(message.images for message in messages):
        return messages
    return [
        message.model_copy(update={"images": [], "content": message.content + "".join(
            f"\n[image {describe(image)} not sent: {TEXT_ONLY}]" for image in message.images)})
        if message.images else message
        for message in messages
    ]


def read_pasted(path: Path, workspace: Workspace) -> Image:
    """An image file the user pasted or dropped. Inside the workspace it is read exactly as
    ``read_file`` reads (a link out of it stays refused); elsewhere it is the user's own
    choice, read without following a link and only if it is a regular file."""
    if Path(os.path.abspath(workspace.root / path)).is_relative_to(workspace.root):
        # Named inside the workspace: its rules, whatever a link in it says.
        inside = workspace.resolve(str(path))
        image = read_image(workspace, inside, workspace.relative(inside))
        if image is None:
            raise ImageError(f"{workspace.relative(inside)} is not an image")
        return image
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_SOURCE_BYTES:
            raise ImageError(f"{path.name} is not an image file of at most {MAX_SOURCE_BYTES} bytes")
        data = os.read(fd, MAX_SOURCE_BYTES + 1)
    finally:
        os.close(fd)
    return prepare(data, path.name)
