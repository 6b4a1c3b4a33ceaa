"""An MCP tool result as the text the model is sent.

Text is kept; structured content is sent as JSON only when there is no text (servers
send its JSON as text too, or a text rendering the model reads better); images,
audio and binary resources are described by type and size, never passed on as base64 (the
model cannot see them through a text result, and the tokens would be wasted). The whole
is capped like every other tool's output, with a note of how much was left out.
"""

from __future__ import annotations

import json

import mcp_types

from neocode_tui.agent.mcp.text import RESULT_CAP, capped, size_text


def result_text(result: mcp_types.CallToolResult, cap: int = RESULT_CAP) -> str:
    parts = [_describe(block) for block in result.content]
    has_text = any(isinstance(block, mcp_types.TextContent) for block in result.content)
    if result.structured_content is not None and not has_text:
        parts.append(json.dumps(result.structured_content, indent=2, ensure_ascii=False))
    return capped("\n".join(part for part in parts if part) or "(no output)", cap)


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
