"""The attempt-and-retry machinery both HTTP providers share (one copy of it).

An attempt is one streamed POST: its events are passed on live. A retryable failure (a
429/5xx, a refused or dropped connection, a timeout, a body that breaks off or turns into
garbage) ends the attempt; the consumer is told with a ``retry`` event to discard what the
attempt showed, and the whole request is sent again after a backoff, the way Codex CLI does.
Only when the attempts are spent does the stream end in an ``error`` event. Every message
that leaves this module has the API key scrubbed out of it.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from neocode_tui import __version__
from neocode_tui.events import ErrorKind, StreamError, StreamEvent, StreamRetry
from neocode_tui.providers.dialect import Dialect, EventPump
from neocode_tui.redact import Redactor

if TYPE_CHECKING:
    from neocode_tui.config import Settings

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Plus every 5xx (529 "overloaded" included). Other 4xx mean the request itself is wrong."""


@dataclass(frozen=True)
class HTTPOptions:
    connect_timeout: float = 10.0
    first_byte_timeout: float = 60.0
    """From sending the request to the first byte of the body."""
    idle_timeout: float = 60.0
    """Longest silence between two reads once the body started (keep-alives count)."""
    max_retries: int = 3
    """Attempts after the first one."""
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = 60.0
    """A server asking for a longer wait than this gets an error instead of a hidden wait."""

    @classmethod
    def from_settings(cls, settings: Settings) -> HTTPOptions:
        return cls(
            connect_timeout=settings.connect_timeout,
            first_byte_timeout=settings.first_byte_timeout,
            idle_timeout=settings.idle_timeout,
            max_retries=settings.max_retries,
        )

    def backoff(self, failed_attempt: int) -> float:
        """Exponential, with jitter so many clients do not return in step."""
        delay = min(self.backoff_max, self.backoff_base * 2 ** (failed_attempt - 1))
        return delay * (1 - 0.25 * random.random())


class _AttemptFailed(Exception):
    def __init__(self, error: StreamError, retry_after: float | None = None) -> None:
        self.error = error
        self.retry_after = retry_after


def _error(kind: ErrorKind, message: str, *, retryable: bool, status: int | None = None) -> StreamError:
    return StreamError(kind=kind, message=message, retryable=retryable, status=status)


class HTTPStreamer:
    """POSTs a JSON body and streams the SSE reply through a dialect, with retries.

    ``client`` is shared when given (one per app) and then left open by ``aclose``.
    ``secrets`` are scrubbed from every error message.
    """

    def __init__(
        self,
        options: HTTPOptions | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        secrets: Iterable[str | None] = (),
    ) -> None:
        self.options = options or HTTPOptions()
        self._client = client
        self._owns_client = client is None
        self._redact = Redactor(secrets)

    async def stream(
        self,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        new_dialect: Callable[[], Dialect],
    ) -> AsyncIterator[StreamEvent]:
        attempts = self.options.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                async with aclosing(self._attempt(url, headers, body, new_dialect())) as events:
                    async for event in events:
                        yield event
                return
            except _AttemptFailed as failure:
                message = self._redact.provider_message(failure.error.message)
                error = failure.error.model_copy(update={"message": message})
                retry_after = failure.retry_after
            if retry_after is not None and retry_after > self.options.max_retry_after:
                yield error.model_copy(update={
                    "retryable": False,
                    "message": f"{error.message} (the server asks to wait {retry_after:g} s; "
                               "try again later)"})
                return
            if not error.retryable or attempt == attempts:
                if error.retryable and attempts > 1:
                    error = error.model_copy(update={"message": f"{error.message} "
                                                     f"(gave up after {attempts} attempts)"})
                yield error
                return
            delay = retry_after if retry_after is not None else self.options.backoff(attempt)
            yield StreamRetry(attempt=attempt + 1, max_attempts=attempts, delay=delay,
                              reason=error.message)
            await asyncio.sleep(delay)

    async def _attempt(
        self, url: str, headers: dict[str, str], body: dict[str, Any], dialect: Dialect
    ) -> AsyncIterator[StreamEvent]:
        options = self.options
        host = urlsplit(url).netloc or url
        client = self._get_client()
        connect = options.connect_timeout
        deadline = asyncio.get_running_loop().time() + options.first_byte_timeout
        no_response = _error("timeout", f"no response from {host} within "
                             f"{options.first_byte_timeout:g} s", retryable=True)
        try:
            request = client.build_request(
                "POST", url, json=body,
                headers={"accept": "text/event-stream", "user-agent": f"neocode/{__version__}",
                         **headers},
                timeout=httpx.Timeout(connect=connect, read=None, write=connect, pool=connect),
            )
            async with asyncio.timeout_at(deadline):
                response = await client.send(request, stream=True)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
            raise _AttemptFailed(_error("bad_request", f"bad base URL {url!r}: {_describe(exc)}",
                                        retryable=False)) from None
        except TimeoutError:
            raise _AttemptFailed(no_response) from None
        except httpx.HTTPError as exc:
            raise _AttemptFailed(_connect_error(host, exc)) from None
        try:
            if response.status_code >= 400 or "json" in response.headers.get("content-type", ""):
                raise await self._status_error(response, host)
            pump = EventPump(dialect)
            chunks = response.aiter_bytes()
            first = True
            while True:
                try:
                    if first:
                        async with asyncio.timeout_at(deadline):
                            chunk = await anext(chunks, None)
                    else:
                        async with asyncio.timeout(options.idle_timeout):
                            chunk = await anext(chunks, None)
                except TimeoutError:
                    raise _AttemptFailed(no_response if first else _error(
                        "timeout", f"the stream stalled: nothing received from {host} for "
                        f"{options.idle_timeout:g} s", retryable=True)) from None
                except httpx.HTTPError as exc:
                    raise _AttemptFailed(_error(
                        "connection", f"connection to {host} lost mid-stream: {_describe(exc)}",
                        retryable=True)) from None
                first = False
                events = pump.feed(chunk) if chunk is not None else pump.close()
                for event in events:
                    if event.__class__ is StreamError:
                        raise _AttemptFailed(event)  # type: ignore[arg-type]
                    yield event
                if chunk is None or pump.done:
                    return
        finally:
            await response.aclose()

    async def _status_error(self, response: httpx.Response, host: str) -> _AttemptFailed:
        try:
            async with asyncio.timeout(self.options.idle_timeout):
                text = (await response.aread()).decode("utf-8", "replace")
        except (TimeoutError, httpx.HTTPError):
            text = ""
        status = response.status_code
        retryable = status in RETRYABLE_STATUSES or status >= 500
        kind, label = _status_kind(status) if status >= 400 else (
            "stream", "the server answered with JSON instead of an event stream")
        detail = _server_message(text) or response.reason_phrase or "no details"
        error = _error(kind, f"{label} (HTTP {status} from {host}): {detail}",
                       retryable=retryable, status=status)
        return _AttemptFailed(error, _retry_after(response.headers) if retryable else None)

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient()
        return self._client

    async def aclose(self) -> None:
        if self._owns_client and self._client is not None:
            await self._client.aclose()
            self._client = None


"""Anything shaped like a provider key, even one that is not ours or is partly masked."""


def _status_kind(status: int) -> tuple[ErrorKind, str]:
    if status == 401:
        return "auth", "authentication failed: check the API key"
    if status == 403:
        return "auth", "access denied: the API key may lack permission for this model"
    if status == 404:
        return "bad_request", "not found: check the base URL and the model name"
    if status == 408:
        return "timeout", "the server timed out the request"
    if status == 429:
        return "rate_limit", "rate limited"
    if status == 529:
        return "server", "the server is overloaded"
    if status >= 500 or status == 409:
        return "server", "the server failed"
    return "bad_request", "the server rejected the request"


def _server_message(text: str) -> str:
    """The server's own words from an error body (OpenAI, Anthropic, FastAPI/vLLM shapes)."""
    try:
        payload = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    if isinstance(payload, dict):
        inner = payload.get("error", payload)
        if isinstance(inner, dict):
            inner = inner.get("message") or inner.get("detail") or inner.get("type") or inner
        elif inner is None:
            inner = payload.get("message") or payload.get("detail") or payload
        payload = inner
    return (payload if isinstance(payload, str) else json.dumps(payload))[:300]


def _retry_after(headers: httpx.Headers) -> float | None:
    """``retry-after-ms`` (OpenAI's, exact) first, then ``Retry-After`` seconds or HTTP date."""
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (ValueError, TypeError):
        return None


def _connect_error(host: str, exc: httpx.HTTPError) -> StreamError:
    if isinstance(exc, httpx.TimeoutException):
        return _error("connection", f"could not connect to {host}: timed out", retryable=True)
    if isinstance(exc, httpx.ConnectError):
        return _error("connection", f"could not connect to {host}: {_describe(exc)}", retryable=True)
    return _error("connection", f"connection to {host} lost before the reply: {_describe(exc)}",
                  retryable=True)


def _describe(exc: Exception) -> str:
    """Plain words for a transport error ("[Errno 111] Connection refused" -> "connection refused")."""
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", str(exc)).strip()
    return (text[:1].lower() + text[1:]) if text else exc.__class__.__name__
