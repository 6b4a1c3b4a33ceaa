"""Signing out of an MCP server: the stored tokens are revoked where they were issued.

Forgetting the tokens here is not enough: a refresh token copied before would still work.
So, when the server's authorization server offers token revocation (RFC 7009, found through
the same metadata the sign-in used: RFC 9728, then RFC 8414), the refresh token and the
access token are revoked there first. They are sent only to that authorization server's own
origin, never to another host its metadata might name. Whatever happens there, the caller
forgets the tokens; this says what could not be done.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import httpx2
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    handle_auth_metadata_response,
    handle_protected_resource_response,
)
from mcp.shared.auth import OAuthMetadata

from neocode_tui.agent.mcp.oauth_store import SignInStore

TIMEOUT = 10.0


async def revoke(url: str, store: SignInStore) -> str | None:
    """Revoke ``store``'s tokens at the authorization server of the MCP server at ``url``;
    None when done (or there was nothing to revoke), else what went wrong, in words."""
    tokens, client = store.tokens, store.client
    if not tokens or not client or not isinstance(client.get("client_id"), str):
        return None
    async with httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http:
        try:
            metadata = await _authorization_server(http, url)
            if metadata is None or metadata.revocation_endpoint is None:
                return "its authorization server offers no revocation: the tokens are forgotten here only"
            endpoint = str(metadata.revocation_endpoint)
            if _origin(endpoint) != _origin(str(metadata.issuer)):
                return "its revocation endpoint is on another host: the tokens were not sent there"
            for name in ("refresh_token", "access_token"):
                token = tokens.get(name)
                if isinstance(token, str) and token:
                    status = await _revoke_one(http, endpoint, _form(token, name, client), _basic(client))
                    if status != 200:
                        return f"revoking its {name.replace('_', ' ')} failed (HTTP {status})"
        except httpx2.HTTPError as exc:
            return f"its authorization server could not be reached: {type(exc).__name__}"
    return None


async def _revoke_one(http: httpx2.AsyncClient, endpoint: str, form: dict[str, str],
                      basic: tuple[str, str] | None) -> int:
    """The revocation's HTTP status. A public client sends no secret (RFC 7009); the MCP
    SDK's own authorization server still asks for the field, so a 400 is asked once more
    with it empty."""
    response = await http.post(endpoint, data=form, auth=basic or httpx2.USE_CLIENT_DEFAULT)
    if response.status_code == 400 and "client_secret" not in form:
        response = await http.post(endpoint, data={**form, "client_secret": ""},
                                   auth=basic or httpx2.USE_CLIENT_DEFAULT)
    return response.status_code


async def _authorization_server(http: httpx2.AsyncClient, url: str) -> OAuthMetadata | None:
    issuer: str | None = None
    for candidate in build_protected_resource_metadata_discovery_urls(None, url):
        resource = await handle_protected_resource_response(await http.get(candidate))
        if resource is not None and resource.authorization_servers:
            issuer = str(resource.authorization_servers[0])
            break
    for candidate in build_oauth_authorization_server_metadata_discovery_urls(issuer, url):
        go_on, metadata = await handle_auth_metadata_response(await http.get(candidate))
        if metadata is not None or not go_on:
            return metadata
    return None


def _form(token: str, hint: str, client: dict[str, Any]) -> dict[str, str]:
    form = {"token": token, "token_type_hint": hint, "client_id": client["client_id"]}
    secret = client.get("client_secret")
    if isinstance(secret, str) and client.get("token_endpoint_auth_method") != "client_secret_basic":
        form["client_secret"] = secret
    return form


def _basic(client: dict[str, Any]) -> tuple[str, str] | None:
    secret = client.get("client_secret")
    if isinstance(secret, str) and client.get("token_endpoint_auth_method") == "client_secret_basic":
        return client["client_id"], secret
    return None


def _origin(url: str) -> tuple[str, str]:
    parsed = urlparse(url)
    return parsed.scheme, parsed.netloc
