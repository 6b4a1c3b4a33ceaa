"""Images of saved sessions: each kept once, named by its hash, beside the session files.

A session line names an image by its SHA-256 instead of carrying its base64, so a
screenshot sent in one prompt and resent with every later request costs its bytes once on
disk, and the JSONL stays a file of small lines. Reading trusts no name or file: a name
that is not a hash is never turned into a path, and a file whose bytes do not hash to its
name is not used (the image is then said to be missing, and the prompt goes on without it).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Any

from neocode_tui.agent.images import MAX_BYTES, describe
from neocode_tui.chat import Image, Message
from neocode_tui.paths import data_dir, write_private

_HASH = re.compile(r"[0-9a-f]{64}")


def images_dir() -> Path:
    return data_dir() / "images"


def stored(message: Message) -> dict[str, Any]:
    """``message`` as a session record: each image's bytes written to the image folder
    (once: a file already there is the same bytes) and left out of the record. An image
    that cannot be written stays in the record whole, so nothing is lost."""
    record = message.model_dump(exclude_defaults=True)
    for image, entry in zip(message.images, record.get("images", [])):
        path = images_dir() / image.sha256
        try:
            if not path.exists():
                write_private(path, base64.b64decode(image.data))
        except OSError:
            continue
        entry.pop("data", None)
    return record


def restored(message: Message) -> tuple[Message, list[str]]:
    """``message`` with each image's bytes read back; an image whose file is gone or
    damaged is replaced by a line saying so, and named in the problems."""
    if not message.images or all(image.data for image in message.images):
        return message, []
    kept: list[Image] = []
    lost: list[str] = []
    for image in message.images:
        if image.data:
            kept.append(image)
            continue
        data = _read(image.sha256)
        if data is None:
            lost.append(describe(image))
        else:
            kept.append(image.model_copy(update={"data": data}))
    content = message.content + "".join(f"\n[image {name}: no longer saved]" for name in lost)
    return message.model_copy(update={"images": kept, "content": content}), [
        f"image {name} could not be read back from {images_dir()}" for name in lost
    ]


def _read(sha256: str) -> str | None:
    if not _HASH.fullmatch(sha256):
        return None
    try:
        # Without blocking and without following a link: a pipe named like a hash would
        # hold the reading forever.
        fd = os.open(images_dir() / sha256, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = os.read(fd, MAX_BYTES + 1)
        finally:
            os.close(fd)
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != sha256:
        return None
    return base64.b64encode(data).decode("ascii")
