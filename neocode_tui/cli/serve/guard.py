"""Who may use ``neocode serve``: the checks every request passes before textual-serve sees it.

A served tab runs commands in the folder as the user, so the server answers only
- under a name it is (``Host``): loopback names and the ``--host`` given, with its port. A site
  whose name an attacker points at 127.0.0.1 (DNS rebinding) sends its own name and is refused;
- to its own pages (``Origin``): a page of another site, or of another port on this machine,
  cannot use it from the user's browser. Browsers always send ``Origin`` on a websocket;
  clients that are not browsers send none and are held off by the token alone;
- to whoever shows the token, in ``?token=`` or in the cookie the first tokened visit sets
  (static files aside: textual-serve's scripts and styles, the same for everyone);
- to at most ``max_sessions`` tabs at once, since each one starts an app process.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import re
import secrets
from collections.abc import Awaitable, Callable

from aiohttp import web

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
HOST = re.compile(r"(\[(?P<ipv6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9.-]+))(:(?P<port>[0-9]{1,5}))?", re.I)
SAFETY_HEADERS = {
    "Referrer-Policy": "no-referrer",  # the page's requests never carry its URL elsewhere
    "X-Frame-Options": "DENY",  # no other page frames the app to steer the user's keys
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Cache-Control": "no-store",
}
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def parse_host(text: str, default_port: int = 80) -> tuple[str, int] | None:
    """``name:port`` of a ``Host`` header (or an origin without its scheme), lowercased; None
    for anything else (a path, credentials, stray characters)."""
    match = HOST.fullmatch(text)
    if match is None:
        return None
    port = int(match["port"]) if match["port"] else default_port
    return (match["ipv6"] or match["name"]).lower(), port


class Addresses:
    """The names this server answers to: loopback and the address it listens on, with its port.
    Listening on every interface (``0.0.0.0``, ``::``), any IP address is accepted too: DNS
    rebinding needs a name, and there is no telling which of the machine's addresses is used."""

    def __init__(self, host: str, port: int) -> None:
        listen = host.lower()
        self.port = port
        self.names = LOOPBACK_NAMES | ({listen} - WILDCARDS)
        self.any_address = listen in WILDCARDS
        self.loopback_only = listen in LOOPBACK_NAMES
        shown = "127.0.0.1" if self.any_address else listen
        self.url = f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"

    def allows(self, address: tuple[str, int] | None) -> bool:
        if address is None or address[1] != self.port:
            return False
        name = address[0]
        return name in self.names or (self.any_address and _is_ip_address(name))

    def allows_host(self, header: str | None) -> bool:
        return header is not None and self.allows(parse_host(header))

    def allows_origin(self, origin: str) -> bool:
        """Only this server's own ``http://`` origins; ``null`` (sandboxed frames, files) is not one."""
        scheme, _, rest = origin.partition("://")
        return scheme.lower() == "http" and self.allows(parse_host(rest))


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def same_secret(given: str, expected: str) -> bool:
    """Constant-time, so the time a wrong guess takes says nothing about the right one."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode())


def refusal(status: int, message: str) -> web.Response:
    """A short page saying why, instead of the app."""
    body = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>NeoCode: refused</title></head>'
        f"<body><h1>NeoCode: refused</h1><p>{html.escape(message)}</p></body></html>\n"
    )
    return web.Response(status=status, text=body, content_type="text/html")


class Guard:
    """The checks, as an aiohttp middleware, and the count of sessions running."""

    def __init__(self, token: str, addresses: Addresses, max_sessions: int) -> None:
        self.token = token
        self.addresses = addresses
        self.max_sessions = max_sessions
        self.sessions = 0
        self.cookie = f"neocode-serve-{addresses.port}"
        # The cookie holds a key of this run, not the token: a browser sends cookies to every
        # port of a host, and a token the user chose may serve elsewhere too.
        self._cookie_value = secrets.token_urlsafe(32)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not self.addresses.allows_host(request.headers.get("Host")):
            return refusal(403, "This server answers only to its own address (127.0.0.1, localhost, "
                                "[::1] or the --host it was given, with its port); this request named another.")
        origin = request.headers.get("Origin")
        if origin is not None and not self.addresses.allows_origin(origin):
            return refusal(403, "Only NeoCode's own page may use this server; this request came from "
                                "another site's page.")
        if isinstance(request.match_info.route.resource, web.StaticResource):
            return await handler(request)
        given = request.query.get("token")
        if given is not None and same_secret(given, self.token):
            if request.match_info.route.name == "index":
                return self._welcome(request)
        elif given is not None or not same_secret(request.cookies.get(self.cookie, ""), self._cookie_value):
            return refusal(403, "This NeoCode server needs its token: open the URL that neocode serve "
                                "printed (ending in ?token=...), also saved in NeoCode's data folder, "
                                "under serve/.")
        return await handler(request)

    def _welcome(self, request: web.Request) -> web.Response:
        """The first visit: the cookie, and the same page without the token in the address bar
        (history, bookmarks, screen shares)."""
        query = [(key, value) for key, value in request.query.items() if key != "token"]
        response = web.Response(status=303, headers={"Location": str(request.rel_url.with_query(query))})
        response.set_cookie(self.cookie, self._cookie_value, httponly=True, samesite="Strict", path="/")
        return response

    @staticmethod
    async def add_safety_headers(_: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(SAFETY_HEADERS)

    def full(self) -> web.Response | None:
        """The refusal to give when every session is taken, else None."""
        if self.sessions < self.max_sessions:
            return None
        return refusal(503, f"Every session this server may run at once is in use ({self.max_sessions}, "
                            "set by neocode serve --max-sessions): close a NeoCode tab, then reload this page.")
