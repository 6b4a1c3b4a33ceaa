"""Who may use ``neocode serve``: the real server in a subprocess, asked by real HTTP and
websocket clients the way a browser, a hostile page, a DNS-rebinding site or another user of
the machine would ask."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import quote

import aiohttp
import psutil
import pytest

from neocode_tui.cli.serve.app import SHUTDOWN_SECONDS
from neocode_tui.cli.serve.guard import Addresses
from tests.support.first_run import first_run
from tests.support.serving import ANSI, Served, neocode, start_serve
from tests.support.waits import PATIENCE

READY = "type a task and press Enter"  # the app's first screen


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return first_run(tmp_path)


@pytest.fixture
def served(project: tuple[Path, dict[str, str]]) -> Iterator[Served]:
    served = start_serve(cwd=project[0], env=project[1])
    try:
        yield served
    finally:
        served.server.stop()


@pytest.fixture
async def browser() -> AsyncIterator[aiohttp.ClientSession]:
    """A client that keeps cookies, also those of an IP address (as browsers do)."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        yield session


async def log_in(browser: aiohttp.ClientSession, served: Served) -> None:
    async with browser.get(served.url, allow_redirects=False) as response:
        assert response.status == 303, await response.text()
        assert response.headers["Location"] == "/"
        cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert served.token not in cookie


async def refused_websocket(browser: aiohttp.ClientSession, url: str, **headers: str) -> int:
    """The status the handshake was refused with (an AssertionError if it was not)."""
    try:
        socket = await browser.ws_connect(url, headers=headers)
    except aiohttp.WSServerHandshakeError as refused:
        return refused.status
    await socket.close()
    raise AssertionError(f"{url} opened a websocket")


async def first_screen(socket: aiohttp.ClientWebSocketResponse) -> str:
    """What the app sends until its first screen is complete."""
    received = b""
    while READY not in ANSI.sub("", received.decode("utf-8", "replace")):
        message = await socket.receive(timeout=PATIENCE)
        assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
        if message.type is aiohttp.WSMsgType.BINARY:
            received += message.data
    return ANSI.sub("", received.decode("utf-8", "replace"))


def apps_of(served: Served) -> list[psutil.Process]:
    return psutil.Process(served.server.process.pid).children()


async def test_without_the_right_token_nothing_is_served_and_nothing_starts(
    served: Served, browser: aiohttp.ClientSession
) -> None:
    origin = {"Origin": served.base}
    for query in ("", "?token=wrong", f"?token={served.token[:-1]}"):
        async with browser.get(f"{served.base}/{query}") as page:
            assert page.status == 403
            assert "needs its token" in await page.text()
        assert await refused_websocket(browser, f"{served.base}/ws{query}", **origin) == 403
        async with browser.get(f"{served.base}/download/some-key{query}") as download:
            assert download.status == 403
    browser.cookie_jar.update_cookies({f"neocode-serve-{served.port}": served.token})
    assert await refused_websocket(browser, f"{served.base}/ws", **origin) == 403  # the token is no cookie
    assert apps_of(served) == []


async def test_the_printed_url_opens_the_app_and_its_output_arrives(
    served: Served, browser: aiohttp.ClientSession
) -> None:
    await log_in(browser, served)
    async with browser.get(f"{served.base}/") as page:
        assert page.status == 200
        assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in await page.text()
        assert page.headers["Referrer-Policy"] == "no-referrer"
    async with browser.ws_connect(f"{served.base}/ws?width=100&height=30", origin=served.base) as socket:
        assert " in project · type a task and press Enter" in await first_screen(socket)


async def test_another_sites_page_cannot_open_the_websocket_even_with_the_token(
    served: Served, browser: aiohttp.ClientSession
) -> None:
    await log_in(browser, served)
    other_port = f"http://127.0.0.1:{served.port + 1 if served.port < 65535 else 1}"
    for origin in ("http://evil.example", f"http://evil.example:{served.port}", other_port, "null",
                   f"https://127.0.0.1:{served.port}"):
        for url in (f"{served.base}/ws", f"{served.base}/ws?token={served.token}"):
            assert await refused_websocket(browser, url, Origin=origin) == 403, origin
        async with browser.get(f"{served.base}/", headers={"Origin": origin}) as page:
            assert page.status == 403 and "another site" in await page.text()
    assert apps_of(served) == []


def test_only_the_servers_own_names_are_answered(served: Served) -> None:
    """DNS rebinding: a site's name pointed at 127.0.0.1 still sends that name as the Host."""

    def status(host: str | None) -> int:
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=PATIENCE)
        try:
            connection.putrequest("GET", f"/?token={served.token}", skip_host=True)
            if host is not None:
                connection.putheader("Host", host)
            connection.endheaders()
            return connection.getresponse().status
        finally:
            connection.close()

    port = served.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert status(host) == 303, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", "127.0.0.1",
                 f"127.0.0.1.evil.example:{port}", f"user@127.0.0.1:{port}", f"127.0.0.1:{port}/x",
                 ""):
        assert status(host) == 403, host
    assert status(None) == 400  # HTTP/1.1 without a Host: aiohttp refuses it first


async def test_a_rebound_name_cannot_open_the_websocket(
    served: Served, browser: aiohttp.ClientSession
) -> None:
    await log_in(browser, served)
    evil = f"evil.example:{served.port}"
    status = await refused_websocket(
        browser, f"{served.base}/ws?token={served.token}", Host=evil, Origin=f"http://{evil}"
    )
    assert status == 403
    assert await refused_websocket(browser, f"{served.base}/ws", Host=evil) == 403
    assert apps_of(served) == []


def test_listening_everywhere_answers_to_addresses_but_not_to_other_names() -> None:
    everywhere = Addresses("0.0.0.0", 8000)
    assert everywhere.allows_host("192.168.1.20:8000") and everywhere.allows_host("[fe80::1]:8000")
    assert not everywhere.allows_host("evil.example:8000")
    assert not everywhere.allows_host("192.168.1.20:8001")
    named = Addresses("devbox.lan", 8000)
    assert named.allows_host("devbox.lan:8000") and named.allows_origin("http://devbox.lan:8000")
    assert not named.allows_host("192.168.1.20:8000")
    assert Addresses("::1", 80).allows_origin("http://[::1]")  # the default port goes unsaid


async def test_past_max_sessions_a_tab_is_refused_and_no_app_starts(
    project: tuple[Path, dict[str, str]], browser: aiohttp.ClientSession
) -> None:
    served = start_serve("--max-sessions", "1", cwd=project[0], env=project[1])
    try:
        await log_in(browser, served)
        async with browser.ws_connect(f"{served.base}/ws", origin=served.base) as socket:
            await first_screen(socket)
            assert await refused_websocket(browser, f"{served.base}/ws", Origin=served.base) == 503
            async with browser.get(f"{served.base}/") as page:
                assert page.status == 503
                assert "in use (1, set by neocode serve --max-sessions)" in await page.text()
            assert len(apps_of(served)) == 1
    finally:
        served.server.stop()


async def test_the_token_is_on_no_command_line_and_in_no_apps_environment_and_its_file_is_private(
    project: tuple[Path, dict[str, str]], browser: aiohttp.ClientSession
) -> None:
    workspace, env = project
    served = start_serve(cwd=workspace, env=env, umask=0)  # the file's mode must not come from it
    saved = Path(env["NEOCODE_DATA_DIR"]) / "serve" / f"{served.port}.url"
    try:
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
        assert saved.read_text() == f"{served.url}\n"
        served.server.wait_for(re.compile(re.escape(f"It is saved in {saved} (only you can read it)")))
        await log_in(browser, served)
        async with browser.ws_connect(f"{served.base}/ws", origin=served.base) as socket:
            await first_screen(socket)  # the app is running
            server = psutil.Process(served.server.process.pid)
            assert served.token.encode() not in Path(f"/proc/{server.pid}/cmdline").read_bytes()
            apps = server.children(recursive=True)
            assert any("neocode_tui" in " ".join(app.cmdline()) for app in apps)
            for app in apps:
                for what in ("cmdline", "environ"):
                    assert served.token.encode() not in Path(f"/proc/{app.pid}/{what}").read_bytes()
    finally:
        served.server.stop()
    assert not saved.exists()


async def test_a_token_set_in_the_environment_is_required_and_not_passed_on(
    project: tuple[Path, dict[str, str]], browser: aiohttp.ClientSession
) -> None:
    workspace, env = project
    chosen = "correct horse battery staple"
    served = start_serve(cwd=workspace, env={**env, "NEOCODE_SERVE_TOKEN": chosen})
    try:
        assert served.token == chosen
        async with browser.get(f"{served.base}/?token=correct+horse") as page:
            assert page.status == 403
        await log_in(browser, served)
        async with aiohttp.ClientSession() as script:  # no cookie, no Origin: the token alone
            url = f"{served.base}/ws?token={quote(chosen)}"
            async with script.ws_connect(url) as socket:
                await first_screen(socket)
                for app in psutil.Process(served.server.process.pid).children(recursive=True):
                    environment = Path(f"/proc/{app.pid}/environ").read_bytes()
                    assert b"NEOCODE_SERVE_TOKEN" not in environment
                    assert chosen.encode() not in environment
    finally:
        served.server.stop()


def test_a_short_token_is_refused_in_words(project: tuple[Path, dict[str, str]]) -> None:
    workspace, env = project
    short = neocode("serve", cwd=workspace, env={**env, "NEOCODE_SERVE_TOKEN": "hunter2"})
    assert short.process.wait(timeout=PATIENCE) == 2
    output = short.stop()
    assert "neocode: NEOCODE_SERVE_TOKEN must be at least 16 characters" in output
    assert "Traceback" not in output


OTHER_USER = """
import http.client, json, sys
port, saved, patience = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
try:
    open(saved).read()
    read = "read"
except PermissionError:
    read = "denied"
def status(path, **headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=patience)
    connection.request("GET", path, headers=headers)
    return connection.getresponse().status
upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
print(json.dumps({"file": read, "page": status("/"), "websocket": status("/ws", **upgrade)}))
"""


def test_another_user_of_the_machine_cannot_read_the_token_and_is_refused(
    project: tuple[Path, dict[str, str]],
) -> None:
    """As root, a client runs as ``nobody``; elsewhere only the modes that keep it out are shown."""
    workspace, env = project
    data = Path(tempfile.mkdtemp(prefix="neocode-serve-data-"))  # others may walk in, not pytest's
    data.chmod(0o755)
    served = start_serve(cwd=workspace, env={**env, "NEOCODE_DATA_DIR": str(data)})
    try:
        saved = data / "serve" / f"{served.port}.url"
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
        if os.geteuid() == 0:
            other = subprocess.run(
                ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                 sys.executable, "-I", "-c", OTHER_USER, str(served.port), str(saved), str(PATIENCE)],
                cwd="/", capture_output=True, text=True, timeout=PATIENCE,
            )
            assert json.loads(other.stdout) == {"file": "denied", "page": 403, "websocket": 403}, other.stderr
            assert apps_of(served) == []
    finally:
        served.server.stop()
        shutil.rmtree(data, ignore_errors=True)


async def test_stopping_the_server_ends_its_tabs_apps_and_removes_the_saved_url(
    served: Served, browser: aiohttp.ClientSession, project: tuple[Path, dict[str, str]]
) -> None:
    saved = Path(project[1]["NEOCODE_DATA_DIR"]) / "serve" / f"{served.port}.url"
    await log_in(browser, served)
    async with browser.ws_connect(f"{served.base}/ws", origin=served.base) as socket:
        await first_screen(socket)
        apps = psutil.Process(served.server.process.pid).children(recursive=True)
        os.kill(served.server.process.pid, signal.SIGTERM)  # the server only, as a service manager does
        # Each tab is closed and its app told to quit, not left until aiohttp's shutdown timeout.
        async with asyncio.timeout(SHUTDOWN_SECONDS - 1):
            async for _ in socket:  # the tab answers the server's close, as a browser does
                pass
            assert await asyncio.to_thread(served.server.process.wait, 60) == 0
    assert psutil.wait_procs(apps, timeout=PATIENCE)[1] == []
    assert not saved.exists()
    assert "Traceback" not in served.server.stop()
