"""The one HTTP provider: a model behind an HTTP API, in the wire format its ``Wire`` speaks.

What the two APIs share lives here once: the request's model and effort, the call ids, the
streamer with its retries, the key scrubbed from every message, the explanation of a server
that refuses the effort. What differs (the URL, the auth header, the request body, the stream
parser, which models take an effort and in what field) is the ``Wire``'s, one per API:
``openai.OpenAIChat`` (chat completions) and ``anthropic.AnthropicMessages`` (messages).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Protocol

from neocode_tui.chat import ChatRequest
from neocode_tui.events import StreamError, StreamEvent, StreamRetry
from neocode_tui.providers.dialect import CallIds, Dialect
from neocode_tui.providers.effort import explain_rejection
from neocode_tui.providers.fallback import chain, falling_back
from neocode_tui.vocabulary import Effort

if TYPE_CHECKING:
    import httpx

    from neocode_tui.known_secrets import Secrets
    from neocode_tui.providers.http import HTTPOptions


class Wire(Protocol):
    """One API's wire format, as the provider needs it."""

    @property
    def name(self) -> str:
        """The provider's name, shown in the status bar: "openai", "anthropic"."""
        ...

    @property
    def call_id_prefix(self) -> str:
        """Of the ids made up for tool calls a server sent without one."""
        ...

    @property
    def effort_field(self) -> str:
        """What carries the effort in a request, as a rejection names it."""
        ...

    @property
    def effort_fix(self) -> str:
        """How the user stops sending it, as a rejection says."""
        ...

    def url(self, base_url: str) -> str:
        """The endpoint under ``base_url``, which follows the API's official SDK."""
        ...

    def headers(self, api_key: str | None) -> dict[str, str]: ...

    def fixed_fields(self, url: str) -> dict[str, Any]:
        """Fields every request of one provider carries (so: of one session)."""
        ...

    def body(self, request: ChatRequest, model: str, effort: Effort | None) -> dict[str, Any]:
        """The request's JSON for ``model``, with ``effort`` (``None``: none sent)."""
        ...

    def parser(self, ids: CallIds) -> Dialect:
        """A fresh parser of one reply's stream."""
        ...

    def takes_effort(self, model: str) -> bool: ...

    def fallback(self, error: StreamError) -> tuple[Wire, str] | None:
        """This wire without the part of a request ``error`` says the server refused, and
        what the user is told; None when there is nothing to leave out."""
        ...


class HTTPProvider:
    """A model behind an HTTP API. ``client`` is shared when given (one per app);
    ``secrets`` (the run's holder, else one of ``api_key``) are scrubbed from its errors;
    ``fallback_models`` answer, in order, what ``model`` cannot."""

    def __init__(
        self,
        wire: Wire,
        *,
        model: str,
        base_url: str,
        api_key: str | None,
        options: HTTPOptions | None = None,
        client: httpx.AsyncClient | None = None,
        secrets: Secrets | None = None,
        effort: Effort | None = None,
        fallback_models: Sequence[str] = (),
    ) -> None:
        from neocode_tui.known_secrets import Secrets
        from neocode_tui.providers.http import HTTPStreamer  # replay needs the parsers only

        self.wire = wire
        self.name = wire.name
        self.model = model
        self.effort = effort
        self.fallback_models = tuple(fallback_models)
        """Gone on with, in order, when ``model`` cannot serve a request (``providers.fallback``)."""
        """Changed by ``/effort``; sent only to models that take it (``takes_effort``)."""
        self._url = wire.url(base_url)
        self._headers = wire.headers(api_key)
        self._fixed = wire.fixed_fields(self._url)
        self._ids = CallIds(wire.call_id_prefix, live=True)
        secrets = secrets if secrets is not None else Secrets(keys=[api_key])
        self._http = HTTPStreamer(options, secrets, client=client)

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        models = chain(request.model or self.model, self.fallback_models)
        if len(models) == 1:
            return self._to(request, models[0])
        return falling_back(lambda model: self._to(request, model), models)

    def _to(self, request: ChatRequest, model: str) -> AsyncGenerator[StreamEvent, None]:
        effort = self.effort if self.takes_effort(model) else None
        events = self._falling_back(request, model, effort)
        return events if effort is None else self._explained(events, effort)

    def _sent(self, request: ChatRequest, model: str, effort: Effort | None) -> AsyncGenerator[StreamEvent, None]:
        body = self.wire.body(request, model, effort)
        body.update(self._fixed)
        return self._http.stream(self._url, self._headers, body, lambda: self.wire.parser(self._ids))

    async def _falling_back(self, request: ChatRequest, model: str,
                            effort: Effort | None) -> AsyncGenerator[StreamEvent, None]:
        """The request; refused for a part the wire can leave out, sent once more without it
        (and so is every later one): the user is told why, and how to leave it out for good."""
        async with aclosing(self._sent(request, model, effort)) as events:
            async for event in events:
                fallback = self.wire.fallback(event) if isinstance(event, StreamError) else None
                if fallback is None or not isinstance(event, StreamError):
                    yield event
                    continue
                self.wire, hint = fallback
                yield StreamRetry(attempt=2, max_attempts=2, delay=0.0, reason=hint, kind=event.kind)
                async with aclosing(self._sent(request, model, effort)) as again:
                    async for retried in again:
                        yield (retried.model_copy(update={"message": f"{retried.message} — {hint}"})
                               if isinstance(retried, StreamError) else retried)
                return

    def takes_effort(self, model: str) -> bool:
        return self.wire.takes_effort(model)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _explained(self, events: AsyncGenerator[StreamEvent, None],
                         effort: Effort) -> AsyncGenerator[StreamEvent, None]:
        async with aclosing(events):
            async for event in events:
                yield explain_rejection(event, effort, self.wire.effort_field, self.wire.effort_fix)
