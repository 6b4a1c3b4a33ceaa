"""Effort: how hard a reasoning model thinks, in each dialect's words.

OpenAI takes ``reasoning_effort``; Anthropic takes a thinking budget in tokens, which
counts against ``max_tokens``, so that is raised to leave the answer its usual room. Models
that do not reason reject both (HTTP 400), so they are sent only to the models known to
take them; a server that rejects them anyway gets a message that says which setting to
drop.
"""

from __future__ import annotations

import re
from typing import Any

from neocode_tui.events import StreamError, StreamEvent
from neocode_tui.vocabulary import Effort

THINKING_BUDGETS: dict[Effort, int] = {"low": 2_048, "medium": 8_192, "high": 24_576}
"""Anthropic ``budget_tokens`` per effort (the API's minimum is 1,024)."""

_OPENAI_REASONING = re.compile(r"(^|/)(o\d|gpt-5|gpt-oss|grok-3-mini)", re.IGNORECASE)
_ANTHROPIC_THINKING = re.compile(
    r"claude-(3-7|(sonnet|opus|haiku)-4|4)|claude-(sonnet|opus)-\d", re.IGNORECASE)
_REJECTION_WORDS = re.compile(r"reasoning|effort|thinking|budget_tokens|unrecognized|unknown|"
                              r"extra (inputs|fields)|not (supported|permitted)", re.IGNORECASE)


def openai_reasons(model: str) -> bool:
    """Whether an OpenAI-style model takes ``reasoning_effort`` (o1, o3, o4-mini, gpt-5...)."""
    return bool(_OPENAI_REASONING.search(model))


def anthropic_thinks(model: str) -> bool:
    """Whether an Anthropic model takes extended thinking (Claude 3.7 and 4 on)."""
    return bool(_ANTHROPIC_THINKING.search(model))


def add_thinking(body: dict[str, Any], effort: Effort) -> None:
    """Anthropic's thinking for ``effort``: the budget, ``max_tokens`` raised by it, and no
    ``temperature`` (the API refuses one with thinking on)."""
    budget = THINKING_BUDGETS[effort]
    body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    body["max_tokens"] = body["max_tokens"] + budget
    body.pop("temperature", None)


def explain_rejection(event: StreamEvent, effort: Effort, field: str, fix: str) -> StreamEvent:
    """A 400/422 to a request that carried ``field``, said so with ``fix``: the server's own
    words alone ("Unrecognized request argument") do not tell the user what to change."""
    if not isinstance(event, StreamError) or event.status not in (400, 422):
        return event
    if not _REJECTION_WORDS.search(event.message):
        return event
    message = (f"{event.message} — the request carried {field} for effort {effort}, which this "
               f"server or model may not take: {fix}")
    return event.model_copy(update={"message": message})


def sends_effort(provider: object) -> bool:
    """Whether the model ``provider`` uses now is sent an effort at all."""
    takes = getattr(provider, "takes_effort", None)
    return takes is not None and bool(takes(getattr(provider, "model", "")))


def effort_note(provider: object, effort: Effort | None) -> str:
    """What ``/effort`` says: the level, and whether the model in use is sent it."""
    if effort is None:
        return "effort: off (the server's default)"
    model = getattr(provider, "model", "")
    if not sends_effort(provider):
        return (f"effort: {effort}, but {model} is not known to take it, so it is not sent "
                "(NEOCODE_OPENAI_COMPAT=reasoning_effort=true sends it anyway)")
    return f"effort: {effort} (sent to {model} from the next request)"
