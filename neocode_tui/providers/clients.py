"""The HTTP clients a provider sends with: one for ``https://`` and one for plain ``http://``.

Loading the certificate authorities into a TLS context is the most costly step of a start
(more than importing httpx), and a model on plain HTTP (a local server: Ollama, llama.cpp,
vLLM, a benchmark's mock) never uses them. So a plain-HTTP URL gets a client whose TLS
context trusts no one: it costs nothing to make, and should anything ever ask it for TLS
the handshake fails instead of trusting a certificate unchecked. An ``https://`` proxy in
front of a plain URL is not affected: httpx gives the proxy's TLS a context of its own.
"""

from __future__ import annotations

import ssl
from urllib.parse import urlsplit

import httpx


class Clients:
    """The clients made so far, by whether the URL is plain HTTP; ``shared`` (one per app,
    owned by its caller) serves every URL instead when given."""

    def __init__(self, shared: httpx.AsyncClient | None = None) -> None:
        self._shared = shared
        self._own: dict[bool, httpx.AsyncClient] = {}

    def for_url(self, url: str) -> httpx.AsyncClient:
        if self._shared is not None:
            return self._shared
        plain = urlsplit(url).scheme.lower() == "http"
        client = self._own.get(plain)
        if client is None:
            client = self._own[plain] = httpx.AsyncClient(verify=_trusting_no_one() if plain else True)
        return client

    async def aclose(self) -> None:
        """Closes the clients made here (a shared one is its owner's to close)."""
        own, self._own = list(self._own.values()), {}
        for client in own:
            await client.aclose()


def _trusting_no_one() -> ssl.SSLContext:
    """A client context that verifies certificates and host names, with no authority to
    verify them against: any handshake fails."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
