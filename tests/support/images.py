"""The pictures a request carried to the model, decoded, in either wire format."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image as PIL

from tests.support.dialects import Dialect


def sent_images(dialect: Dialect, number: int) -> list[tuple[str, PIL.Image, dict[str, Any]]]:
    """(media type, decoded picture, the message that carried it) for each image in request
    ``number``, in the order sent."""
    found = []
    for message in dialect.request(number)["messages"]:
        content = message["content"]
        if not isinstance(content, list):
            continue
        blocks = list(content)
        for block in content:
            if block.get("type") == "tool_result" and isinstance(block["content"], list):
                blocks += block["content"]
        for block in blocks:
            if block["type"] == "image_url":
                head, data = block["image_url"]["url"].split(",", 1)
                assert head.startswith("data:") and head.endswith(";base64")
                found.append((head[5:-7], PIL.open(io.BytesIO(base64.b64decode(data))), message))
            elif block["type"] == "image":
                source = block["source"]
                assert source["type"] == "base64"
                picture = PIL.open(io.BytesIO(base64.b64decode(source["data"])))
                found.append((source["media_type"], picture, message))
    return found
