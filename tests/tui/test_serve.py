"""``neocode serve``: the real server in a subprocess, the real app in headless Chromium.

Chromium is Debian's (``.ci/run`` installs it); Playwright drives it and never downloads a
browser. Only loopback is reached: the page's one outside request (a web font) is refused.
The app paints into a canvas, so what it shows is read from the websocket frames the
browser receives, the bytes xterm.js draws.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from neocode_tui.cli import build_parser
from neocode_tui.cli.serve import setting_argv

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ANSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|.)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def neocode(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    """``neocode`` in its own process group: the apps it serves go with it."""
    return subprocess.Popen(
        [sys.executable, "-m", "neocode_tui", *args], cwd=cwd, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )


def stop(process: subprocess.Popen[bytes]) -> str:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    output, _ = process.communicate(timeout=10)
    return output.decode("utf-8", "replace")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """The URL of a running ``neocode serve`` in an empty project folder."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    port = free_port()
    server = neocode("serve", "--port", str(port), cwd=workspace)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 20
    try:
        while True:
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"neocode serve did not answer:\n{stop(server)}") from None
                time.sleep(0.1)
        yield url
    finally:
        stop(server)


def test_serve_answers_http_with_the_app_page(served: str) -> None:
    page = httpx.get(served, timeout=5)
    assert page.status_code == 200
    assert 'class="textual-terminal"' in page.text
    assert f'data-session-websocket-url="ws://{served[len("http://"):]}ws"' in page.text
    script = httpx.get(f"{served}static/js/textual.js", timeout=5)
    assert script.status_code == 200 and "WebSocket" in script.text


def test_the_app_runs_in_a_browser_and_a_prompt_goes_through(served: str) -> None:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is missing: apt-get install -y chromium (.ci/run does)"
    received: list[bytes] = []

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
                lambda route: route.continue_() if route.request.url.startswith(served) else route.abort(),
            )
            page.on("websocket", lambda socket: socket.on("framereceived", received_frame))
            page.goto(served)
            page.wait_for_selector("body.-first-byte", timeout=30_000)

            def shows(text: str) -> bool:
                deadline = time.monotonic() + 30
                while text not in screen() and time.monotonic() < deadline:
                    page.wait_for_timeout(100)
                return text in screen()

            assert shows("type a task and press Enter"), screen()[-2000:]
            assert shows("No API key: this is the offline scripted model")
            page.focus("textarea.xterm-helper-textarea")
            page.keyboard.type("hello from the browser")
            page.keyboard.press("Enter")
            assert shows("You asked:"), screen()[-2000:]  # the offline model's answer
            assert "hello from the browser" in screen()
        finally:
            browser.close()


def test_the_served_app_gets_the_setting_flags_from_before_and_after_serve() -> None:
    args = build_parser().parse_args(["--model", "m1", "serve", "--port", "9000", "--approval", "full-auto"])
    assert setting_argv(args) == ["--model", "m1", "--approval", "full-auto"]


def test_a_bad_port_or_a_busy_one_is_refused_in_words(tmp_path: Path) -> None:
    bad = neocode("serve", "--port", "99999", cwd=tmp_path)
    assert bad.wait(timeout=30) == 2
    assert "'99999' is not a port (1-65535)" in stop(bad)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = neocode("serve", "--port", str(port), cwd=tmp_path)
        assert busy.wait(timeout=30) == 1
        output = stop(busy)
    assert f"neocode: cannot serve on 127.0.0.1:{port}: " in output
    assert "Traceback" not in output
