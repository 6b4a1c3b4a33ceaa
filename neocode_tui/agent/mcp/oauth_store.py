"""Where an MCP server's OAuth sign-in is kept: one file per server URL in the user's data
folder (``mcp-oauth/``), 0600 in a 0700 folder, written whole or not at all.

The file holds the tokens, when the access token expires (the SDK only knows a token's
lifetime from the response that brought it, so a later run would never refresh it), and
the client the authorization server registered for NeoCode. Every value read or written is
handed to the session's secrets holder, so a server or tool that echoes one is scrubbed.
This module is plain JSON: it is read at every start, and must not import the SDK.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from neocode_tui.known_secrets import Secrets
from neocode_tui.paths import data_dir, write_private

FOLDER = "mcp-oauth"
SECRET_FIELDS = ("access_token", "refresh_token", "client_secret")


def uses_oauth(headers: dict[str, str]) -> bool:
    """A server configured with its own Authorization header is not signed in to."""
    return not any(name.lower() == "authorization" for name in headers)


def token_file(url: str) -> Path:
    """The file of ``url``: named by a hash, so a URL never becomes a path."""
    return data_dir() / FOLDER / f"{hashlib.sha256(url.encode()).hexdigest()[:32]}.json"


class SignInStore:
    """The stored sign-in of one server URL, as plain dicts (the SDK's models are made
    from them in ``oauth``, which may import the SDK)."""

    def __init__(self, url: str, secrets: Secrets) -> None:
        self.url = url
        self.path = token_file(url)
        self.secrets = secrets
        self._data = self._read()
        self._learn(self._data)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("url") != self.url:
            return {}  # another URL's file (a hash collision) or a broken one: start over
        return data

    def _learn(self, data: dict[str, Any]) -> None:
        found = [part.get(name) for part in (data.get("tokens"), data.get("client"))
                 if isinstance(part, dict) for name in SECRET_FIELDS]
        self.secrets.add(value for value in found if isinstance(value, str))

    @property
    def tokens(self) -> dict[str, Any] | None:
        tokens = self._data.get("tokens")
        return tokens if isinstance(tokens, dict) else None

    @property
    def client(self) -> dict[str, Any] | None:
        client = self._data.get("client")
        return client if isinstance(client, dict) else None

    @property
    def expires_at(self) -> float | None:
        expires = self._data.get("expires_at")
        return float(expires) if isinstance(expires, int | float) else None

    @property
    def signed_in(self) -> bool:
        return self.tokens is not None

    def set_tokens(self, tokens: dict[str, Any]) -> None:
        lifetime = tokens.get("expires_in")
        expires = time.time() + lifetime if isinstance(lifetime, int | float) else None
        self._save({**self._data, "tokens": tokens, "expires_at": expires})

    def set_client(self, client: dict[str, Any]) -> None:
        self._save({**self._data, "client": client})

    def forget_client(self) -> None:
        """A new registration is needed (its redirect port is taken): the tokens stay."""
        self._data = {key: value for key, value in self._data.items() if key != "client"}

    def forget(self) -> None:
        """Sign out: the tokens and the registration go."""
        self._data = {}
        self.path.unlink(missing_ok=True)

    def _save(self, data: dict[str, Any]) -> None:
        self._learn(data)
        self._data = {**data, "url": self.url}
        write_private(self.path, json.dumps(self._data, indent=1).encode())
