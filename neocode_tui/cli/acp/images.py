"""The images of an editor's prompt (ACP ``image`` content blocks), ready for the model.

An editor's image is the user's (they pasted or dropped it), so it is taken wherever it
came from, but only as an image that decodes: scaled and re-encoded like every other one
(``agent.images``), decoded in a thread so other sessions' updates keep flowing.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from typing import Any

from acp.schema import ImageContentBlock

from neocode_tui.agent.images import ImageError, prepare
from neocode_tui.chat import Image

MAX_PROMPT_IMAGES = 20
"""Images one prompt may carry: each is decoded, and each goes with every later request."""


class BadImage(ValueError):
    """An image block that cannot be sent; the message says which and why."""


def has_images(blocks: list[Any]) -> bool:
    return any(isinstance(block, ImageContentBlock) for block in blocks)


async def prompt_images(blocks: list[Any]) -> list[Image]:
    return await asyncio.to_thread(_prepared, blocks)


def _prepared(blocks: list[Any]) -> list[Image]:
    count = sum(isinstance(block, ImageContentBlock) for block in blocks)
    if count > MAX_PROMPT_IMAGES:
        raise BadImage(f"the prompt has {count} images; at most {MAX_PROMPT_IMAGES} go in one prompt")
    images: list[Image] = []
    for block in blocks:
        if not isinstance(block, ImageContentBlock):
            continue
        name = (block.uri or "").rsplit("/", 1)[-1] or f"image {len(images) + 1}"
        try:
            images.append(prepare(base64.b64decode(block.data, validate=True), name))
        except binascii.Error:
            raise BadImage(f"{name} is not base64 data") from None
        except ImageError as exc:
            raise BadImage(str(exc)) from None
    return images
