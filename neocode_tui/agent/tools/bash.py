"""``bash``: one shell command in the workspace, in its own process group.

Everything the command started is the unit of cleanup (``ProcessTree``: its group and any
process that left it, such as a ``setsid`` child): on timeout, on cancel, and once the
shell has exited, all of it is killed, so nothing the model started outlives the call.
Output is capped by keeping its head and its tail (an error is usually at the end) with a
note of how much was cut between them.

With a ``Sandbox`` in force the command runs inside it (``neocode_tui.agent.sandbox``);
``unsandboxed: true`` runs it outside, which is asked for in every mode short of
``full-auto``. A sandboxed command that fails with a sign of the sandbox (a read-only file
system, no network) says so in its result, so the model can ask for that; one that made a
protected file at the workspace root has it renamed once it ends (``sandbox_files``), and
its result says so.
"""

from __future__ import annotations

import asyncio
import codecs
import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.processes import ProcessTree
from neocode_tui.agent.sandbox import Sandbox, failure_note, secret_free
from neocode_tui.agent.sandbox_files import CreatedEntries, set_aside_note
from neocode_tui.agent.tools.base import Confinement, OutputCallback, Tool, ToolOutput
from neocode_tui.agent.workspace import Workspace

OUTPUT_CAP = 30_000
"""Bytes of output kept per command: half from the start, half from the end."""
LINGER = 0.5
"""Seconds to wait for the pipe to close once the shell has exited."""
CHUNK = 65536


_SHELL_OPERATORS = re.compile(r"[;&|<>`$(){}\n\\*?]")
_RUNNERS = frozenset({
    "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "make", "just", "uv", "poetry",
    "python", "python3", "pip", "git", "docker", "dotnet", "mvn", "gradle", "./gradlew",
    "bundle", "rake", "mix", "deno", "swift", "tox", "nox", "hatch", "pdm",
})
"""Programs whose first argument says what they do: ``npm test`` is not ``npm publish``."""


class BashArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(description="The shell command, run by bash in the workspace root.")
    timeout: int = Field(120, ge=1, le=600, description="Seconds before the command is stopped.")
    unsandboxed: bool = Field(
        False,
        description="Run outside the sandbox. Only after a command failed because of the "
        "sandbox and must reach the network or files outside the workspace; the user is "
        "asked every time.",
    )


class Bash(Tool[BashArgs]):
    name = "bash"
    description = (
        "Run a shell command with bash in the workspace root; stdout and stderr are "
        "returned together. No input is available (stdin is empty). Long output is cut "
        "in the middle. Background jobs are stopped when the command ends. Commands may "
        "run in a sandbox: the workspace and /tmp writable, the rest read-only, no network."
    )
    kind = "command"
    args_model = BashArgs

    def __init__(
        self, output_cap: int = OUTPUT_CAP, sandbox: Sandbox | None = None,
        secrets: Sequence[str] = (),
    ) -> None:
        self.output_cap = output_cap
        self.sandbox = sandbox or Sandbox()
        self.secrets = secrets
        """NeoCode's own keys (the session's list, which grows): no variable holding one
        reaches a command."""

    def summary(self, args: Mapping[str, Any]) -> str:
        command = str(args.get("command", ""))
        first = command.strip().splitlines()[0] if command.strip() else ""
        outside = " [outside the sandbox]" if args.get("unsandboxed") and self.sandbox.active else ""
        return first + (" …" if first != command.strip() else "") + outside

    def session_scope(self, args: BashArgs) -> str:
        """A yes for the session covers the command's program (and subcommand: ``npm test``,
        ``python -m pytest``), as Claude Code scopes it, never every command. A command with
        shell operators (``;``, ``&&``, pipes, substitutions, redirections) is allowed again
        only word for word: ``pytest; rm -rf ~`` is not ``pytest``."""
        command = " ".join(args.command.split())
        words = command.split(" ")
        if not command or _SHELL_OPERATORS.search(args.command):
            return f"bash: {command}"
        length = 1
        if words[0] in _RUNNERS and len(words) > 1:
            length = 3 if words[1] == "-m" and len(words) > 2 else 2
        return f"bash: {' '.join(words[:length])} …"

    def command(self, args: BashArgs) -> str | None:
        return args.command

    def confinement(self, args: BashArgs) -> Confinement:
        if not self.sandbox.active:
            return "none"
        return "escape" if args.unsandboxed else "sandboxed"

    async def run(
        self, args: BashArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        sandbox = Sandbox() if args.unsandboxed else self.sandbox
        created = CreatedEntries(workspace.root) if sandbox.mode == "workspace-write" else None
        try:
            with sandbox.prepared(workspace.root):
                output = await self._run(args, sandbox, workspace, on_output)
        finally:
            moved = created.set_aside() if created is not None else []
        if note := set_aside_note(moved):
            return dataclasses.replace(output, text=f"{output.text}\n{note}")
        return output

    async def _run(
        self, args: BashArgs, sandbox: Sandbox, workspace: Workspace,
        on_output: OutputCallback | None,
    ) -> ToolOutput:
        loop = asyncio.get_running_loop()
        tree = ProcessTree()
        argv = sandbox.command(["bash", "-c", args.command], workspace.root)
        env = sandbox.environment(secret_free(_child_env(), self.secrets))
        spawn = asyncio.ensure_future(
            loop.subprocess_exec(
                lambda: _ExitAwareProtocol(loop),
                *argv,
                cwd=workspace.root,
                env=tree.environment(env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
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
        tree.started(transport.get_pid())
        process = asyncio.subprocess.Process(transport, protocol, loop)
        assert process.stdout is not None
        capture = _Capture(self.output_cap, on_output)
        reader = asyncio.create_task(capture.drain(process.stdout))
        notes: list[str] = []
        try:
            try:
                async with asyncio.timeout(args.timeout):
                    await asyncio.shield(protocol.exited)
            except TimeoutError:
                tree.kill()
                notes.append(
                    f"[timed out after {args.timeout}s; the command and everything it "
                    "started were stopped]"
                )
                await protocol.exited
            if not await _finished_within(reader, LINGER):
                tree.kill()
                notes.append("[background processes still running were stopped]")
                if not await _finished_within(reader, LINGER):
                    transport.close()  # something beyond the tree's reach holds the pipe
            await reader
        except asyncio.CancelledError:
            tree.kill()
            transport.close()  # never wait on a pipe that something outside the tree holds
            reader.cancel()
            raise
        tree.kill()  # a job that closed its output but still runs
        code = transport.get_returncode()
        output = capture.text()
        if code != 0 and not notes:
            notes.append(f"[exit code {code}]")
            if hint := failure_note(sandbox, output):
                notes.append(hint)
        text = "\n".join([output or "(no output)", *notes])
        return ToolOutput(text, is_error=code != 0)


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


class _Capture:
    """Keeps the first and last ``cap / 2`` bytes of a stream and counts what fell between.

    Everything is also passed on live as it arrives: a build or a test run shows its
    latest lines while it runs (the screen keeps only those, at a cost per frame that
    does not grow with the output).
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
