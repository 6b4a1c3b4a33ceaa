"""OAuth for a streamable-HTTP MCP server that asks for it, with the SDK's client auth:
discovery, dynamic registration, PKCE and refresh are the SDK's; NeoCode supplies the
storage (``oauth_store``), the way the user is sent to the sign-in page, and the loopback
server the browser comes back to.

A sign-in only happens when the user asked for it (``/mcp login``, or a headless run, whose
user is waiting for it): otherwise a server that wants one is "needs sign-in", and nothing
is registered with it. The callback server listens on 127.0.0.1 only, for one sign-in,
and takes only the ``state`` of the authorization URL it was opened for: another page
the user visits cannot hand NeoCode a code of its choosing.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import AsyncGenerator, Callable
from contextlib import suppress
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl, ValidationError

from neocode_tui.agent.mcp.oauth_store import SignInStore

CALLBACK_PATH = "/callback"
SIGN_IN_TIMEOUT = 300.0
MAX_REQUEST = 16 * 1024
PAGE = (b"<!doctype html><title>NeoCode</title><p>%s</p>")


class SignInNeeded(Exception):
    """The server wants a sign-in, and the user has not asked for one now."""


class SignInFailed(Exception):
    """The sign-in was started and did not end with a token; says why."""


class _Storage:
    """The SDK's ``TokenStorage`` over the store's file."""

    def __init__(self, store: SignInStore) -> None:
        self.store = store

    async def get_tokens(self) -> OAuthToken | None:
        with suppress(ValidationError):
            return OAuthToken.model_validate(self.store.tokens) if self.store.tokens else None
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.store.set_tokens(tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        with suppress(ValidationError):
            client = self.store.client
            return OAuthClientInformationFull.model_validate(client) if client else None
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.store.set_client(client_info.model_dump(mode="json", exclude_none=True))


class Callback:
    """The one-shot loopback server the authorization server redirects the browser to."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        self.state = ""
        """The only ``state`` accepted: the one in the authorization URL just sent."""
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self._server: asyncio.Server | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    @classmethod
    def bind(cls, port: int = 0) -> Callback:
        """On ``port`` when it is free (a registered client's redirect URI names it), else on
        any free one."""
        return cls(_listening(port))

    async def expect(self, state: str) -> None:
        """Listen (again: it closes after each sign-in) for the redirect carrying ``state``."""
        self.state = state
        self._result = asyncio.get_running_loop().create_future()
        if self.sock.fileno() == -1:
            self.sock = _listening(self.port)
            if self.sock.getsockname()[1] != self.port:
                self.sock.close()
                raise SignInFailed(f"port {self.port} on 127.0.0.1, where the sign-in returns, is taken")
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, sock=self.sock)

    async def wait(self, timeout: float) -> AuthorizationCodeResult:
        assert self._result is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError:
            raise SignInFailed(f"no sign-in within {timeout:g} s") from None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
            writer.close()
            return
        status, text = self._answer(head[:MAX_REQUEST].split(b"\r\n", 1)[0].decode("latin-1"))
        writer.write(b"HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n"
                     b"Cache-Control: no-store\r\n\r\n" % status.encode() + PAGE % text.encode())
        with suppress(OSError):
            await writer.drain()
        writer.close()

    def _answer(self, line: str) -> tuple[str, str]:
        """What one request gets: the sign-in's end for the expected state, else a refusal
        that leaves the sign-in waiting."""
        method, _, rest = line.partition(" ")
        target = urlparse(rest.rpartition(" ")[0] or rest)
        query = {key: values[0] for key, values in parse_qs(target.query).items()}
        if method != "GET" or target.path != CALLBACK_PATH:
            return "404 Not Found", "Not found."
        if not self.state or not secrets.compare_digest(query.get("state", "").encode(), self.state.encode()) \
                or self._result is None or self._result.done():
            return "400 Bad Request", "This is not the sign-in NeoCode is waiting for."
        if "error" in query:
            why = query.get("error_description") or query["error"]
            self._result.set_exception(SignInFailed(f"the server refused the sign-in: {why[:200]}"))
            return "200 OK", "The sign-in was refused; you may close this page."
        if not query.get("code"):
            return "400 Bad Request", "The sign-in came back without a code."
        self._result.set_result(AuthorizationCodeResult(code=query["code"], state=self.state, iss=query.get("iss")))
        return "200 OK", "Signed in to NeoCode; you may close this page."

    async def aclose(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with suppress(Exception):
                await server.wait_closed()
        self.sock.close()


class SignIn(OAuthClientProvider):
    """The SDK's provider, told whether the user is here to sign in (``interactive``), and
    reporting every failure of its flow (``on_problem``) so the connection can end at once:
    the transport only logs what an auth flow raises."""

    def __init__(
        self,
        url: str,
        store: SignInStore,
        *,
        interactive: bool,
        announce: Callable[[str], None],
        on_problem: Callable[[BaseException], None],
        on_waiting: Callable[[bool], None],
        sign_in_timeout: float = SIGN_IN_TIMEOUT,
    ) -> None:
        self.store = store
        self.interactive = interactive
        self.callback: Callback | None = None
        redirect = "http://127.0.0.1/callback"
        if interactive:
            registered = (store.client or {}).get("redirect_uris") or [""]
            port = urlparse(str(registered[0])).port or 0
            self.callback = Callback.bind(port)
            if self.callback.port != port and not (store.tokens or {}).get("refresh_token"):
                store.forget_client()  # registered for a port that is taken now: register again
            redirect = self.callback.redirect_uri
        metadata = OAuthClientMetadata(
            client_name="NeoCode", redirect_uris=[AnyUrl(redirect)],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none",
        )
        super().__init__(url, metadata, _Storage(store), self._redirect, self._callback)
        self._announce = announce
        self._on_problem = on_problem
        self._on_waiting = on_waiting
        self._timeout = sign_in_timeout

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self.store.expires_at

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        try:
            if not self.interactive and not self.store.signed_in:
                response = yield request  # nothing to register or refresh before the user asks
                if response.status_code == 401:
                    raise SignInNeeded()
                return
            flow = super().async_auth_flow(request)
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            self._on_problem(exc)
            raise

    async def _redirect(self, url: str) -> None:
        if self.callback is None:
            raise SignInNeeded()
        if urlparse(url).scheme not in ("http", "https"):
            raise SignInFailed("the server's sign-in page is not a web address")
        state = parse_qs(urlparse(url).query).get("state", [""])[0]
        await self.callback.expect(state)
        self._on_waiting(True)
        self._announce(url)

    async def _callback(self) -> AuthorizationCodeResult:
        assert self.callback is not None
        try:
            return await self.callback.wait(self._timeout)
        finally:
            self._on_waiting(False)
            await self.callback.aclose()  # one sign-in, one redirect: nothing listens after it

    async def aclose(self) -> None:
        if self.callback is not None:
            await self.callback.aclose()


def _listening(port: int) -> socket.socket:
    """A socket bound to 127.0.0.1, on ``port`` when it is free, else on any free one."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a last sign-in's TIME_WAIT
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
    return sock  # listening only from ``expect`` on: until then a connection is refused


def describe_problem(exc: BaseException) -> str:
    """A failed sign-in in a line."""
    if isinstance(exc, SignInFailed):
        return f"sign-in failed: {exc}"
    return f"sign-in failed: {str(exc)[:300] or type(exc).__name__}"



