"""One started shell command: its process tree, its output, its end.

``bash`` waits for a ``RunningCommand`` in the foreground; a background job
(``neocode_tui.agent.processes.background``) holds one for as long as it runs. Either way the
command's whole process tree is the unit of cleanup (``ProcessTree``), its output is kept
as a head and a tail (``Capture``), and what was set up around it (the sandbox's stand-ins,
the protected entries to set aside) is undone when it ends, not before.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Literal

from neocode_tui.agent.processes import ProcessTree, in_child
from neocode_tui.agent.sandbox import CreatedEntries, Sandbox, secret_free, set_aside_note
from neocode_tui.agent.tools.base import OutputCallback

LINGER = 0.5
"""Seconds to wait for the pipe to close once the shell has exited."""
CHUNK = 65536

Ending = Literal["exited", "timeout", "detached"]


class RunningCommand:
    """``start`` it; then ``wait``, ``settle`` once the shell has exited, and ``close``.
    ``kill`` ends it at any point."""

    def __init__(
        self, tree: ProcessTree, transport: asyncio.SubprocessTransport,
        protocol: _ExitAwareProtocol, capture: Capture, around: ExitStack,
        created: CreatedEntries | None,
    ) -> None:
        self.tree = tree
        self.transport = transport
        self.protocol = protocol
        self.capture = capture
        self._around = around
        self._created = created
        process = asyncio.subprocess.Process(transport, protocol, asyncio.get_running_loop())
        assert process.stdout is not None
        self.reader = asyncio.create_task(capture.drain(process.stdout))

    @classmethod
    async def start(
        cls, command: str, sandbox: Sandbox, root: Path, capture: Capture,
        secrets: Sequence[str] = (),
    ) -> RunningCommand:
        loop = asyncio.get_running_loop()
        around = ExitStack()
        created = CreatedEntries(root) if sandbox.mode == "workspace-write" else None
        around.enter_context(sandbox.prepared(root))
        tree = ProcessTree()
        try:
            # In a thread: the mounts look at the workspace (its protected entries' links).
            argv = await asyncio.to_thread(sandbox.command, ["bash", "-c", command], root)
            env = sandbox.environment(secret_free(_child_env(), secrets))
            spawn = asyncio.ensure_future(
                loop.subprocess_exec(
                    lambda: _ExitAwareProtocol(loop), *argv, cwd=root, env=tree.environment(env),
                    stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT, start_new_session=True, preexec_fn=in_child,
                )
            )
            try:
                transport, protocol = await asyncio.shield(spawn)
            except asyncio.CancelledError:
                # The command may already be running: let the start finish, then stop it all.
                transport, _ = await spawn
                tree.started(transport.get_pid())
                tree.kill()
                transport.close()
                raise
        except BaseException:
            around.close()
            if created is not None:
                created.finish()
            raise
        tree.started(transport.get_pid())
        return cls(tree, transport, protocol, capture, around, created)

    @property
    def returncode(self) -> int | None:
        return self.transport.get_returncode()

    async def wait(self, timeout: float | None, detach: asyncio.Future[None] | None = None) -> Ending:
        """Until the shell exits, ``timeout`` passes (the command is then killed) or
        ``detach`` is set (it goes on, someone else's to wait for)."""
        exited = asyncio.ensure_future(asyncio.shield(self.protocol.exited))
        waiting: set[asyncio.Future[None]] = {exited}
        if detach is not None:
            waiting.add(detach)
        try:
            done, _ = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
        if self.protocol.exited.done():
            return "exited"
        if detach is not None and detach in done:
            return "detached"
        self.tree.kill()
        await self.protocol.exited
        return "timeout"

    async def settle(self) -> list[str]:
        """Once the shell has exited: what it left running is stopped, its output read
        to the end. Returns the notes to add to its result."""
        notes: list[str] = []
        if not await _finished_within(self.reader, LINGER):
            self.tree.kill()
            notes.append("[background processes still running were stopped]")
            if not await _finished_within(self.reader, LINGER):
                self.transport.close()  # something beyond the tree's reach holds the pipe
        await self.reader
        self.tree.kill()  # a job that closed its output but still runs
        return notes

    def kill(self) -> None:
        """Everything it started, now; the pipe is never waited on (something outside the
        tree may hold it)."""
        self.tree.kill()
        self.transport.close()
        self.reader.cancel()

    def close(self) -> str:
        """Undo what was set up around the command; the note of what it made that was set
        aside, or ""."""
        self._around.close()
        return set_aside_note(self._created.finish() if self._created is not None else [])

    def set_aside(self) -> str:
        """While it runs: what it has made among the protected entries so far, set aside;
        the note saying so, or ""."""
        return set_aside_note(self._created.set_aside() if self._created is not None else [])


async def _finished_within(task: asyncio.Task[None], seconds: float) -> bool:
    done, _ = await asyncio.wait({task}, timeout=seconds)
    return bool(done)


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Tells when the shell itself exits. ``Process.wait()`` also waits for the output
    pipe to close, which a background job can hold open for as long as it runs."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=CHUNK, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class Capture:
    """Keeps the first and last ``cap / 2`` bytes of a stream and counts what fell between.

    Everything is also passed on live as it arrives (``on_output``, which may change while
    the command runs): a build or a test run shows its latest lines while it runs.
    """

    def __init__(self, cap: int, on_output: OutputCallback | None = None) -> None:
        self.half = cap // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0
        self.on_output = on_output
        self.live = codecs.getincrementaldecoder("utf-8")(errors="replace")

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(CHUNK):
            self.feed(chunk)

    def feed(self, chunk: bytes) -> None:
        if self.on_output is not None:
            text = self.live.decode(chunk)
            if text:
                self.on_output(text)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        excess = len(self.tail) - self.half
        if excess > 0:
            self.cut += excess
            del self.tail[:excess]

    def take(self, whole_lines: bool = False) -> str:
        """What was kept so far, and a fresh start: the next ``take`` has what came after.
        ``whole_lines`` (the command still runs): the line still being written is held
        back for the next one, so no read ends inside a key (each read is scrubbed alone)
        or inside a character; a line longer than the tail is given as it is."""
        held = b""
        if whole_lines:
            kept = self.tail if self.tail or self.cut else self.head
            end = kept.rfind(b"\n")
            if end >= 0 or kept is self.head:
                held = bytes(kept[end + 1 :])
                del kept[end + 1 :]
        text = self.text()
        self.head, self.tail, self.cut = bytearray(held), bytearray(), 0
        return text

    def text(self) -> str:
        """Head and tail, cut at line ends where a line ends near the cut: a key never
        spans lines, so no piece of one is left at either side of the gap."""
        head, tail, cut = bytes(self.head), bytes(self.tail), self.cut
        if cut:
            end = head.rfind(b"\n")
            if end >= len(head) // 2:
                cut += len(head) - end - 1
                head = head[: end + 1]
            start = tail.find(b"\n")
            if 0 <= start < len(tail) // 2:
                cut += start + 1
                tail = tail[start + 1 :]
        head_text = head.decode("utf-8", errors="replace")
        tail_text = tail.decode("utf-8", errors="replace")
        if cut:
            gap = f"[… {cut} bytes of output cut …]"
            return f"{head_text.rstrip(chr(10))}\n{gap}\n{tail_text}".rstrip("\n")
        return (head_text + tail_text).rstrip("\n")


def _child_env() -> dict[str, str]:
    """The user's environment with pagers off, since nobody can page (API keys are taken
    out by the caller: a command's output reaches the screen and the session file)."""
    env = dict(os.environ)
    env.update(PAGER="cat", GIT_PAGER="cat", TERM="dumb")
    return env
