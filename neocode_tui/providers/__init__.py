"""Providers turn a ``ChatRequest`` into a channel of ``StreamEvent``s."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from neocode_tui.conversation import ChatRequest
from neocode_tui.events import StreamEvent


class Provider(Protocol):
    name: str
    """Shown in the status bar: "openai", "anthropic", "scripted"."""
    model: str

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """One assistant message as events; ends with ``message_done`` or ``error``.

        Failures are events, never exceptions. Retries happen inside, each announced by a
        ``retry`` event that tells consumers to discard the attempt so far.
        """
        ...

    async def aclose(self) -> None: ...
