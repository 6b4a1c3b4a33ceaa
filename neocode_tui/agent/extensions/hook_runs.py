"""Running one hook and reading its answer, on Claude Code's contract.

The hook gets the event as JSON on stdin and answers by its exit code (0 fine, 2 blocks with
stderr as the reason, anything else a failure) or by a JSON object on stdout. A hook is
untrusted output: what it prints is read up to a bound (the rest is drained, never kept),
bytes that are not UTF-8 are replaced, and a hook that never ends is stopped at its timeout
with every process it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neocode_tui.agent.extensions.hook_config import ConfiguredHook
from neocode_tui.agent.processes import ProcessTree, in_child

BLOCK = 2
"""The exit code with which a hook blocks what it was asked about."""
OUTPUT_CAP = 64_000
"""Bytes kept of a hook's stdout and of its stderr."""
LINGER = 0.5
"""Seconds to wait for a hook's output to close once it has exited."""
DECISIONS = {"decision": ("approve", "block"), "permissionDecision": ("allow", "deny", "ask")}
"""The documented values of the answers that decide something."""


@dataclass(frozen=True)
class HookRun:
    """How one hook ended."""

    hook: ConfiguredHook
    code: int | None
    """None: it did not finish (timed out, or could not start)."""
    stdout: str
    stderr: str
    failure: str = ""
    overflow: bool = False
    """It printed more than ``OUTPUT_CAP`` bytes on stdout: what is kept is cut."""
    undecodable: bool = False
    """Its stdout is not UTF-8 (shown with the bad bytes replaced)."""

    @property
    def name(self) -> str:
        return self.hook.command.command

    @property
    def answer(self) -> dict[str, Any]:
        """The JSON object a hook that exited 0 printed, if it printed a sound one."""
        if self.code != 0 or self.garbled:
            return {}
        return _object(self.stdout) or {}

    @property
    def garbled(self) -> str:
        """Why what the hook printed on exiting 0 cannot be its answer ("" when it can, or
        it printed plain text, which Claude Code only shows)."""
        if self.code != 0:
            return ""
        text = self.stdout.strip()
        if self.overflow:
            return f"printed more than {OUTPUT_CAP} bytes"
        if self.undecodable:
            return "printed bytes that are not UTF-8"
        if not text.startswith(("{", "[")):
            return ""
        data = _object(text)
        if data is None:
            return "printed something that is not a JSON object"
        specific = data.get("hookSpecificOutput")
        places = {"decision": data, "permissionDecision": specific if isinstance(specific, dict) else {}}
        for key, allowed in DECISIONS.items():
            value = places[key].get(key)
            if value is not None and value not in allowed:
                return f"answered {key} {value!r} (not one of {', '.join(allowed)})"
        return ""

    @property
    def specific(self) -> dict[str, Any]:
        value = self.answer.get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}

    @property
    def trouble(self) -> str:
        """Why the hook's word cannot be trusted ("" when it can): it could not run, timed
        out, exited with neither 0 nor 2, or printed something no answer is made of."""
        if self.failure:
            return self.failure
        if self.code not in (0, BLOCK):
            detail = _first_line(self.stderr) or _first_line(self.stdout)
            return f"failed (exit code {self.code})" + (f": {detail}" if detail else "")
        return self.garbled

    @property
    def blocked(self) -> str | None:
        """The reason, when the hook blocked (exit 2, or ``"decision": "block"``)."""
        if self.code == BLOCK:
            return self.stderr.strip() or f"{self.name} exited with 2"
        if self.answer.get("decision") == "block":
            return str(self.answer.get("reason") or "blocked by a hook")
        return None

    @property
    def stop(self) -> str | None:
        """``"continue": false``: the run ends after the hooks; the reason is the user's."""
        if self.answer.get("continue") is False:
            return str(self.answer.get("stopReason") or "a hook stopped the run")
        return None


async def run_hook(hook: ConfiguredHook, data: bytes, workspace: Path, env: Mapping[str, str]) -> HookRun:
    """Run ``hook`` in ``workspace`` with ``data`` on stdin; a hook that cannot be run is
    one failed hook, never a failed run."""
    try:
        return await _run(hook, data, workspace, env)
    except Exception as exc:
        return HookRun(hook, None, "", "", f"could not be run: {type(exc).__name__}: {exc}")


async def _run(hook: ConfiguredHook, data: bytes, workspace: Path, env: Mapping[str, str]) -> HookRun:
    tree = ProcessTree()
    spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
        "/bin/sh", "-c", hook.command.command, cwd=workspace, env=tree.environment(dict(env)),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True, preexec_fn=in_child,
    ))
    try:
        process = await asyncio.shield(spawn)
    except OSError as exc:
        return HookRun(hook, None, "", "", f"could not start: {exc.strerror or exc}")
    except asyncio.CancelledError:
        # It may already be running: let the start finish, then stop all of it.
        with contextlib.suppress(OSError):
            tree.started((await spawn).pid)
            tree.kill()
        raise
    tree.started(process.pid)
    assert process.stdin and process.stdout and process.stderr
    stdout, stderr = _Capped(), _Capped()
    readers = asyncio.gather(stdout.drain(process.stdout), stderr.drain(process.stderr))
    failure = ""
    try:
        try:
            async with asyncio.timeout(hook.command.timeout):
                await asyncio.gather(_feed(process.stdin, data), process.wait())
        except TimeoutError:
            failure = f"timed out after {hook.command.timeout:g} s and was stopped"
        # What it left in the background holding its output goes too.
        await asyncio.wait([readers], timeout=LINGER)
        tree.kill()
        await process.wait()
        await asyncio.wait([readers], timeout=LINGER)
    finally:
        tree.kill()  # on cancel too
        readers.cancel()
    code = None if failure else process.returncode
    return HookRun(hook, code, stdout.text(), stderr.text(), failure, stdout.over, not stdout.utf8())


async def _feed(stdin: asyncio.StreamWriter, data: bytes) -> None:
    """The event on stdin; a hook that does not read it is no failure."""
    try:
        stdin.write(data)
        await stdin.drain()
        stdin.close()
    except (BrokenPipeError, ConnectionResetError):
        pass


class _Capped:
    def __init__(self) -> None:
        self.data = bytearray()
        self.over = False

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            room = max(OUTPUT_CAP - len(self.data), 0)
            self.over = self.over or len(chunk) > room
            self.data += chunk[:room]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    def utf8(self) -> bool:
        """Whether what was kept is UTF-8 (a character the cut split in two counts as such)."""
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self.over and exc.start >= len(self.data) - 3
        return True


def _object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
