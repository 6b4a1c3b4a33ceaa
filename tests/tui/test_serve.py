"""``neocode serve``: the real server in a subprocess, the real app in headless Chromium.

Chromium is Debian's (``.ci/run`` installs it); Playwright drives it and never downloads a
browser. Only loopback is reached: the page's one outside request (a web font) is refused.
The app paints into a canvas, so what it shows is read from the websocket frames the
browser receives, the bytes xterm.js draws.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from neocode_tui.cli import build_parser
from neocode_tui.cli.serve.command import setting_argv
from tests.support.first_run import first_run
from tests.support.serving import ANSI, Served, neocode, start_serve
from tests.support.waits import PATIENCE

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A running ``neocode serve`` in an empty project folder."""
    workspace, env = first_run(tmp_path)
    served = start_serve(cwd=workspace, env=env)
    try:
        yield served
    finally:
        served.server.stop()


def test_serve_answers_http_with_the_app_page(served: Served) -> None:
    page = httpx.get(served.url, timeout=PATIENCE, follow_redirects=True)
    assert page.status_code == 200
    assert 'class="textual-terminal"' in page.text
    assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in page.text
    script = httpx.get(f"{served.base}/static/js/textual.js", timeout=PATIENCE)
    assert script.status_code == 200 and "WebSocket" in script.text


def test_the_app_runs_in_a_browser_and_a_prompt_goes_through(served: Served) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import WebSocket, sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is missing: apt-get install -y chromium (.ci/run does)"
    received: list[bytes] = []
    sockets: list[WebSocket] = []

    def opened(socket: WebSocket) -> None:
        sockets.append(socket)
        socket.on("framereceived", received_frame)

    def received_frame(data: bytes | str) -> None:
        received.append(data if isinstance(data, bytes) else data.encode())

    def screen() -> str:
        return ANSI.sub("", b"".join(received).decode("utf-8", "replace"))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.route(
                "**/*",
                lambda route: route.continue_() if route.request.url.startswith(served.base) else route.abort(),
            )
            page.on("websocket", opened)
            page.goto(served.url)  # the cookie, then the page without the token
            assert page.url == f"{served.base}/"
            page.wait_for_selector("body.-first-byte", timeout=PATIENCE * 1000)

            def shows(text: str) -> bool:
                """Whether ``text`` is on screen, or comes within ``PATIENCE`` s of frames."""
                if text not in screen():
                    try:
                        sockets[0].wait_for_event(
                            "framereceived", predicate=lambda _: text in screen(), timeout=PATIENCE * 1000
                        )
                    except PlaywrightTimeout:
                        return False
                return True

            assert shows("type a task and press Enter"), screen()[-2000:]
            assert shows("No API key: this is the offline scripted model")
            page.focus("textarea.xterm-helper-textarea")
            page.keyboard.type("hello from")
            page.keyboard.press("Shift+Enter")  # a new line, as the key help says: not sent
            page.keyboard.type("the browser")
            assert shows("│ the browser"), screen()[-2000:]  # the prompt's second line
            assert "› hello from" not in screen()  # the first line was not sent on its own
            page.keyboard.press("Enter")
            assert shows("You asked:"), screen()[-2000:]  # the offline model's answer
            assert "› hello from" in screen()
        finally:
            browser.close()


def test_the_served_app_gets_the_setting_flags_from_before_and_after_serve() -> None:
    args = build_parser().parse_args(["--model", "m1", "serve", "--port", "9000", "--approval", "full-auto"])
    assert setting_argv(args) == ["--model", "m1", "--approval", "full-auto"]


def test_a_bad_port_or_a_busy_one_is_refused_in_words(tmp_path: Path) -> None:
    bad = neocode("serve", "--port", "99999", cwd=tmp_path)
    assert bad.process.wait(timeout=PATIENCE) == 2
    assert "'99999' is not a port (1-65535)" in bad.stop()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = neocode("serve", "--port", str(port), cwd=tmp_path)
        assert busy.process.wait(timeout=PATIENCE) == 1
        output = busy.stop()
    assert f"neocode: cannot serve on 127.0.0.1:{port}: " in output
    assert "Traceback" not in output
