"""What a server sends, made fit for a request: capped, and binary data described by its size.

Kept apart from the SDK's types, so the parts that only shape text load without it.
"""

from __future__ import annotations

import base64
import binascii

RESULT_CAP = 30_000
"""Characters of a result sent to the model."""


def capped(text: str, cap: int = RESULT_CAP) -> str:
    if len(text) <= cap:
        return text
    return f"{text[:cap]}\n[… {len(text) - cap} more characters not shown]"


def size_text(data: str) -> str:
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
