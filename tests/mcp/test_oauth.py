"""OAuth for a streamable-HTTP server that asks for it: the test server is its own
authorization server (``servers/oauth_server.py``) and approves at once, so the test plays
the browser with one GET of the announced sign-in page."""

from __future__ import annotations

import asyncio
import json
import shlex
import stat
import subprocess
import sys
import time
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from neocode_tui.agent.mcp import McpManager, status_text
from neocode_tui.agent.mcp.manager import UnknownServer
from neocode_tui.agent.mcp.oauth_store import token_file
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Type
from tests.support.dialects import Dialect
from tests.support.headless import neocode, start
from tests.support.mcp_config import user_config, write_config
from tests.support.mcp_launch import ROOT
from tests.support.waits import PATIENCE, screen_shows, started, wait_until

ANNOUNCED = "sign in to the MCP server remote in your browser: "


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The server's URL, and the file it notes each grant in."""
    yield from _oauth_server(tmp_path)


@pytest.fixture
def oauth_server_without_revocation(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from _oauth_server(tmp_path, "--no-revocation")


def _oauth_server(tmp_path: Path, *flags: str) -> Iterator[tuple[str, Path]]:
    record = tmp_path / "grants.jsonl"
    record.touch()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_servers.oauth_server", str(record), *flags],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    try:
        yield f"http://127.0.0.1:{port}/mcp", record
    finally:
        process.kill()
        process.wait()


def grants(record: Path) -> list[str]:
    return [json.loads(line)["event"] for line in record.read_text().splitlines()]


async def play_browser(url: str) -> httpx.Response:
    """What the user's browser does with the sign-in page: follows it back to NeoCode."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=PATIENCE) as browser:
        return await browser.get(url)


async def sign_in(manager: McpManager, told: list[str]) -> None:
    """``/mcp login remote``, the browser played, until the sign-in is told."""
    waiting = await manager.login("remote")
    assert waiting.state == "connecting"
    assert (await play_browser(told[-1].split(ANNOUNCED)[1])).status_code == 200
    await manager.wait_ready()
    await wait_until(lambda: told[-1] == "signed in to the MCP server remote", what="the sign-in told")


async def wrong_state_is_refused(url: str) -> None:
    """A page that sends the browser to the callback with a code of its own is refused."""
    redirect = parse_qs(urlparse(url).query)["redirect_uri"][0]
    async with httpx.AsyncClient(timeout=PATIENCE) as browser:
        refused = await browser.get(redirect, params={"code": "attacker-code", "state": "guessed"})
        missing = await browser.get(redirect, params={"code": "attacker-code"})
    assert refused.status_code == missing.status_code == 400
    assert "not the sign-in NeoCode is waiting for" in refused.text


async def test_a_headless_run_signs_in_once_then_reuses_and_refreshes_the_token(
    openai_only: Dialect, workspace: Path, isolated_user: Path, oauth_server: tuple[str, Path]
) -> None:
    url, record = oauth_server
    user_config({"remote": {"type": "http", "url": url}})
    openai_only.reply("", [("w1", "mcp__remote__whoami", "{}")])
    openai_only.reply("Signed in.")
    process = await start(openai_only, workspace, "-p", "who am I?", "--approval", "full-auto")
    assert process.stderr is not None and process.stdout is not None
    seen: list[str] = []
    while not any(ANNOUNCED in line for line in seen):
        line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        assert line, "".join(seen)
        seen.append(line)
    page = next(line for line in seen if ANNOUNCED in line).split(ANNOUNCED)[1].strip()

    await wrong_state_is_refused(page)
    answer = await play_browser(page)
    assert answer.status_code == 200 and "Signed in to NeoCode" in answer.text
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()
    assert out.decode() == "Signed in.\n"
    assert grants(record) == ["register", "authorize", "code"]
    assert openai_only.tool_results(2)["w1"] == "authorization: Bearer [redacted]"

    stored = token_file(url)
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    tokens = json.loads(stored.read_text())["tokens"]
    sessions = "".join(p.read_text() for p in (isolated_user / "data").rglob("*.jsonl"))
    sent = json.dumps([request.json for request in openai_only.server.requests])
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert secret not in sessions + sent + out.decode() + err.decode() + "".join(seen)

    openai_only.reply("", [("e1", "mcp__remote__echo", '{"text": "again"}')])
    openai_only.reply("Still signed in.")
    again = await neocode(openai_only, workspace, "-p", "echo", "--approval", "full-auto")
    assert (again.code, again.out) == (0, "Still signed in.\n"), again.err
    assert ANNOUNCED not in again.err
    assert grants(record) == ["register", "authorize", "code"]  # no new sign-in
    assert openai_only.tool_results(4)["e1"] == "again"

    expired = json.loads(stored.read_text())
    stored.write_text(json.dumps({**expired, "expires_at": time.time() - 60}))
    openai_only.reply("", [("e2", "mcp__remote__echo", '{"text": "refreshed"}')])
    openai_only.reply("Refreshed.")
    third = await neocode(openai_only, workspace, "-p", "echo", "--approval", "full-auto")
    assert (third.code, third.out) == (0, "Refreshed.\n"), third.err
    assert grants(record) == ["register", "authorize", "code", "refresh"]
    assert json.loads(stored.read_text())["tokens"]["access_token"] != tokens["access_token"]
    assert openai_only.tool_results(6)["e2"] == "refreshed"


async def test_a_server_that_asks_waits_for_login_and_logout_forgets_it(
    workspace: Path, managers: list[McpManager], oauth_server: tuple[str, Path]
) -> None:
    url, record = oauth_server
    user_config({"remote": {"type": "http", "url": url}})
    told: list[str] = []
    reported: list[str] = []
    manager = McpManager(workspace, connect_timeout=PATIENCE, inform=told.append, report=reported.append)
    managers.append(manager)
    manager.start()
    await manager.wait_ready()
    listing = status_text(manager.status(), [])
    assert "remote (user mcp.json): needs sign-in: the server asks you to sign in: /mcp login remote" in listing
    assert grants(record) == []  # nothing registered before the user asks
    assert told == ["the MCP server remote asks you to sign in: /mcp login remote"]

    await sign_in(manager, told)
    assert "remote (user mcp.json): connected, signed in, 2 tools: echo, whoami" in status_text(manager.status(), [])

    tokens = json.loads(token_file(url).read_text())["tokens"]
    out = await manager.logout("remote")
    assert (out.state, out.signed_in) == ("needs sign-in", False)
    assert not token_file(url).exists()
    # revoked where they were issued, not only forgotten here: a copy no longer works
    assert [json.loads(line) for line in record.read_text().splitlines()][-2:] == [
        {"event": "revoke", "kind": "refresh"}, {"event": "revoke", "kind": "access"}]
    assert reported == []
    async with httpx.AsyncClient(timeout=PATIENCE) as client:
        refused = await client.post(url, headers={"authorization": f"Bearer {tokens['access_token']}"},
                                    json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert refused.status_code == 401


async def test_signing_out_of_a_server_that_cannot_revoke_forgets_here_and_says_so(
    workspace: Path, managers: list[McpManager], oauth_server_without_revocation: tuple[str, Path]
) -> None:
    url, record = oauth_server_without_revocation
    user_config({"remote": {"type": "http", "url": url}})
    told: list[str] = []
    reported: list[str] = []
    manager = McpManager(workspace, connect_timeout=PATIENCE, inform=told.append, report=reported.append)
    managers.append(manager)
    manager.start()
    await manager.wait_ready()
    await sign_in(manager, told)

    out = await manager.logout("remote")
    assert (out.state, out.signed_in) == ("needs sign-in", False)
    assert not token_file(url).exists()
    assert "revoke" not in grants(record)
    assert reported == ["signed out of the MCP server remote, but its authorization server offers "
                        "no revocation: the tokens are forgotten here only"]


async def test_a_server_with_its_own_authorization_header_is_not_signed_in_to(
    workspace: Path, managers: list[McpManager], oauth_server: tuple[str, Path]
) -> None:
    url, record = oauth_server
    user_config({"remote": {"type": "http", "url": url, "headers": {"Authorization": "Bearer not-issued-here"}}})
    manager = McpManager(workspace, connect_timeout=PATIENCE)
    managers.append(manager)
    manager.start(sign_in=True)
    await manager.wait_ready()
    status = manager.status()[0]
    assert status.state == "failed"  # its 401 is an error, not a sign-in page
    assert grants(record) == []
    with pytest.raises(UnknownServer, match="only an HTTP server without a configured Authorization header"):
        await manager.login("remote")


async def test_an_untrusted_folder_s_server_is_never_asked(
    workspace: Path, managers: list[McpManager], oauth_server: tuple[str, Path]
) -> None:
    url, record = oauth_server
    write_config(workspace / ".mcp.json", {"remote": {"type": "http", "url": url}})
    manager = McpManager(workspace, connect_timeout=PATIENCE)
    managers.append(manager)
    manager.start(sign_in=True)
    await manager.wait_ready()
    assert manager.status()[0].state == "not started"
    with pytest.raises(UnknownServer, match="remote is not started: this folder is not trusted"):
        await manager.login("remote")
    assert grants(record) == []


async def test_the_app_says_a_server_asks_and_login_opens_the_browser(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, oauth_server: tuple[str, Path]
) -> None:
    url, record = oauth_server
    user_config({"remote": {"type": "http", "url": url}})
    opened = tmp_path / "opened.txt"
    recorder = f"import sys; open({str(opened)!r}, 'w').write(sys.argv[1])"
    monkeypatch.setenv("BROWSER", f"{shlex.quote(sys.executable)} -c {shlex.quote(recorder)} %s")
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read $BROWSER afresh
    app = NeoCodeApp(Settings(provider="scripted"), None, workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await screen_shows(app, pilot, "the MCP server remote asks you to sign in: /mcp login remote")
        await Driver(pilot).play([Type("/mcp login remote")])
        await pilot.press("enter")
        await wait_until(lambda: opened.exists() and opened.read_text() != "", pause=pilot.pause,
                         what="the browser")
        await screen_shows(app, pilot, "sign in to the MCP server remote in your browser")
        assert (await play_browser(opened.read_text())).status_code == 200
        await screen_shows(app, pilot, "signed in to the MCP server remote")
    assert grants(record) == ["register", "authorize", "code"]
