"""The attempt-and-retry machinery of the HTTP provider, for both wire formats (one copy of it).

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
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import httpx

from neocode_tui import __version__
from neocode_tui.events import (
    ErrorKind,
    RateLimits,
    ReasoningDelta,
    RefusalDelta,
    StreamError,
    StreamEvent,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
    joined,
)
from neocode_tui.http_body import ACCEPT_ENCODING, BodyError, BodyTooLarge, decoded
from neocode_tui.providers.clients import Clients
from neocode_tui.providers.dialect import (
    Dialect,
    EventPump,
    context_overflow,
    is_context_overflow,
    short_text,
)
from neocode_tui.providers.prompt_cache import REFUSED as BREAKPOINTS_REFUSED
from neocode_tui.providers.rate_limits import exhausted_until, rate_limits
from neocode_tui.providers.read_ahead import ReadAhead
from neocode_tui.redact import redact_url, url_host

if TYPE_CHECKING:
    from neocode_tui.known_secrets import Secrets
    from neocode_tui.settings.model import Settings

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Plus every 5xx (529 "overloaded" included). Other 4xx mean the request itself is wrong."""

_ATTEMPTS_PER_KIND: dict[ErrorKind, int] = {"timeout": 2, "context_overflow": 2}
"""Our own timers and an empty reply (no HTTP status to go by): a silent server rarely
answers a resend, so one retry, not all of them."""

_ANSWER_EVENTS = (TextDelta, ReasoningDelta, RefusalDelta, ToolCallStart, ToolCallDelta)


@dataclass(frozen=True)
class HTTPOptions:
    connect_timeout: float = 10.0
    first_byte_timeout: float = 45.0
    """From sending the request to the first event; keep-alive comments do not count."""
    idle_timeout: float = 60.0
    """Longest wait for a complete line once events flow (keep-alive comments count; bytes
    that never finish a line do not)."""
    request_timeout: float = 600.0
    """The longest one attempt may take, however the server trickles."""
    max_retries: int = 3
    """Attempts after the first one (timeouts and empty replies get one retry at most)."""
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = 60.0
    """A server asking for a longer wait than this gets an error instead of a hidden wait."""
    rate_limit_max_wait: float = 300.0
    """A 429's told wait up to this is waited for (counted down on screen) rather than failed;
    other told waits are bounded by ``max_retry_after``."""
    max_event_bytes: int = 16 << 20
    """The longest SSE line or event; a line without an end past this is an error."""
    max_body_bytes: int = 256 << 20
    """The most one reply may decompress to."""
    max_error_body_bytes: int = 64 << 10
    """How much of an error body is read for its message."""

    @classmethod
    def from_settings(cls, settings: Settings) -> HTTPOptions:
        return cls(
            connect_timeout=settings.connect_timeout,
            first_byte_timeout=settings.first_byte_timeout,
            idle_timeout=settings.idle_timeout,
            request_timeout=settings.request_timeout,
            max_retries=settings.max_retries,
            rate_limit_max_wait=settings.rate_limit_max_wait,
        )

    def backoff(self, failed_attempt: int) -> float:
        """Exponential, with jitter so many clients do not return in step."""
        delay: float = min(self.backoff_max, self.backoff_base * 2 ** (failed_attempt - 1))
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
    ``secrets`` (the run's holder) are scrubbed from every error message.
    """

    def __init__(
        self,
        options: HTTPOptions | None,
        secrets: Secrets,
        *,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.options = options or HTTPOptions()
        self._clients = Clients(client)
        self._secrets = secrets

    async def stream(
        self,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        new_dialect: Callable[[], Dialect],
    ) -> AsyncGenerator[StreamEvent, None]:
        attempts = self.options.max_retries + 1
        for attempt in range(1, attempts + 1):
            shown = False
            try:
                async with aclosing(self._attempt(url, headers, body, new_dialect())) as events:
                    async for event in events:
                        shown = shown or event.__class__ in _ANSWER_EVENTS
                        yield event
                return
            except _AttemptFailed as failure:
                message = self._secrets.provider_message(failure.error.message)
                error = failure.error.model_copy(update={"message": message})
                retry_after = failure.retry_after
            limited = error.kind == "rate_limit"
            longest = self.options.rate_limit_max_wait if limited else self.options.max_retry_after
            if retry_after is not None and retry_after > longest:
                named = " (rate_limit_max_wait)" if limited else ""
                yield error.model_copy(update={
                    "retryable": False,
                    "message": f"{error.message} (the server asks to wait {retry_after:.0f} s, longer "
                               f"than the {longest:g} s NeoCode waits{named}; try again later)"})
                return
            allowed = attempts if error.status else min(
                attempts, _ATTEMPTS_PER_KIND.get(error.kind, attempts))
            if not error.retryable or attempt >= allowed:
                if error.retryable and attempt > 1:
                    error = error.model_copy(update={"message": f"{error.message} "
                                                     f"(gave up after {attempt} attempts)"})
                yield error
                return
            delay = retry_after if retry_after is not None else self.options.backoff(attempt)
            yield StreamRetry(attempt=attempt + 1, max_attempts=allowed, delay=delay,
                              reason=short_text(error.message, 160), kind=error.kind,
                              discarded=shown)
            await asyncio.sleep(delay)

    async def _attempt(
        self, url: str, headers: dict[str, str], body: dict[str, Any], dialect: Dialect
    ) -> AsyncGenerator[StreamEvent, None]:
        options = self.options
        host = url_host(url)
        clock = asyncio.get_running_loop().time
        overall = clock() + options.request_timeout
        first_deadline = min(clock() + options.first_byte_timeout, overall)
        no_response = _error("timeout", f"no response from {host} within "
                             f"{options.first_byte_timeout:g} s (a slow local model may need "
                             "a longer NEOCODE_FIRST_BYTE_TIMEOUT)", retryable=True)
        try:
            async with asyncio.timeout_at(first_deadline):
                response = await self._send(url, headers, body)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
            raise _AttemptFailed(_error("bad_request", f"bad base URL {redact_url(url)!r}: {_describe(exc)}",
                                        retryable=False)) from None
        except TimeoutError:
            raise _AttemptFailed(no_response) from None
        except httpx.HTTPError as exc:
            raise _AttemptFailed(_connect_error(host, exc)) from None
        try:
            limits = rate_limits(response.headers, time.time())
            if limits is not None:
                yield limits
            if 300 <= response.status_code < 400:
                raise _AttemptFailed(_redirected(response, url, host))
            if response.status_code >= 400 or "json" in response.headers.get("content-type", ""):
                raise await self._status_error(response, host, limits)
            chunks = ReadAhead(decoded(response, options.max_body_bytes), closing=lambda: response.is_closed)
            events = self._events(chunks, dialect, host, (first_deadline, overall), no_response)
            try:
                async for event in events:
                    yield event
            finally:
                await events.aclose()
                await chunks.aclose()
        finally:
            await response.aclose()

    async def _send(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> httpx.Response:
        client = self._clients.for_url(url)
        connect = self.options.connect_timeout
        request = client.build_request(
            "POST", url, json=body,
            headers={"accept": "text/event-stream", "accept-encoding": ACCEPT_ENCODING,
                     "user-agent": f"neocode/{__version__}", **headers},
            timeout=httpx.Timeout(connect=connect, read=None, write=connect, pool=connect),
        )
        return await client.send(request, stream=True)

    async def _events(
        self, chunks: ReadAhead, dialect: Dialect, host: str, deadlines: tuple[float, float],
        no_response: StreamError,
    ) -> AsyncGenerator[StreamEvent, None]:
        """The body's events, what arrived together joined; timeouts and limits enforced."""
        options = self.options
        clock = asyncio.get_running_loop().time
        first_deadline, overall = deadlines
        pump = EventPump(dialect, max_event_bytes=options.max_event_bytes, gather=True)
        lines = 0
        idle_deadline = first_deadline
        while True:
            deadline = min(first_deadline if pump.events_seen == 0 else idle_deadline, overall)
            try:
                async with asyncio.timeout_at(deadline):
                    chunk = await chunks.take()
            except TimeoutError:
                raise _AttemptFailed(self._timeout(host, pump.events_seen, deadline >= overall,
                                                   no_response)) from None
            except httpx.HTTPError as exc:
                raise _AttemptFailed(_error(
                    "connection", f"connection to {host} lost mid-stream: {_describe(exc)}",
                    retryable=True)) from None
            except BodyTooLarge:
                raise _AttemptFailed(_error(
                    "malformed", f"the reply from {host} passed "
                    f"{options.max_body_bytes >> 20} MiB: stopped reading it", retryable=False)) from None
            except BodyError as exc:
                raise _AttemptFailed(_error("malformed", f"the reply from {host}: {exc}",
                                            retryable=False)) from None
            events = joined(pump.feed(chunk)) if chunk is not None else pump.close()
            if pump.events_seen and pump.lines_seen != lines:
                lines = pump.lines_seen  # a complete line: the server is alive
                idle_deadline = clock() + options.idle_timeout
            for event in events:
                if event.__class__ is StreamError:
                    raise _AttemptFailed(event)
                yield event
            if chunk is None or pump.done:
                return

    def _timeout(self, host: str, events_seen: int, overall: bool,
                 no_response: StreamError) -> StreamError:
        options = self.options
        if overall:
            return _error("timeout", f"the reply from {host} took longer than "
                          f"{options.request_timeout:g} s (NEOCODE_REQUEST_TIMEOUT): stopped it",
                          retryable=False)
        if not events_seen:
            return no_response
        return _error("timeout", f"the stream stalled: nothing received from {host} for "
                      f"{options.idle_timeout:g} s", retryable=True)

    async def _status_error(self, response: httpx.Response, host: str,
                            limits: RateLimits | None) -> _AttemptFailed:
        text = await self._error_body(response)
        status = response.status_code
        detail = server_message(text) or response.reason_phrase or "no details"
        retryable = (status in RETRYABLE_STATUSES or status >= 500) and not BREAKPOINTS_REFUSED.search(detail)
        kind, label = _status_kind(status) if status >= 400 else (
            "stream", "the server answered with JSON instead of an event stream")
        if status != 429 and is_context_overflow(detail, text[:2000]):  # not "tokens per minute"
            return _AttemptFailed(context_overflow(f"{detail} (HTTP {status})", status))
        if kind == "bad_request" and _IMAGE_REFUSED.search(detail):
            detail += f" — {IMAGES_HINT}"
        error = _error(kind, f"{label} (HTTP {status} from {host}): {detail}",
                       retryable=retryable, status=status)
        wait = _retry_after(response.headers) if retryable else None
        reset = exhausted_until(limits) if status == 429 else None
        if wait is None and reset is not None:
            wait = max(0.0, reset - time.time())  # no retry-after: the used-up window's reset
        return _AttemptFailed(error, wait)

    async def _error_body(self, response: httpx.Response) -> str:
        """At most ``max_error_body_bytes`` of the body (decompressed), or what came in time."""
        limit = self.options.max_error_body_bytes
        body = bytearray()
        try:
            async with asyncio.timeout(self.options.idle_timeout):
                async for piece in decoded(response, limit):
                    body += piece
        except (TimeoutError, httpx.HTTPError, BodyError):
            pass
        return bytes(body).decode("utf-8", "replace")

    async def aclose(self) -> None:
        await self._clients.aclose()



_IMAGE_REFUSED = re.compile(r"image|vision|multimodal|multi-modal", re.IGNORECASE)
IMAGES_HINT = ("this model may not take images: set images = false in its profile (or "
               "NEOCODE_IMAGES=false), and each image is sent as a line saying it was there")


def _redirected(response: httpx.Response, url: str, host: str) -> StreamError:
    """A redirect is said, never followed: following it would send the key (and the
    conversation) to wherever the server names, maybe another host."""
    status = response.status_code
    location = response.headers.get("location", "").strip()
    if not location:
        return _error("bad_request", f"the server at {host} answered HTTP {status} (a redirect) "
                      "without saying where to; check the base URL", retryable=False, status=status)
    target = short_text("".join(c if c.isprintable() else "?" for c in urljoin(url, location)), 300)
    return _error("bad_request", f"the server at {host} redirected the request to {target} "
                  f"(HTTP {status}); NeoCode does not follow redirects, so set the base URL "
                  "(NEOCODE_BASE_URL or --base-url) to the address it names", retryable=False,
                  status=status)


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


def server_message(text: str) -> str:
    """The server's own words from an error body, one short line: the ``message`` of a JSON
    error (nested ``error.message``, FastAPI's ``detail``), else the first meaningful line
    of the text (the last line of a Python traceback, the title of an HTML page)."""
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        return short_text(_first_meaningful_line(text))
    return short_text(_first_meaningful_line(_json_message(payload)))


def _json_message(payload: Any, depth: int = 0) -> str:
    if isinstance(payload, str) or depth > 4:
        return str(payload)
    if isinstance(payload, list):
        return "; ".join(_json_message(item, depth + 1) for item in payload[:3])
    if isinstance(payload, dict):
        for key in ("error", "message", "detail", "msg", "title"):
            value = payload.get(key)
            if value:
                return _json_message(value, depth + 1)
        return str(payload.get("type") or payload.get("code") or json.dumps(payload)[:200])
    return json.dumps(payload)


_TAG = re.compile(r"<[^>]*>")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def _first_meaningful_line(text: str) -> str:
    title = _TITLE.search(text)
    if title and title.group(1).strip():
        return title.group(1)
    lines = [line.strip() for line in _TAG.sub(" ", text).splitlines()]
    lines = [line for line in lines if any(ch.isalnum() for ch in line)]
    if not lines:
        return ""
    if lines[0].startswith("Traceback (most recent call last)"):
        return lines[-1]  # the exception, not the first frame
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"  # "3 validation errors:" says little alone
    return lines[0]


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
