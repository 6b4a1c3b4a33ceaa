"""The session's language servers: each started lazily, once per workspace, the first time a
file of its kind is edited or asked about, and shut down with the session.

Where the sandbox works, a server runs in it read-only and without the network (it reads the
project, as it must, and can change nothing); where it does not, servers start only in a
folder the user trusts, since a server runs what the project configures (tsserver plugins,
cargo build scripts). The environment is the user's less every secret NeoCode knows."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.agent.lsp.config import ServerConfigs, ServerProblem
from neocode_tui.agent.sandbox import Sandbox, secret_free
from neocode_tui.deferred import lazy
from neocode_tui.trust import is_trusted

if TYPE_CHECKING:
    from neocode_tui.agent.lsp import server as process
    from neocode_tui.agent.lsp import words
    from neocode_tui.agent.lsp.server import LanguageServer
else:  # pygls and lsprotocol load with the first server, not with every session
    process = lazy("neocode_tui.agent.lsp.server")
    words = lazy("neocode_tui.agent.lsp.words")

MAX_STARTS = 3
"""Starts of one server in a session (it crashed and is started again at the next use)."""
UNSANDBOXED = ("language servers start only inside the sandbox or in a folder you trust "
               "(bubblewrap is not available here)")


class LanguageServers:
    def __init__(self, root: Path, configs: ServerConfigs, sandbox: Sandbox, keys: Sequence[str], *,
                 trusted: bool) -> None:
        """``keys``: the secrets kept out of the servers' environment; ``trusted``: the user
        trusts ``root`` for this run."""
        self.root, self.configs, self.keys = root, configs, keys
        self.sandbox = replace(sandbox, mode="read-only", network=False) if sandbox.active else sandbox
        self.trusted = trusted or is_trusted(root)
        self._running: dict[str, LanguageServer] = {}
        self._starts: dict[str, int] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def names(self) -> list[str]:
        return list(self.configs.servers)

    async def for_file(self, path: Path) -> LanguageServer:
        """The running server for ``path``, started if need be; ``ServerProblem`` says why not."""
        name = self.configs.for_file(path)
        if name is None:
            configured = ", ".join(self.configs.servers) or "none"
            notes = "".join(f"; {line}" for line in [*self.configs.problems, *self.configs.ignored])
            raise ServerProblem(f"no language server for {path.suffix or path.name} files (servers here: "
                                f"{configured}; add one as [lsp.NAME] in config.toml){notes}")
        if not self.sandbox.active and not self.trusted:
            raise ServerProblem(UNSANDBOXED)
        async with self._locks.setdefault(name, asyncio.Lock()):
            server = self._running.get(name)
            if server is not None and server.running:
                return server
            if server is not None:
                await server.aclose()
            if self._starts.get(name, 0) >= MAX_STARTS:
                raise ServerProblem(f"the language server {name} stopped {MAX_STARTS} times; not started again "
                                    "this session")
            self._starts[name] = self._starts.get(name, 0) + 1
            server = self._running[name] = self._made(name)
            await server.start()
            return server

    async def after_change(self, path: str, text: str) -> str:
        """What the model reads after an edit of ``path``: the file's errors as its server
        sees them now ("" for a file no server is for; a word when the server failed)."""
        file = Path(path)
        if self.configs.for_file(file) is None:
            return ""
        try:
            server = await self.for_file(file)
            server.show(file, text)
            found = await server.diagnostics(file)
        except ServerProblem as exc:
            return f"[no diagnostics: {exc}]"
        errors = words.diagnostics_lines(found, words.shown_path(file, self.root), errors_only=True)
        count = sum(1 for item in found if (item.severity or 1) == 1)
        if not count:
            return ""
        return "\n".join([f"[{count} error{'s' if count != 1 else ''} in this file now, "
                          f"from the language server {server.name}:", *errors]) + "]"

    async def aclose(self) -> None:
        servers, self._running = list(self._running.values()), {}
        await asyncio.gather(*(server.aclose() for server in servers), return_exceptions=True)

    def _made(self, name: str) -> LanguageServer:
        config = self.configs.servers[name]
        program = shutil.which(config.command[0]) or config.command[0]
        argv = self.sandbox.command([program, *config.command[1:]], self.root)
        env = secret_free(self.sandbox.environment(os.environ), self.keys)
        return process.LanguageServer(name, config, self.root, argv, env)
