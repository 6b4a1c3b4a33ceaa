"""Hooks: the user's shell commands, run at points of the agent loop, on Claude Code's contract.

Each hook is sent what Claude Code sends, field for field: ``session_id``,
``transcript_path``, ``cwd``, ``permission_mode`` (Claude Code's word for the mode),
``hook_event_name`` and the event's own fields; a tool call comes in Claude Code's words
(``neocode_tui.claude_tools``: ``Bash`` with ``command``, ``Read`` with an absolute
``file_path``) with its ``tool_use_id``, and its ``tool_response`` after it ran. Each
documented answer is honoured: exit 2 with stderr, ``decision``/``reason``,
``permissionDecision`` with its reason, ``updatedInput``, ``additionalContext``,
``continue: false`` with ``stopReason``, ``systemMessage``.

A guard that fails must not let through what it guards: a PreToolUse hook that cannot be
run, times out, exits with neither 0 nor 2 or prints a garbled answer is reported, and the
call then needs the user's yes (refused where nobody can give one). Other hooks that fail are
reported, never fatal. Where hooks are read, and which may run: ``hook_config``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from neocode_tui.agent.extensions.hook_config import ConfiguredHook, Event, read_hook_files
from neocode_tui.agent.extensions.hook_runs import BLOCK, HookRun, run_hook
from neocode_tui.agent.sandbox import secret_free
from neocode_tui.claude_tools import claude_name, twin_of
from neocode_tui.vocabulary import PERMISSION_MODES, ApprovalMode, NoticeLevel

StartSource = Literal["startup", "resume", "clear", "compact"]
"""Why a session starts, as SessionStart hooks (and their matcher) are told."""
Permission = Literal["allow", "deny", "ask"]
Report = Callable[[NoticeLevel, str], None]
"""Told (level, message) of a hook that failed, blocked or has something to say."""
WRITERS = frozenset({"write_file", "edit_file"})
"""Our tools whose ``tool_response`` names the file written, as Claude Code's do."""


class HookHost(Protocol):
    """The session the hooks run for, read as each hook runs."""

    @property
    def id(self) -> str | None: ...

    @property
    def approval(self) -> ApprovalMode: ...

    @property
    def transcript(self) -> Path | None:
        """The session file, once there is one."""
        ...


@dataclass(frozen=True)
class ToolVerdict:
    """What the PreToolUse hooks said about a call: ``permission`` None leaves it to the
    approval mode."""

    permission: Permission | None = None
    reason: str = ""
    updated: dict[str, Any] | None = None
    """``updatedInput``, in our words: the arguments the call runs with instead."""
    context: str = ""
    """``additionalContext``: for the model, with the call's result."""
    stop: str | None = None
    """``continue: false``: the call is not run and the run ends; the reason is the user's."""


@dataclass(frozen=True)
class PostVerdict:
    note: str = ""
    """What the hooks tell the model about the result ("" nothing)."""
    stop: str | None = None


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
    held: dict[str, tuple[list[ConfiguredHook], str]] = field(default_factory=dict)
    """The workspace's files whose hooks may not run here, with why: listed, not run."""
    problems: list[str] = field(default_factory=list)
    report: Report | None = None
    host: HookHost | None = None
    secrets: Sequence[str] = ()
    """NeoCode's own keys (the session's list, which grows): kept out of hooks' environment."""

    def session_id(self) -> str | None:
        return self.host.id if self.host is not None else None

    def notices(self) -> list[str]:
        notices = [f"hooks config: {problem}" for problem in self.problems]
        for name, (hooks, why) in self.held.items():
            events = sorted({hook.event for hook in hooks})
            notices.append(f"hooks in {name} not run, {why}: {', '.join(events)}")
        return notices

    async def pre_tool(self, tool: str, arguments: Any, call_id: str) -> ToolVerdict:
        fields = await self._tool_fields(tool, arguments, call_id)
        verdicts = [self._pre_verdict(run, tool) for run in await self._run("PreToolUse", fields, tool)]
        stop = next((verdict.stop for verdict in verdicts if verdict.stop is not None), None)
        context = "\n".join(verdict.context for verdict in verdicts if verdict.context)
        chosen = next((v for p in ("deny", "ask", "allow") for v in verdicts if v.permission == p), None)
        updated = next((v.updated for v in verdicts if v.updated is not None), None)
        if chosen is None:
            return ToolVerdict(updated=updated, context=context, stop=stop)
        return replace(chosen, updated=chosen.updated or updated, context=context, stop=stop)

    def _pre_verdict(self, run: HookRun, tool: str) -> ToolVerdict:
        if trouble := run.trouble:
            return ToolVerdict("ask", f"{run.name!r} {trouble}")
        if (reason := run.blocked) is not None:
            return ToolVerdict("deny", reason, stop=run.stop)
        specific, answer = run.specific, run.answer
        decision = specific.get("permissionDecision")
        reason = str(specific.get("permissionDecisionReason") or answer.get("reason") or "")
        permission: Permission | None = (
            decision if decision in ("allow", "deny", "ask")
            else "allow" if answer.get("decision") == "approve" else None)
        if permission == "ask" and self.report is not None:
            self.report("info", f"PreToolUse hook {run.name!r} asks: {reason or 'no reason given'}")
        updated, twin = specific.get("updatedInput"), twin_of(tool)
        if isinstance(updated, dict) and twin is not None:
            updated = twin.our_input(updated, self.workspace)
        context = specific.get("additionalContext")
        return ToolVerdict(permission, reason, updated if isinstance(updated, dict) else None,
                           str(context) if context else "", run.stop)

    async def post_tool(self, tool: str, arguments: Any, call_id: str, output: str) -> PostVerdict:
        """What the hooks have to tell the model about the call's result."""
        fields = await self._tool_fields(tool, arguments, call_id)
        fields["tool_response"] = _response(tool, fields["tool_input"], output)
        notes, stop = [], None
        for run in await self._run("PostToolUse", fields, tool):
            stop = stop or run.stop
            if (reason := run.blocked) is not None:
                notes.append(reason)
            elif context := run.specific.get("additionalContext"):
                notes.append(str(context))
        return PostVerdict("\n".join(notes), stop)

    async def tool_failed(self, tool: str, arguments: Any, call_id: str, error: str) -> PostVerdict:
        """PostToolUseFailure: the call ran and failed; what the hooks tell the model of it."""
        fields = {**await self._tool_fields(tool, arguments, call_id), "error": error, "is_interrupt": False}
        runs = await self._run("PostToolUseFailure", fields, tool)
        notes = [str(run.specific["additionalContext"]) for run in runs if run.specific.get("additionalContext")]
        return PostVerdict("\n".join(notes), next((run.stop for run in runs if run.stop), None))

    async def prompt_submitted(self, prompt: str) -> PromptVerdict:
        runs = await self._run("UserPromptSubmit", {"prompt": prompt})
        for run in runs:
            reason = run.blocked if run.blocked is not None else run.stop
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

    async def permission_requested(self, tool: str, arguments: Any) -> ToolVerdict:
        """Before the user is asked about a call: a hook may answer for them. Exit 2 or
        ``{"decision": {"behavior": "deny"}}`` refuses (any deny wins), ``"allow"`` runs it."""
        fields = {**await self._tool_fields(tool, arguments, None), "permission_suggestions": []}
        verdicts: list[ToolVerdict] = []
        for run in await self._run("PermissionRequest", fields, tool):
            decision = run.specific.get("decision")
            if run.code == BLOCK:
                verdicts.append(ToolVerdict("deny", run.stderr.strip() or "denied by a hook"))
            elif isinstance(decision, dict) and decision.get("behavior") in ("allow", "deny"):
                verdicts.append(ToolVerdict(decision["behavior"], str(decision.get("message") or "")))
        return next((v for p in ("deny", "allow") for v in verdicts if v.permission == p), ToolVerdict())

    async def stopped(self, reason: str, active: bool = False) -> str | None:
        """Why a Stop hook keeps the agent going (it blocked the stop), else None; ``active``:
        the run is one a Stop hook already sent back (a hook checks it not to loop)."""
        fields = {"stop_hook_active": active, "stop_reason": reason}
        return next((run.blocked for run in await self._run("Stop", fields) if run.blocked), None)

    async def subagent_stopped(self, agent: str, active: bool) -> str | None:
        """Why a hook keeps the subagent ``agent`` going (it blocked its stop), else None;
        ``active``: it was sent back by one already (a hook checks it not to loop)."""
        fields = {"stop_hook_active": active, "agent_type": agent}
        return next((run.blocked for run in await self._run("SubagentStop", fields, agent) if run.blocked), None)

    async def _tool_fields(self, tool: str, arguments: Any, call_id: str | None) -> dict[str, Any]:
        """The call as Claude Code describes it (paths are looked up on the disk: a thread)."""
        twin, given = twin_of(tool), arguments if isinstance(arguments, dict) else {}
        tool_input = await asyncio.to_thread(twin.claude_input, given, self.workspace) if twin else dict(given)
        fields = {"tool_name": claude_name(tool), "tool_input": tool_input}
        return fields | ({"tool_use_id": call_id} if call_id is not None else {})

    async def _run(self, event: Event, fields: dict[str, Any], subject: str | None = None) -> list[HookRun]:
        chosen = [
            hook for hook in self.hooks
            if hook.event == event and (subject is None or hook.matches(subject))
        ]
        if not chosen:
            return []
        data = json.dumps({**self._common(event), **fields}, ensure_ascii=False).encode()
        env = secret_free(os.environ, self.secrets)
        env.update(NEOCODE_PROJECT_DIR=str(self.workspace), CLAUDE_PROJECT_DIR=str(self.workspace))
        runs = await asyncio.gather(*(run_hook(hook, data, self.workspace, env) for hook in chosen))
        for run in runs:
            self._tell(event, run)
        return list(runs)

    def _common(self, event: Event) -> dict[str, Any]:
        """The fields every hook gets, as Claude Code names them."""
        host = self.host
        transcript = host.transcript if host is not None else None
        return {
            "session_id": self.session_id() or "",
            "transcript_path": str(transcript) if transcript is not None else "",
            "cwd": str(self.workspace),
            "permission_mode": PERMISSION_MODES[host.approval] if host is not None else "default",
            "hook_event_name": event,
        }

    def _tell(self, event: Event, run: HookRun) -> None:
        if self.report is None:
            return
        said = f"{event} hook {run.name!r}"
        if trouble := run.trouble:
            self.report("warning", f"{said} {trouble}")
        elif run.blocked is not None:
            self.report("warning", f"{said} blocked: {run.blocked}")
        if (stop := run.stop) is not None:
            self.report("warning", f"{said} stopped the run: {stop}")
        if message := run.answer.get("systemMessage"):
            self.report("warning", f"{said}: {message}")


def load_hooks(
    workspace: Path, *, secrets: Sequence[str] = (), trusted: bool = False, report: Report | None = None,
    host: HookHost | None = None,
) -> Hooks:
    """The user's hooks, then the workspace's: only where trust lets them run, or in a
    folder the user trusts for this run (``trusted``, from ``--trust``). ``report`` hears of
    failures; ``host`` is the session each hook is told of."""
    found = read_hook_files(workspace, trusted=trusted)
    return Hooks(workspace.resolve(), found.hooks, found.held, found.problems, report=report,
                 host=host, secrets=secrets)


def _response(tool: str, tool_input: Mapping[str, Any], output: str) -> dict[str, Any]:
    """``tool_response`` for a call that ran: its output, and the fields Claude Code's
    scripts read for commands (``stdout``) and writes (``filePath``, ``success``)."""
    response: dict[str, Any] = {"output": output}
    if tool == "bash":
        response |= {"stdout": output, "stderr": "", "interrupted": False}
    if tool in WRITERS and "file_path" in tool_input:
        response |= {"filePath": tool_input["file_path"], "success": True}
    return response


def _context(runs: list[HookRun]) -> str:
    """What hooks that exited 0 add for the model: ``additionalContext``, else plain stdout."""
    context: list[str] = []
    for run in runs:
        if run.code != 0 or run.garbled:
            continue
        added = run.specific.get("additionalContext")
        if added:
            context.append(str(added))
        elif not run.answer and run.stdout.strip():
            context.append(run.stdout.strip())
    return "\n".join(context)
