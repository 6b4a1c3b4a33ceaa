"""Whether one tool call may run: the permission rules, the approval mode, the yeses given
for the session, a hook's word and, when all that leaves it open, the user.

The loop holds one gate and asks it about every call; the gate knows nothing of turns or
transcripts, only the call in front of it. It sees whoever runs the calls as a ``GateHost``
(the mode is read from it at each call, so a subagent's gate follows its parent's mode).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pydantic import BaseModel

from neocode_tui.agent.extensions import Permission
from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    FileChange,
    LoopEvent,
    Notice,
)
from neocode_tui.agent.permissions.approvals import needs_approval, refusal_without_approver
from neocode_tui.agent.permissions.rules import Verdict
from neocode_tui.agent.permissions.session_rules import Permissions, prefix_rule
from neocode_tui.agent.tools import Tool
from neocode_tui.agent.tools.base import Preview
from neocode_tui.agent.workspace import Workspace
from neocode_tui.collector import CollectedToolCall
from neocode_tui.known_secrets import Secrets
from neocode_tui.vocabulary import ApprovalMode

Approver = Callable[[ApprovalRequested], Awaitable[ApprovalDecision]]


class GateHost(Protocol):
    """Whoever runs the calls the gate judges: a loop, or the session around one."""

    @property
    def approval(self) -> ApprovalMode:
        """The approval mode, read as each call comes up."""
        ...

    @property
    def turn(self) -> int:
        """The turn the calls belong to, for the events the gate reports."""
        ...

    def emit(self, event: LoopEvent) -> None:
        """Report an event (a question asked, a rule saved) to the front end."""
        ...


class CallGate:
    """``approver``, ``permissions`` and ``allowed_for_session`` may change between and
    during runs; each call reads them when it comes up. With no ``approver`` (headless), a
    call that would need a yes is refused with a result telling the model why."""

    def __init__(
        self, workspace: Workspace, secrets: Secrets, host: GateHost, *, approver: Approver | None = None,
        permissions: Permissions | None = None, allowed_for_session: set[str] | None = None,
    ) -> None:
        """``permissions``: the allow, ask and deny rules (deny beats ask beats allow, and
        beats the mode); ``allowed_for_session``: the yeses for the session, shared with the
        gate given it (a subagent's holds its parent's)."""
        self.workspace = workspace
        self.secrets = secrets
        self.approver = approver
        self.permissions = permissions
        self.allowed_for_session = allowed_for_session if allowed_for_session is not None else set()
        self._host = host

    async def refusal(
        self, tool: Tool[Any], args: object, call: CollectedToolCall, hook: Permission | None = None,
        hook_reason: str = "",
    ) -> str | None:
        """None when the call may run, else the refusal the model is sent. A deny rule
        refuses whatever the mode or a hook says; a hook's "allow" runs it without asking
        (unless an ask rule is about it), its "ask" (``hook_reason`` why) or an ask rule
        asks whatever the mode (but plan mode holds); an allow rule stops asking as a yes
        for the session does."""
        ruled = await self._ruled(tool, args)
        if ruled is not None and ruled.behavior == "deny":
            return f"not run: denied by {ruled.why}"
        mode = self._host.approval
        if mode == "plan" and tool.kind != "read":
            return (
                f"not run: plan mode is on, so only reading tools run; {tool.name} will be "
                "available once the user leaves plan mode. Finish the plan instead."
            )
        asked_by_rule = ruled is not None and ruled.behavior == "ask"
        if hook == "allow" and not asked_by_rule:
            return None
        writes, root = tool.writes(args, self.workspace), self.workspace.root
        named, confinement = tool.named_writes(args), tool.confinement(args)
        allowed = (ruled is not None and ruled.behavior == "allow") or (
            tool.session_scope(args) in self.allowed_for_session
        )
        # In a thread: which writes are protected follows links on the disk.
        if hook != "ask" and not asked_by_rule and not await asyncio.to_thread(
            needs_approval, tool.kind, mode, writes, root=root, allowed_for_session=allowed,
            confinement=confinement, named=named,
        ):
            return None
        preview = await tool.preview(args, self.workspace)
        if self.approver is None:
            if hook == "ask":
                why = f" ({hook_reason})" if hook_reason else ""
                return f"not run: a PreToolUse hook wants a yes for this call{why}, and nobody can give one in this run"
            if asked_by_rule and ruled is not None:
                return f"not run: {tool.name} asks for approval by {ruled.why}, and nobody can approve it in this run"
            return await asyncio.to_thread(
                refusal_without_approver, tool.name, writes, root, confinement, tool.kind, named)
        return await self._ask(self.approver, tool, args, call, preview)

    async def onward_refusal(self, tool: Tool[Any], args: BaseModel, onward: BaseModel) -> str | None:
        """None when a running call may go on to ``onward`` (a page's redirect to another
        URL), else why not. It is judged as a call of its own, by the rules and the mode,
        but nobody is asked in the middle of a call: where a call of its own would ask, it
        is refused. What the yes to ``args`` covered (its session scope, a host) it keeps."""
        ruled = await self._ruled(tool, onward)
        if ruled is not None and ruled.behavior == "deny":
            return f"denied by {ruled.why}"
        if self._host.approval == "plan":
            return "plan mode is on"
        same_scope = tool.session_scope(onward) == tool.session_scope(args)
        if ruled is not None and ruled.behavior == "ask":
            if same_scope and ruled == await self._ruled(tool, args):
                return None  # the very question the user already answered for this call
            return f"{tool.name} asks for approval there by {ruled.why}"
        if same_scope or not self._needs_yes(tool, onward, ruled):
            return None
        return f"the user's yes to this call does not cover {tool.session_scope(onward)}"

    def _needs_yes(self, tool: Tool[Any], args: object, ruled: Verdict | None) -> bool:
        """Whether the mode asks the user about a call of ``tool`` that writes nothing (a
        fetch), given the allow rules and the yeses for the session."""
        allowed = (ruled is not None and ruled.behavior == "allow") or (
            tool.session_scope(args) in self.allowed_for_session
        )
        return needs_approval(tool.kind, self._host.approval, root=self.workspace.root,
                              allowed_for_session=allowed, confinement=tool.confinement(args))

    async def _ask(
        self, approver: Approver, tool: Tool[Any], args: object, call: CollectedToolCall,
        preview: Preview | None,
    ) -> str | None:
        """The user's answer: None for a yes (remembered for the session, or as a rule, when
        they said so), else the refusal."""
        command = tool.command(args)
        scope = tool.session_scope(args)
        offered = await asyncio.to_thread(prefix_rule, command, scope) if (
            command and tool.name == "bash" and self.permissions is not None) else ""
        request = ApprovalRequested(
            turn=self._host.turn, index=call.index, call_id=call.id, name=tool.name,
            summary=tool.summary(call.arguments_json), command=command,
            diff=self.secrets(preview.diff) if preview else None,
            change=scrubbed_change(self.secrets, preview.change if preview else None),
            arguments=call.arguments_json, session_scope=scope, prefix_rule=offered,
        )
        self._host.emit(request)
        decision = await approver(request)
        if decision.verdict == "session":
            self.allowed_for_session.add(request.session_scope)
        if decision.verdict == "no":
            reason = decision.reason.strip()
            return "the user denied this call" + (f": {reason}" if reason else "")
        if decision.rule and self.permissions is not None:
            level, said = await self.permissions.remember(decision.rule, decision.save_to)
            self._host.emit(Notice(turn=self._host.turn, level=level, message=self.secrets(said)))
        return None

    async def _ruled(self, tool: Tool[Any], args: object) -> Verdict | None:
        """The rule that decides the call; parsing a command takes a thread (a long one
        would hold the screen)."""
        if self.permissions is None:
            return None
        values = args.model_dump() if isinstance(args, BaseModel) else {}
        return await asyncio.to_thread(self.permissions.decide, tool.name, values)


def scrubbed_change(secrets: Secrets, change: FileChange | None) -> FileChange | None:
    if change is None:
        return None
    return FileChange(
        path=change.path, before=secrets.optional(change.before), after=secrets(change.after),
    )
