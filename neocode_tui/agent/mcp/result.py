"""An MCP tool result as the text the model is sent.

Text is kept; structured content is sent as JSON only when there is no text (servers
send its JSON as text too, or a text rendering the model reads better); images,
audio and binary resources are described by type and size, never passed on as base64 (the
model cannot see them through a text result, and the tokens would be wasted). The whole
is capped like every other tool's output, with a note of how much was left out.
"""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types

RESULT_CAP = 30_000
"""Characters of a result sent to the model."""


def result_text(result: mcp_types.CallToolResult, cap: int = RESULT_CAP) -> str:
    parts = [_describe(block) for block in result.content]
    has_text = any(isinstance(block, mcp_types.TextContent) for block in result.content)
    if result.structured_content is not None and not has_text:
        parts.append(json.dumps(result.structured_content, indent=2, ensure_ascii=False))
    return capped("\n".join(part for part in parts if part) or "(no output)", cap)


def capped(text: str, cap: int = RESULT_CAP) -> str:
    if len(text) <= cap:
        return text
    return f"{text[:cap]}\n[… {len(text) - cap} more characters not shown]"


def _describe(block: mcp_types.ContentBlock) -> str:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        return f"[{block.type}: {block.mime_type}, {_size(block.data)}]"
    if isinstance(block, mcp_types.ResourceLink):
        return f"[resource link: {block.uri}" + (f" ({block.mime_type})" if block.mime_type else "") + "]"
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        kind = resource.mime_type or "binary"
        return f"[resource {resource.uri}: {kind}, {_size(resource.blob)}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _size(data: str) -> str:
    """The decoded size of base64 ``data``, as a person reads it."""
    try:
        size = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        size = len(data)
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"

