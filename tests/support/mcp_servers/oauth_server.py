"""A streamable-HTTP MCP server that asks for OAuth, built with the SDK's server-side auth.

Run as ``python -m tests.support.mcp_servers.oauth_server RECORD [--no-revocation]``: it binds 127.0.0.1 on a free
port and prints the port on its first line. It is its own authorization server (metadata,
dynamic client registration, PKCE, refresh) and a resource server that answers ``/mcp`` only
with a bearer token it issued. Its ``/authorize`` approves at once and redirects to the
client's redirect URI, so a test can play the browser with one GET. Each grant is appended
to ``RECORD`` as a JSON line (``register``, ``authorize``, ``code``, ``refresh``, ``revoke``).
"""

from __future__ import annotations

import json
import secrets
import socket
import sys
import time

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

LIFETIME = 3600


class Provider:
    """Everything in memory: a restarted server knows no client and no token."""

    def __init__(self, record: str) -> None:
        self.record = record
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def _note(self, event: str, **details: object) -> None:
        with open(self.record, "a", encoding="utf-8") as log:
            log.write(json.dumps({"event": event, **details}) + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self._note("register", client_id=client_info.client_id)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300,
            client_id=client.client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self._note("authorize", redirect_uri=str(params.redirect_uri))
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self._note("code")
        return self._issue(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        self._note("refresh")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        return found if found is not None and (found.expires_at or 0) > time.time() else None

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)
        self._note("revoke", kind="refresh" if isinstance(token, RefreshToken) else "access")

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + LIFETIME)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(access_token=access, expires_in=LIFETIME, refresh_token=refresh,
                          scope=" ".join(scopes) or None)


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "test-oauth",
        auth_server_provider=Provider(sys.argv[1]),
        auth=AuthSettings(
            issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(enabled=True),
            revocation_options=RevocationOptions(enabled="--no-revocation" not in sys.argv),
        ),
    )

    @server.tool()
    def echo(text: str) -> str:
        """Returns ``text``."""
        return text

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The Authorization header this request came with (a server that echoes it)."""
        headers = ctx.headers or {}
        return f"authorization: {headers.get('authorization', '(none)')}"

    print(port, flush=True)
    uvicorn.Server(uvicorn.Config(server.streamable_http_app(), log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
