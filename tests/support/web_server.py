"""A real web server on a loopback address for the web_fetch tests: fixed pages by path,
and every request it got (path and headers), to show what reached it and what did not."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass
class Page:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})


@dataclass
class Request:
    path: str
    headers: dict[str, str]


class WebServer:
    """``async with WebServer("127.0.0.1") as server``: ``server.url`` is its root."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.pages: dict[str, Page] = {}
        self.requests: list[Request] = []
        self.url = ""

    async def __aenter__(self) -> WebServer:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        port = self._server.sockets[0].getsockname()[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{host}:{port}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1]
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            self.requests.append(Request(path, headers))
            page = self.pages.get(path, Page(b"not here", 404, {"Content-Type": "text/plain"}))
            out = [f"HTTP/1.1 {page.status} X", f"Content-Length: {len(page.body)}", "Connection: close"]
            out += [f"{name}: {value}" for name, value in page.headers.items()]
            writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + page.body)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
