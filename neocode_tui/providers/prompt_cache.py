"""Anthropic ``cache_control`` breakpoints: where a request's cacheable prefix ends.

Anthropic caches only up to a marked block and takes at most four marks. The tools and the
system prompt are the same in every request of a session, so each gets one; the other two
go on the last block of the last two user messages: the newest is where the next request
will find this one's prefix, the one before is where this request finds the last one's
(the server looks back only about twenty blocks from a mark, and one turn's tool results
can be more). The marks are not part of the prefix: moving them never breaks it.
"""

from __future__ import annotations

import re
from typing import Any

EPHEMERAL = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
MESSAGE_BREAKPOINTS = 2

REFUSED = re.compile(r"cache_control|\bsystem\b.{0,80}\b(blocks?|list|array|string)\b",
                     re.IGNORECASE | re.DOTALL)
"""A server's error that names the breakpoints (or the block list the system prompt becomes
with one): the same body sent again fails again, so it is not retried as it is."""
REFUSED_HINT = ("the server rejected cache_control breakpoints; sent without them from now on "
                "(turn them off for good with NEOCODE_CACHE_CONTROL=false, or cache_control = "
                "false in config.toml)")


def add_breakpoints(body: dict[str, Any]) -> None:
    """Marks ``body`` (a Messages API request built for this call: its blocks are its own)."""
    tools = body.get("tools")
    if tools:
        tools[-1]["cache_control"] = EPHEMERAL
    system = body.get("system")
    if system:
        body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    users = [message for message in body["messages"] if message["role"] == "user"]
    for message in users[-MESSAGE_BREAKPOINTS:]:
        block = message["content"][-1]
        block["cache_control"] = EPHEMERAL


def count_breakpoints(body: dict[str, Any]) -> int:
    """How many marks ``body`` carries (for tests and the bench)."""
    blocks = [*body.get("tools", []), *(body["system"] if isinstance(body.get("system"), list) else [])]
    blocks += [block for message in body["messages"] for block in message["content"]]
    return sum("cache_control" in block for block in blocks)
