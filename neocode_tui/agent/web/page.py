"""Getting one web page for ``web_fetch``, and turning it into Markdown.

The fetch is a stranger's: a fresh client that reads no environment (no proxy settings,
no ``.netrc``), holds no cookies and sends no credentials, only a User-Agent and Accept.
Redirects are followed here, one hop at a time, so each new address is checked
(``web_guard``) before anything is sent to it; a connection is never reused, so a second
host on the same address gets a TLS handshake of its own. Time and size are bounded: the
whole fetch, converting the page included (``web_convert``: it stops itself in time and
flattens deep nesting, and the page says so), and the bytes read (the rest is never
downloaded; a compressed body is decoded by ``http_body``, every step of it bounded by the
same count).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from neocode_tui.agent.web.guard import AllowList, Refused, check, parse_url
from neocode_tui.http_body import ACCEPT_ENCODING, BodyError, BodyTooLarge, decoded

if TYPE_CHECKING:
    from bs4 import Tag

MAX_REDIRECTS = 5
MAX_BYTES = 2_000_000
TIME_LIMIT = 30.0
CONVERT_MARGIN = 1.0
"""Seconds before the fetch's limit that converting a page stops, to end within it."""
MAX_DEPTH = 100
"""Levels of tags converted as such; deeper ones are their text (markdownify recurses)."""
USER_AGENT = "NeoCode-web_fetch/0.1 (+coding agent; one page on request)"
HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")
DROPPED = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg",
           "canvas", "form", "button", "select", "nav", "aside", "link", "meta")
"""Elements that are no part of a page's text: code, styling, navigation and chrome."""
CHROME = ("header", "footer")
"""The page's banner and footer, but not an article's own (its title, its byline)."""
CONTENT = ("main", "article")
"""Where a page's own words are."""
NAVIGATION_ROLES = ("navigation", "banner", "contentinfo", "complementary", "search", "menu")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


@dataclass(frozen=True)
class Page:
    url: str
    """Where it was found, after redirects."""
    content_type: str
    text: str
    """Markdown for a page, the text itself for other text."""
    truncated: bool
    notes: tuple[str, ...] = ()
    """What the text is not, in words: where converting it stopped short."""


@dataclass(frozen=True)
class Markdown:
    text: str
    notes: tuple[str, ...]
    """Where the conversion stopped short of the whole page, in words."""


Onward = Callable[[str], Awaitable[str | None]]
"""Why a redirect to a URL may not be followed (the permission rules' word), or None."""


async def fetch_page(url: str, allow: AllowList, *, time_limit: float = TIME_LIMIT,
                     onward: Onward | None = None) -> Page:
    """The page at ``url`` as Markdown, or ``Refused`` saying why not. Each redirect is
    put to ``onward`` before its host is even looked up."""
    deadline = time.monotonic() + time_limit
    try:
        async with asyncio.timeout(time_limit):
            body = await _fetch(url, allow, onward)
    except TimeoutError:
        raise Refused(f"stopped after {time_limit:g}s, the time limit for a fetch") from None
    except httpx.HTTPError as exc:
        raise Refused(f"the fetch failed: {type(exc).__name__}: {exc or 'no details'}") from None
    if not body.is_html:
        return Page(body.url, body.content_type, clean(body.raw.decode(_codec(body.charset), "replace")),
                    body.truncated)
    # A thread cannot be stopped: it stops itself, in time for the fetch to end within its limit,
    # with at least the page's first words converted however late it starts.
    markdown = await asyncio.to_thread(html_to_markdown, body.raw, body.charset, deadline - CONVERT_MARGIN)
    return Page(body.url, body.content_type or "text/html", clean(markdown.text), body.truncated,
                markdown.notes)


@dataclass(frozen=True)
class _Body:
    """What the server sent, read and decoded to bytes, before it is converted."""

    url: str
    content_type: str
    is_html: bool
    raw: bytes
    charset: str | None
    truncated: bool


async def _fetch(text: str, allow: AllowList, onward: Onward | None) -> _Body:
    url = parse_url(text)
    async with httpx.AsyncClient(
        trust_env=False, follow_redirects=False, timeout=httpx.Timeout(15.0),
        limits=httpx.Limits(max_keepalive_connections=0),
        headers={"User-Agent": USER_AGENT,
                 "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
                 "Accept-Encoding": ACCEPT_ENCODING},
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            target = await check(url, allow)
            client.cookies.clear()  # nothing a server set is sent back, not even to itself
            request = client.build_request(
                "GET", target.connect_url(), headers=target.headers(), extensions=target.extensions()
            )
            response = await client.send(request, stream=True)
            try:
                location = response.headers.get("location") if response.is_redirect else None
                if location is None:
                    return await _read(response, str(url))
            finally:
                await response.aclose()
            url = await _redirect(url, location, onward)
    raise Refused(f"more than {MAX_REDIRECTS} redirects; the last one went to {url}")


async def _redirect(url: httpx.URL, location: str, onward: Onward | None) -> httpx.URL:
    """Where ``url`` redirects to, when it may be followed."""
    target = parse_url(str(url.join(location)))
    reason = None if onward is None else await onward(str(target))
    if reason is not None:
        raise Refused(f"{url} redirected to {target}, which was not followed: {reason}; "
                      "fetch that URL with a call of its own if it is needed")
    return target


async def _read(response: httpx.Response, url: str) -> _Body:
    if response.status_code >= 400:
        raise Refused(f"{url} answered {response.status_code} {response.reason_phrase}")
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    is_html = content_type in HTML_TYPES or not content_type
    if not (is_html or content_type.startswith("text/") or content_type in TEXT_TYPES
            or content_type.endswith(("+json", "+xml"))):
        raise Refused(f"{url} is {content_type}, not a page or text web_fetch can read")
    body = bytearray()
    truncated = False
    try:
        async for piece in decoded(response, MAX_BYTES):
            body += piece
    except BodyTooLarge:
        truncated = True
    except BodyError as exc:
        raise Refused(f"{url} could not be read: {exc}") from None
    return _Body(url, content_type, is_html, bytes(body), response.charset_encoding, truncated)


def _codec(charset: str | None) -> str:
    import codecs

    try:
        return codecs.lookup(charset or "utf-8").name
    except LookupError:
        return "utf-8"


def html_to_markdown(raw: bytes, charset: str | None = None, deadline: float | None = None) -> Markdown:
    """The page's main content as Markdown: its ``<main>`` or ``<article>`` if it has one,
    else its body, without scripts, styles, navigation, headers, footers and forms. It
    stops at ``deadline`` (``time.monotonic``) with what it has (its first piece is always
    converted, so a page read late still gives its first words), and tags nested deeper
    than ``MAX_DEPTH`` are their text: the converter recurses, and costs the depth at
    every element."""
    from bs4 import BeautifulSoup

    from neocode_tui.agent.web.convert import Clock, Converter, PacedBuilder, flatten, prune

    notes: list[str] = []
    clock = Clock(deadline)
    soup = BeautifulSoup(raw, builder=PacedBuilder(clock), from_encoding=charset)
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    prune(soup, _unwanted, CONTENT)
    if flatten(soup, MAX_DEPTH):
        notes.append(f"the page nests its tags more than {MAX_DEPTH} deep: what is deeper is its plain text")
    main = soup.find(CONTENT[0]) or soup.find(CONTENT[1]) or soup.body or soup
    markdown = Converter(clock, heading_style="ATX", bullets="-", strip=["img"]).convert_soup(main)
    if clock.late:
        notes.append("converting the page took longer than the time limit for a fetch: this is "
                     "its text up to where it stopped")
    heading = f"# {title}\n\n" if title and title not in markdown[:500] else ""
    return Markdown(heading + markdown, tuple(notes))


def _unwanted(element: Tag, in_content: bool) -> bool:
    """No part of the page's text: code, styling, chrome, what it hides."""
    return (element.name in DROPPED or (element.name in CHROME and not in_content)
            or element.get("role") in NAVIGATION_ROLES or element.has_attr("hidden"))


def clean(text: str) -> str:
    """No control characters (a terminal escape, a bidi override) and no runs of blank
    lines: what is left is the page's words."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()
