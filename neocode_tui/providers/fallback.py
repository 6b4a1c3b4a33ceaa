"""Fallback models: a request the model cannot serve after the retries goes on with the next.

The model is overloaded, rate limited, unreachable or refused by name: the same request is
sent to the next of ``fallback_models``, announced by a ``retry`` event naming that model
(consumers discard the failed attempt as for any retry and count what follows at its price).
Any other failure (a wrong key, a request too long, a cancel) is the request's, not the
model's, so it ends the stream as it would without fallbacks.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing

from neocode_tui.events import (
    ReasoningDelta,
    RefusalDelta,
    StreamError,
    StreamEvent,
    StreamRetry,
    TextDelta,
    ToolCallStart,
)

UNAVAILABLE = frozenset({"rate_limit", "server", "connection", "timeout"})
"""The kinds of failure another model may not share."""
_MODEL_REFUSED = re.compile(
    r"model.{0,80}(not (found|exist|available|supported)|does ?n[o']t exist|unknown|invalid|no such|"
    r"decommissioned|deprecated)|(unknown|invalid|unsupported) model", re.IGNORECASE | re.DOTALL)
_SHOWN = (TextDelta, ReasoningDelta, RefusalDelta, ToolCallStart)


def model_unavailable(error: StreamError) -> bool:
    """Whether ``error`` says the model, rather than the request, cannot be served now."""
    if error.kind in UNAVAILABLE:
        return True
    return error.kind == "bad_request" and (error.status == 404 or bool(_MODEL_REFUSED.search(error.message)))


def chain(model: str, fallbacks: Sequence[str]) -> list[str]:
    """``model`` and the fallbacks to try after it: those after it in the list when it is
    one of them (a run already on a fallback goes on down the list), else all of them."""
    rest = list(fallbacks)
    if model in rest:
        rest = rest[rest.index(model) + 1:]
    return [model, *(name for name in dict.fromkeys(rest) if name != model)]


async def falling_back(
    send: Callable[[str], AsyncGenerator[StreamEvent, None]], models: Sequence[str],
) -> AsyncGenerator[StreamEvent, None]:
    """``send(model)``'s events for the first of ``models`` that answers; the failure of the
    last one is the stream's."""
    for number, model in enumerate(models):
        shown = False
        async with aclosing(send(model)) as events:
            async for event in events:
                if isinstance(event, StreamRetry):
                    shown = False
                elif isinstance(event, _SHOWN):
                    shown = True
                if (isinstance(event, StreamError) and number + 1 < len(models)
                        and model_unavailable(event)):
                    following = models[number + 1]
                    yield StreamRetry(
                        attempt=number + 2, max_attempts=len(models), delay=0.0, kind=event.kind,
                        reason=f"{model} failed ({_short(event.message)}); going on with {following}",
                        discarded=shown, model=following,
                    )
                    break
                yield event
            else:
                return


def _short(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "no answer"
    return line if len(line) <= 100 else f"{line[:99]}…"
