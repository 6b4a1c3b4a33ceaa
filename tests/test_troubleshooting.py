"""What docs/troubleshooting.md says about certificates and proxies, done for
real: ``neocode -p`` in a subprocess, a model server behind TLS with a private certificate
authority, and an HTTPS proxy (CONNECT) on 127.0.0.1 in front of it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.support.model_server import ModelServer, Response
from tests.support.sse import openai_turn
from tests.support.waits import PATIENCE

NEOCODE = str(Path(sys.executable).parent / "neocode")
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1: the private CA of a company's server. Made
    once for the module: no test writes to it, and a 2048-bit key costs a fair part of a test."""
    folder = tmp_path_factory.mktemp("ca")
    cert, key = folder / "ca.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", key, "-out", cert],
        check=True, capture_output=True, timeout=PATIENCE,
    )
    return cert, key


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, asyncio.CancelledError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.close()


async def _join(client: tuple[asyncio.StreamReader, asyncio.StreamWriter], host: str, port: int) -> None:
    upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
    await asyncio.gather(_pipe(client[0], upstream_writer), _pipe(upstream_reader, client[1]))


@contextlib.asynccontextmanager
async def serving(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=tls)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


@contextlib.asynccontextmanager
async def behind_tls(model: ModelServer, certificate: tuple[Path, Path]) -> AsyncIterator[str]:
    """The model server's plain HTTP behind TLS: yields the ``https://`` base URL."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    port = int(model.url.rsplit(":", 1)[1])

    async def terminate(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _join((reader, writer), "127.0.0.1", port)

    async with serving(terminate, context) as tls_port:
        yield f"https://127.0.0.1:{tls_port}/v1"


@contextlib.asynccontextmanager
async def connect_proxy(seen: list[str]) -> AsyncIterator[str]:
    """An HTTPS proxy as companies run them: CONNECT host:port, then a tunnel."""

    async def tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        method, target, _ = head.split(" ", 2)
        seen.append(f"{method} {target}")
        host, port = target.rsplit(":", 1)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await _join((reader, writer), host, int(port))

    async with serving(tunnel) as port:
        yield f"http://127.0.0.1:{port}"


async def neocode(cwd: Path, base_url: str, **env: str) -> tuple[int, str, str]:
    """``neocode -p hi`` with no proxy or CA settings of the machine's, only ``env``'s."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.lower().endswith("_proxy") and not name.startswith("SSL_CERT")}
    environment.update(NEOCODE_PROVIDER="openai", NEOCODE_BASE_URL=base_url, OPENAI_API_KEY="x",
                       NEOCODE_MODEL="gpt-4o-mini", NEOCODE_MAX_RETRIES="0", **env)
    process = await asyncio.create_subprocess_exec(
        NEOCODE, "-p", "hi", cwd=cwd, env=environment, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def answer(text: str) -> Response:
    return Response(body=openai_turn(text))


async def test_a_private_certificate_is_refused_in_plain_words_and_taken_from_ssl_cert_file(
    model_server: ModelServer, certificate: tuple[Path, Path], workspace: Path
) -> None:
    model_server.enqueue(answer("Hello through TLS."))
    async with behind_tls(model_server, certificate) as url:
        refused = await neocode(workspace, url)
        assert refused[0] != 0 and not model_server.requests
        assert "could not connect to 127.0.0.1" in refused[2]
        assert "certificate verify failed" in refused[2]
        assert "Traceback" not in refused[2]

        code, out, err = await neocode(workspace, url, SSL_CERT_FILE=str(certificate[0]))
    assert code == 0, err
    assert out.strip() == "Hello through TLS."


async def test_https_proxy_carries_the_requests_to_the_server(
    model_server: ModelServer, certificate: tuple[Path, Path], workspace: Path
) -> None:
    model_server.enqueue(answer("Hello through the proxy."))
    seen: list[str] = []
    async with behind_tls(model_server, certificate) as url, connect_proxy(seen) as proxy:
        code, out, err = await neocode(workspace, url, HTTPS_PROXY=proxy, SSL_CERT_FILE=str(certificate[0]))
    assert code == 0, err
    assert out.strip() == "Hello through the proxy."
    assert seen == [f"CONNECT {url.removeprefix('https://').removesuffix('/v1')}"]


async def test_a_plain_http_model_behind_an_https_proxy_checks_the_proxy_against_the_bundle(
    model_server: ModelServer, certificate: tuple[Path, Path], workspace: Path
) -> None:
    model_server.enqueue(answer("Hello over plain HTTP, through TLS to the proxy."))
    async with behind_tls(model_server, certificate) as proxy_url:
        proxy = proxy_url.removesuffix("/v1")
        refused = await neocode(workspace, model_server.url + "/v1", HTTP_PROXY=proxy)
        assert refused[0] != 0 and not model_server.requests
        assert "certificate verify failed" in refused[2]

        code, out, err = await neocode(workspace, model_server.url + "/v1", HTTP_PROXY=proxy,
                                       SSL_CERT_FILE=str(certificate[0]))
    assert code == 0, err
    assert out.strip() == "Hello over plain HTTP, through TLS to the proxy."
    [request] = model_server.requests
    assert request.path == model_server.url + "/v1/chat/completions"  # a proxy's absolute form
