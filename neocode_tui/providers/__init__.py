"""Providers turn a ``ChatRequest`` into a channel of ``StreamEvent``s."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Protocol

from neocode_tui.chat import ChatRequest
from neocode_tui.deferred import face
from neocode_tui.events import StreamEvent

if TYPE_CHECKING:
    import httpx

    from neocode_tui.known_secrets import Secrets
    from neocode_tui.providers.scripted import TurnSource
    from neocode_tui.settings.model import Settings


class Provider(Protocol):
    name: str
    """Shown in the status bar: "openai", "anthropic", "scripted"."""
    model: str

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """One assistant message as events; ends with ``message_done`` or ``error``.

        Failures are events, never exceptions. Retries happen inside, each announced by a
        ``retry`` event that tells consumers to discard the attempt so far. A consumer that
        stops early closes the generator: that closes the request and gives its connection
        back, so every wrapper closes what it wraps (``contextlib.aclosing``).
        """
        ...

    async def aclose(self) -> None: ...


def make_provider(
    settings: Settings,
    *,
    client: httpx.AsyncClient | None = None,
    script: TurnSource | None = None,
    secrets: Secrets | None = None,
) -> Provider:
    """The provider the settings name. ``client`` is shared (one per app) when given;
    ``script`` replaces the offline model's built-in replies; ``secrets``: the run's holder
    (else one of the settings' own keys) scrubs its error messages."""
    if settings.offline:
        from neocode_tui.providers.offline import offline_reply
        from neocode_tui.providers.scripted import ScriptedProvider

        return ScriptedProvider(script or offline_reply, model=settings.resolved_model)
    from neocode_tui.known_secrets import Secrets
    from neocode_tui.providers.http import HTTPOptions
    from neocode_tui.providers.http_provider import HTTPProvider, Wire

    wire: Wire
    if settings.resolved_provider == "anthropic":
        from neocode_tui.providers.anthropic import AnthropicMessages

        wire = AnthropicMessages(cache_control=settings.cache_control,
                                 tool_choice=settings.openai_compat.tool_choice)
    else:
        from neocode_tui.providers.openai import OpenAIChat

        wire = OpenAIChat(settings.openai_compat)
    return HTTPProvider(
        wire, model=settings.resolved_model, base_url=settings.resolved_base_url,
        api_key=settings.api_key, options=HTTPOptions.from_settings(settings), client=client,
        secrets=secrets if secrets is not None else Secrets(keys=settings.secrets),
        effort=settings.effort, fallback_models=settings.fallback_models,
    )

if TYPE_CHECKING:
    from neocode_tui.providers.effort import sends_effort
    from neocode_tui.providers.offline import LIVE_RATE, offline_provider, offline_reply
    from neocode_tui.providers.scripted import ScriptedProvider, SSEReplay, TurnSource, detect_dialect, scripted_reply

__all__ = [
    "LIVE_RATE",
    "SSEReplay",
    "ScriptedProvider",
    "TurnSource",
    "detect_dialect",
    "offline_provider",
    "offline_reply",
    "scripted_reply",
    "sends_effort",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "effort": ("sends_effort",),
        "offline": ("LIVE_RATE", "offline_provider", "offline_reply",),
        "scripted": ("SSEReplay", "ScriptedProvider", "TurnSource", "detect_dialect", "scripted_reply",),
    })
