"""Hooks: the user's shell commands, run at points of the agent loop, on Claude Code's contract.

Configured in ``hooks.json`` in the user's config folder and ``.neocode/hooks.json`` in the
workspace, in the shape Claude Code's settings give them, so existing hook scripts work::

    {"hooks": {"PreToolUse": [{"matcher": "bash|write_file",
                               "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60}]}]}}

Each hook gets the event as JSON on stdin (``session_id``, ``cwd``, ``hook_event_name`` and the
event's own fields) and answers by its exit code (2 blocks, with stderr as the reason) or by
JSON on stdout. A hook runs with the workspace as its working folder, is stopped (with every
process it started) at its timeout, and a hook that fails is reported, never fatal. A
workspace's own hooks run commands, so they run only in a folder the user trusts, as the
file was when the user trusted it (``neocode_tui.trust``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from neocode_tui.agent.processes import ProcessTree, in_child
from neocode_tui.agent.sandbox import secret_free
from neocode_tui.json_files import MISSING, JsonRead, read_json
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import HOOKS_FILE
from neocode_tui.trust import untrusted_reason
from neocode_tui.vocabulary import NoticeLevel

USER_FILE = "hooks.json"
WORKSPACE_FILE = HOOKS_FILE
EVENTS = (
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact", "Notification", "PermissionRequest",
)
BLOCK = 2
"""The exit code with which a hook blocks what it was asked about."""
OUTPUT_CAP = 64_000
"""Bytes kept of a hook's stdout and of its stderr."""
LINGER = 0.5
"""Seconds to wait for a hook's output to close once it has exited."""
CLAUDE_TOOL_NAMES = {
    "bash": "Bash", "write_file": "Write", "edit_file": "Edit", "read_file": "Read",
    "list_dir": "LS", "glob": "Glob", "grep": "Grep",
    "web_fetch": "WebFetch", "skill": "Skill",
}
"""A matcher written for Claude Code's tools ("Edit|Write") matches ours too."""

Event = Literal[
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact", "Notification", "PermissionRequest",
]
StartSource = Literal["startup", "resume", "clear", "compact"]
"""Why a session starts, as SessionStart hooks (and their matcher) are told."""
Permission = Literal["allow", "deny", "ask"]
Report = Callable[[NoticeLevel, str], None]
"""Told (level, message) of a hook that failed or blocked."""


class HookCommand(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    type: Literal["command"]
    command: str = Field(min_length=1)
    timeout: float = Field(60, gt=0, le=3600)


class HookGroup(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    matcher: str = ""
    hooks: list[HookCommand]


class _File(BaseModel):
    model_config = ConfigDict(defer_build=True)

    hooks: dict[str, list[HookGroup]]


@dataclass(frozen=True)
class ConfiguredHook:
    event: Event
    matcher: re.Pattern[str] | None
    """None: every tool (an empty matcher or ``*``)."""
    command: HookCommand
    path: Path

    def matches(self, tool: str) -> bool:
        if self.matcher is None:
            return True
        return any(self.matcher.fullmatch(name) for name in (tool, CLAUDE_TOOL_NAMES.get(tool, tool)))


@dataclass(frozen=True)
class HookRun:
    """How one hook ended."""

    hook: ConfiguredHook
    code: int | None
    """None: it did not finish (timed out, or could not start)."""
    stdout: str
    stderr: str
    failure: str = ""

    @property
    def answer(self) -> dict[str, Any]:
        """The JSON object a hook that exited 0 printed, if it printed one."""
        if self.code != 0 or not self.stdout.strip().startswith("{"):
            return {}
        try:
            data = json.loads(self.stdout)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def specific(self) -> dict[str, Any]:
        value = self.answer.get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}

    @property
    def blocked(self) -> str | None:
        """The reason, when the hook blocked (exit 2, or ``"decision": "block"``)."""
        if self.code == BLOCK:
            return self.stderr.strip() or f"{self.hook.command.command} exited with 2"
        if self.answer.get("decision") == "block":
            return str(self.answer.get("reason") or "blocked by a hook")
        return None


@dataclass(frozen=True)
class ToolVerdict:
    """What the PreToolUse hooks said about a call: ``permission`` None leaves it to the
    approval mode."""

    permission: Permission | None = None
    reason: str = ""


@dataclass(frozen=True)
class PromptVerdict:
    blocked: str | None = None
    context: str = ""
    """Text the hooks add for the model after the prompt."""


@dataclass
class Hooks:
    """The hooks of one session; ``report`` hears of failures."""

    workspace: Path
    hooks: list[ConfiguredHook] = field(default_factory=list)
    blocked: list[ConfiguredHook] = field(default_factory=list)
    """The workspace's hooks where they may not run (``untrusted`` says why): listed, not run."""
    untrusted: str = ""
    problems: list[str] = field(default_factory=list)
    report: Report | None = None
    session_id: Callable[[], str | None] = lambda: None
    secrets: Sequence[str] = ()
    """NeoCode's own keys (the session's list, which grows): kept out of hooks' environment."""

    def notices(self) -> list[str]:
        notices = [f"hooks config: {problem}" for problem in self.problems]
        if self.blocked:
            events = sorted({hook.event for hook in self.blocked})
            notices.append(
                f"hooks in {WORKSPACE_FILE} not run, {self.untrusted}: {', '.join(events)}"
            )
        return notices

    async def pre_tool(self, tool: str, tool_input: Any) -> ToolVerdict:
        runs = await self._run("PreToolUse", {"tool_name": tool, "tool_input": tool_input}, tool)
        verdicts: list[ToolVerdict] = []
        for run in runs:
            reason = run.blocked
            if reason is not None:
                verdicts.append(ToolVerdict("deny", reason))
                continue
            specific, answer = run.specific, run.answer
            decision = specific.get("permissionDecision")
            reason = str(specific.get("permissionDecisionReason") or answer.get("reason") or "")
            if decision in ("allow", "deny", "ask"):
                verdicts.append(ToolVerdict(decision, reason))
            elif answer.get("decision") == "approve":
                verdicts.append(ToolVerdict("allow", reason))
        for permission in ("deny", "ask", "allow"):
            for verdict in verdicts:
                if verdict.permission == permission:
                    return verdict
        return ToolVerdict()

    async def post_tool(self, tool: str, tool_input: Any, output: str) -> str:
        """What the hooks have to tell the model about the call's result ("" nothing)."""
        payload = {"tool_name": tool, "tool_input": tool_input, "tool_response": {"output": output}}
        notes = []
        for run in await self._run("PostToolUse", payload, tool):
            reason = run.blocked
            if reason is not None:
                notes.append(reason)
            elif context := run.specific.get("additionalContext"):
                notes.append(str(context))
        return "\n".join(notes)

    async def prompt_submitted(self, prompt: str) -> PromptVerdict:
        runs = await self._run("UserPromptSubmit", {"prompt": prompt})
        for run in runs:
            reason = run.blocked
            if reason is not None:
                return PromptVerdict(blocked=reason)
        return PromptVerdict(context=_context(runs))

    async def session_started(self, source: StartSource, model: str) -> str:
        """What the SessionStart hooks add for the model: their stdout, or their
        ``additionalContext`` (the matcher is matched against ``source``). Nothing blocks."""
        return _context(await self._run("SessionStart", {"source": source, "model": model}, source))

    async def session_ended(self, reason: str, session_id: str | None = None) -> None:
        """``reason``: ``clear``, ``prompt_input_exit`` (the user quit) or ``other``;
        ``session_id``: the ended session's, where the session has gone on to another."""
        fields = {"reason": reason, **({"session_id": session_id} if session_id else {})}
        await self._run("SessionEnd", fields, reason)

    async def pre_compact(self, trigger: Literal["manual", "auto"], instructions: str) -> str | None:
        """The reason, when a PreCompact hook blocks the compaction (exit 2 or ``block``)."""
        fields = {"trigger": trigger, "custom_instructions": instructions}
        reasons = [run.blocked for run in await self._run("PreCompact", fields, trigger)]
        return next((reason for reason in reasons if reason is not None), None)

    async def notify(self, message: str, kind: str) -> None:
        """The agent waits for the user (``kind`` ``permission_prompt``): hooks can tell them."""
        fields = {"message": message, "notification_type": kind, "title": "NeoCode"}
        await self._run("Notification", fields, kind)

    async def permission_requested(self, tool: str, tool_input: Any) -> ToolVerdict:
        """Before the user is asked about a call: a hook may answer for them. Exit 2 or
        ``{"decision": {"behavior": "deny"}}`` refuses (any deny wins), ``"allow"`` runs it."""
        fields = {"tool_name": tool, "tool_input": tool_input, "permission_suggestions": []}
        verdicts: list[ToolVerdict] = []
        for run in await self._run("PermissionRequest", fields, tool):
            decision = run.specific.get("decision")
            if run.code == BLOCK:
                verdicts.append(ToolVerdict("deny", run.stderr.strip() or "denied by a hook"))
            elif isinstance(decision, dict) and decision.get("behavior") in ("allow", "deny"):
                verdicts.append(ToolVerdict(decision["behavior"], str(decision.get("message") or "")))
        return next((v for p in ("deny", "allow") for v in verdicts if v.permission == p), ToolVerdict())

    async def stopped(self, reason: str) -> None:
        await self._run("Stop", {"stop_hook_active": False, "stop_reason": reason})

    async def subagent_stopped(self, agent: str, active: bool) -> str | None:
        """Why a hook keeps the subagent ``agent`` going (it blocked its stop), else None;
        ``active``: it was sent back by one already (a hook checks it not to loop)."""
        fields = {"stop_hook_active": active, "agent_type": agent}
        for run in await self._run("SubagentStop", fields, agent):
            if (reason := run.blocked) is not None:
                return reason
        return None

    async def _run(self, event: Event, fields: dict[str, Any], tool: str | None = None) -> list[HookRun]:
        chosen = [
            hook for hook in self.hooks
            if hook.event == event and (tool is None or hook.matches(tool))
        ]
        if not chosen:
            return []
        payload = {
            "session_id": self.session_id() or "", "cwd": str(self.workspace),
            "hook_event_name": event, **fields,
        }
        data = json.dumps(payload, ensure_ascii=False).encode()
        runs = await asyncio.gather(*(self._guarded(hook, data) for hook in chosen))
        for run in runs:
            self._tell(event, run)
        return list(runs)

    def _tell(self, event: Event, run: HookRun) -> None:
        if self.report is None:
            return
        name = run.hook.command.command
        if run.failure:
            self.report("warning", f"{event} hook {name!r} {run.failure}")
        elif run.code not in (0, BLOCK):
            detail = _first_line(run.stderr) or _first_line(run.stdout)
            self.report("warning", f"{event} hook {name!r} failed (exit code {run.code})"
                        + (f": {detail}" if detail else ""))
        elif run.blocked is not None:
            self.report("warning", f"{event} hook {name!r} blocked: {run.blocked}")

    async def _guarded(self, hook: ConfiguredHook, data: bytes) -> HookRun:
        """A hook that cannot be run is one failed hook, never a failed run."""
        try:
            return await self._run_one(hook, data)
        except Exception as exc:
            return HookRun(hook, None, "", "", f"could not be run: {type(exc).__name__}: {exc}")

    async def _run_one(self, hook: ConfiguredHook, data: bytes) -> HookRun:
        tree = ProcessTree()
        env = secret_free(os.environ, self.secrets)
        env.update(NEOCODE_PROJECT_DIR=str(self.workspace), CLAUDE_PROJECT_DIR=str(self.workspace))
        spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
            "/bin/sh", "-c", hook.command.command, cwd=self.workspace, env=tree.environment(env),
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
        return HookRun(hook, code, stdout.text(), stderr.text(), failure)


def load_hooks(
    workspace: Path, *, secrets: Sequence[str] = (), trusted: bool = False, report: Report | None = None,
    session_id: Callable[[], str | None] = lambda: None,
) -> Hooks:
    """The user's hooks, then the workspace's: only where trust lets them run, or in a
    folder the user trusts for this run (``trusted``, from ``--trust``). ``report`` hears of
    failures; ``session_id`` is what each hook is told the session is."""
    workspace = workspace.resolve()
    hooks = Hooks(workspace, secrets=secrets, report=report, session_id=session_id)
    user, problems = _read_file(config_dir() / USER_FILE)
    local_path = workspace / WORKSPACE_FILE
    read = read_json(local_path)
    local, found = _read_file(local_path, read)
    hooks.problems = problems + found
    hooks.hooks = user
    if local and not trusted:
        hooks.untrusted = untrusted_reason(workspace, WORKSPACE_FILE, read.raw)
    if hooks.untrusted:
        hooks.blocked = local
    else:
        hooks.hooks += local
    return hooks


def _read_file(path: Path, read: JsonRead | None = None) -> tuple[list[ConfiguredHook], list[str]]:
    data, problem, _ = read if read is not None else read_json(path)
    if problem is not None or data is MISSING:
        return [], [problem] if problem else []
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        return [], [f'{path}: expected {{"hooks": {{"PreToolUse": [...], ...}}}}']
    hooks: list[ConfiguredHook] = []
    problems: list[str] = []
    for event, groups in data["hooks"].items():
        if event not in EVENTS:
            problems.append(f"{path}: {event} hooks are not supported (only {', '.join(EVENTS)})")
            continue
        try:
            parsed = _File.model_validate({"hooks": {event: groups}}).hooks[event]
        except ValidationError as exc:
            problems.append(f"{path}: {event}: {_describe(exc)}")
            continue
        for group in parsed:
            try:
                matcher = None if group.matcher in ("", "*") else re.compile(group.matcher)
            except re.error as exc:
                problems.append(f"{path}: {event}: matcher {group.matcher!r} is not a valid pattern ({exc})")
                continue
            hooks += [ConfiguredHook(event, matcher, command, path) for command in group.hooks]
    return hooks, problems


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

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self.data += chunk[: max(OUTPUT_CAP - len(self.data), 0)]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def _context(runs: list[HookRun]) -> str:
    """What hooks that exited 0 add for the model: ``additionalContext``, else plain stdout."""
    context: list[str] = []
    for run in runs:
        if run.code != 0:
            continue
        added = run.specific.get("additionalContext")
        if added:
            context.append(str(added))
        elif not run.answer and run.stdout.strip():
            context.append(run.stdout.strip())
    return "\n".join(context)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _describe(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc'][2:]) or 'hooks'}: {item['msg']}"
        for item in error.errors(include_url=False)
    )
