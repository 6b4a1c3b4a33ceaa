"""An MCP tool result as the text the model is sent.

Text is kept; structured content is sent as JSON only when there is no text (servers
send its JSON as text too, or a text rendering the model reads better); an image is
decoded and scaled like every other image (``agent.images``) and goes with the result as
an image, a line in the text saying where; audio, binary resources and an image that does
not decode are described by type and size, never passed on as base64 (the model cannot
read base64 in a text result, and the tokens would be wasted). The text is capped like
every other tool's output, with a note of how much was left out.
"""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types

from neocode_tui.agent.images import ImageError, describe, prepare
from neocode_tui.agent.mcp.text import RESULT_CAP, capped, size_text
from neocode_tui.chat import Image

MAX_IMAGES = 8
"""Images of one result sent; the rest are described."""


def result_output(
    result: mcp_types.CallToolResult, tool: str, cap: int = RESULT_CAP
) -> tuple[str, list[Image]]:
    """The text the model is sent and the images that go with it. Decoding takes a while:
    call it in a thread."""
    images: list[Image] = []
    parts = [_image(block, tool, images) if isinstance(block, mcp_types.ImageContent) else _describe(block)
             for block in result.content]
    has_text = any(isinstance(block, mcp_types.TextContent) for block in result.content)
    if result.structured_content is not None and not has_text:
        parts.append(json.dumps(result.structured_content, indent=2, ensure_ascii=False))
    return capped("\n".join(part for part in parts if part) or "(no output)", cap), images


def _image(block: mcp_types.ImageContent, tool: str, images: list[Image]) -> str:
    """The block added to ``images`` where it decodes; its line in the text either way."""
    if len(images) >= MAX_IMAGES:
        return f"{_describe(block)[:-1]}, not sent: more than {MAX_IMAGES} images in one result]"
    try:
        image = prepare(base64.b64decode(block.data, validate=True), f"{tool} image {len(images) + 1}")
    except (binascii.Error, ValueError) as exc:
        reason = str(exc) if isinstance(exc, ImageError) else "its data is not base64"
        return f"{_describe(block)[:-1]}, not sent: {reason}]"
    images.append(image)
    return f"[image: {describe(image)}, attached]"


def _describe(block: mcp_types.ContentBlock) -> str:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        return f"[{block.type}: {block.mime_type}, {size_text(block.data)}]"
    if isinstance(block, mcp_types.ResourceLink):
        return f"[resource link: {block.uri}" + (f" ({block.mime_type})" if block.mime_type else "") + "]"
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        kind = resource.mime_type or "binary"
        return f"[resource {resource.uri}: {kind}, {size_text(resource.blob)}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"
