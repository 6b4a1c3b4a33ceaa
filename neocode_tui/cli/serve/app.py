"""The web application ``neocode serve`` runs: textual-serve's page, websocket and downloads
behind the guard, and a loop that says where it is served only once it listens.

textual-serve's own ``Server.serve`` is not used: it prints its address before it binds, logs
every request line (the token with it) and builds the page's websocket URL from the address it
listens on, not the name the browser used (a tab on ``localhost`` would lose its cookie).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server, to_int

from neocode_tui.cli.serve.guard import Guard

SHUTDOWN_SECONDS = 10.0  # for the apps to quit once told to
KEYS_SCRIPT = Path(__file__).with_name("keys.js")
"""What the page adds to textual-serve's: keys xterm.js does not tell apart (Shift+Enter)."""


def build_app(server: Server, guard: Guard) -> web.Application:
    app = web.Application(middlewares=[guard.middleware])
    aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(server.templates_path))
    app.on_response_prepare.append(guard.add_safety_headers)

    async def index(request: web.Request) -> web.StreamResponse:
        if (full := guard.full()) is not None:
            return full
        context: dict[str, Any] = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            # The Host header passed the guard: it is one of this server's names.
            "app_websocket_url": f"ws://{request.headers['Host']}/ws",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": server.title},
        }
        page = aiohttp_jinja2.render_template("app_index.html", request, context)
        assert isinstance(page.text, str)
        page.text = page.text.replace("<script ", '<script src="/neocode/keys.js"></script>\n    <script ', 1)
        return page

    async def keys(_: web.Request) -> web.StreamResponse:
        return web.FileResponse(KEYS_SCRIPT, headers={"Content-Type": "text/javascript"})

    sessions: set[asyncio.Task[Any]] = set()

    async def websocket(request: web.Request) -> web.StreamResponse:
        if (full := guard.full()) is not None:
            return full  # before the handshake: no app process is started
        guard.sessions += 1
        session = asyncio.current_task()
        assert session is not None
        sessions.add(session)
        try:
            return await server.handle_websocket(request)
        finally:
            sessions.discard(session)
            guard.sessions -= 1

    async def end_sessions(_: web.Application) -> None:
        """On the way out, each tab's socket is closed and its app told to quit (textual-serve
        does both when its handler is cancelled) instead of waiting for the browser to leave."""
        for session in list(sessions):
            session.cancel()

    app.on_shutdown.append(end_sessions)

    app.add_routes([
        web.get("/", index, name="index"),
        web.get("/ws", websocket, name="websocket"),
        web.get("/neocode/keys.js", keys, name="keys"),
        web.get("/download/{key}", server.handle_download, name="download"),
        web.static("/static", server.statics_path, name="static"),
    ])
    return app


async def serve_until_stopped(app: web.Application, host: str, port: int,
                              listening: Callable[[], None]) -> None:
    """Serve until SIGINT, SIGTERM or SIGHUP; ``listening`` runs once the port is bound (an
    ``OSError`` when it cannot be)."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_SECONDS)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, stopped.set)
        listening()
        await stopped.wait()
    finally:
        await runner.cleanup()

