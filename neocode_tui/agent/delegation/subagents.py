"""``task``: a child agent with a fresh context runs a piece of work and answers once.

The child is an ``AgentLoop`` of its own: its own system prompt (the agent file's), the
task's prompt as its only message (never the parent's history), the tools its agent allows.
What it may do is what the parent may: it asks the same approvals in the parent's mode
(which it reads live, with the parent's "yes for this session" list), the same hooks and
checkpoints see its calls, and its questions say which agent asks. Its events reach the front
ends inside the parent's call (``SubagentEvent``), its activity as that call's live output,
its usage in the session's totals, and its transcript in the session file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.call_context import CURRENT_CALL, RunningCall
from neocode_tui.agent.context import Budget
from neocode_tui.agent.delegation.agent_files import EXPLORE, AgentCatalog, AgentFile
from neocode_tui.agent.delegation.claude_names import matching
from neocode_tui.agent.delegation.spent import spent_line
from neocode_tui.agent.loop import AgentLoop, Sink
from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    LoopEvent,
    Streamed,
    SubagentDone,
    SubagentEvent,
    ToolStarted,
    TurnFinished,
)
from neocode_tui.agent.loop_host import Alone
from neocode_tui.agent.permissions import Approver, CallGate
from neocode_tui.agent.tools import AskUser, Tool, ToolError, ToolOutput, ToolRegistry, UseSkill
from neocode_tui.agent.tools.base import RESULT_CAP, Confinement, OutputCallback, Preview, cap_text
from neocode_tui.agent.tools.bash import Bash, BashArgs
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import ToolSpec
from neocode_tui.deferred import lazy
from neocode_tui.events import ErrorInfo, TextDelta, Usage
from neocode_tui.providers import Provider
from neocode_tui.vocabulary import ApprovalMode, NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.agent.delegation import isolation
else:  # only an agent with isolation: worktree needs git's worktrees
    isolation = lazy("neocode_tui.agent.delegation.isolation")

CONTINUATIONS = 3
"""Times a SubagentStop hook may send a child back to work in one task."""
TASK_NAME = "task"

ProviderFor = Callable[[AgentFile, str], Provider | None]
"""A provider of its own for an agent whose ``model`` names another model (None: the
parent's), given the ``task`` call's id, which a word about the model it runs on is about."""
UsageCounter = Callable[[Usage, str], None]
"""Told each child request's usage and the model it was made with."""
StopHook = Callable[[str, bool], Any]
"""(agent, stop_hook_active) -> the awaitable reason a SubagentStop hook blocks with, or None."""


class TaskArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = Field(description="A short label for the task (3-5 words), shown to the user.")
    prompt: str = Field(description="The whole task: the agent sees nothing else of this conversation.")
    agent: str = Field(EXPLORE, description="Which agent runs it.")


class ChildLoop(AgentLoop, Alone):
    """A child's loop: the parent's approval mode (read at each call), session approvals,
    permission rules, hooks, checkpoints, secrets and workspace. Its own host, alone but for
    the session's ``budget``, which admits each of its requests first, priced on its own
    conversation."""

    def __init__(
        self, parent: AgentLoop, provider: Provider, *, approver: Approver | None = None,
        budget: Budget | None = None, max_turns: int | None = None, workspace: Workspace | None = None,
        **options: Any,
    ) -> None:
        """``max_turns``: the agent file's, within the parent's; ``workspace``: its own
        (a worktree), else the parent's."""
        self._parent = parent
        workspace = workspace or parent.workspace
        # A task is no way around a deny rule, nor asked again what the user allowed.
        gate = CallGate(workspace, parent.secrets, self, approver=approver,
                        permissions=parent.gate.permissions,
                        allowed_for_session=parent.gate.allowed_for_session)
        turns = min(parent.max_turns, max_turns or parent.max_turns)
        super().__init__(provider, workspace, max_turns=turns, secrets=parent.secrets,
                         host=self, gate=gate, around=parent.runner.around, **options)
        self.budget = budget
        self.meter = None if budget is None else budget.meter.for_child(
            model=lambda: self.provider.model, messages=lambda: self.messages,
            system_prompt=self.current_system_prompt, tool_specs=self.tools.specs,
        )
        """What the child's next request may cost, for the budget."""

    async def before_request(self) -> ErrorInfo | None:
        if self.budget is None or self.meter is None:
            return None
        return await self.budget.admit(self, self.meter.next_request_cost)

    @property
    def approval(self) -> ApprovalMode:
        return self._parent.approval

    @approval.setter
    def approval(self, mode: ApprovalMode) -> None:
        """The parent's mode rules: a child cannot be given another."""


class ReadOnlyBash(Bash):
    """The explorer's commands: inside the read-only sandbox, which changes nothing and so
    asks nothing (a read); without a sandbox, asked like any command."""

    description = (
        "Run a read-only shell command with bash in the workspace root (the workspace and "
        "everything else are read-only, no network); stdout and stderr are returned together."
    )

    def __init__(self, parent: Bash) -> None:
        sandbox = parent.sandbox
        super().__init__(parent.output_cap, replace(sandbox, mode="read-only", network=False)
                         if sandbox.active else sandbox, parent.secrets, skills=parent.skills)
        # Bash's kind is "command" for every call; this one's depends on the sandbox.
        self.kind = "read" if self.sandbox.active else "command"  # type: ignore[assignment]

    async def run(
        self, args: BashArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        if args.unsandboxed:
            raise ToolError("not run: this agent's commands run only inside the read-only sandbox")
        return await super().run(args, workspace, on_output)


class OneAtATime(Tool[Any]):
    """A tool that changes things, run by one child at a time: concurrent children share
    the workspace, and two edits of one file at once would lose one of them."""

    def __init__(self, inner: Tool[Any], lock: asyncio.Lock) -> None:
        self.inner, self.lock = inner, lock
        self.name, self.description, self.kind = inner.name, inner.description, inner.kind
        self.args_model = inner.args_model

    def spec(self) -> ToolSpec:
        return self.inner.spec()

    def summary(self, args: Mapping[str, Any]) -> str:
        return self.inner.summary(args)

    def writes(self, args: Any, workspace: Workspace) -> list[Path]:
        return self.inner.writes(args, workspace)

    def named_writes(self, args: Any) -> list[str]:
        return self.inner.named_writes(args)

    def session_scope(self, args: Any) -> str:
        return self.inner.session_scope(args)

    def command(self, args: Any) -> str | None:
        return self.inner.command(args)

    def confinement(self, args: Any) -> Confinement:
        return self.inner.confinement(args)

    async def preview(self, args: Any, workspace: Workspace) -> Preview | None:
        return await self.inner.preview(args, workspace)

    async def run(
        self, args: Any, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        async with self.lock:
            return await self.inner.run(args, workspace, on_output)


class TaskTool(Tool[TaskArgs]):
    name = TASK_NAME
    kind = "read"
    concurrent = True
    args_model = TaskArgs

    def __init__(self, runner: Subagents) -> None:
        self.runner = runner
        # Built once: the definition is sent with every request, the same bytes each time.
        self.description = (
            "Run a subagent with a fresh context on a self-contained task; it returns its final "
            "answer. Several task calls in one message run at the same time. Agents:\n"
            f"{runner.catalog.listing()}"
        )

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"{args.get('agent') or EXPLORE}: {args.get('description', '')}"

    async def run(
        self, args: TaskArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        return await self.runner.run(args, on_output)


class SubagentHost(Protocol):
    """The session whose ``task`` calls these are, read as each call runs: its loop (the
    children's parent) and its budget, which each child request goes through too."""

    @property
    def loop(self) -> AgentLoop: ...

    @property
    def budget(self) -> Budget: ...

    def notice(self, level: NoticeLevel, message: str, *, call_id: str | None = None) -> None:
        """A word to the user about the ``task`` call ``call_id``."""


class Subagents:
    """Runs the ``task`` calls of ``host``'s session (it may be made before the session's
    loop, whose tools include ``task``)."""

    def __init__(
        self, host: SubagentHost, catalog: AgentCatalog, *, provider_for: ProviderFor,
        count: UsageCounter, stop_hook: StopHook | None = None,
        record: Callable[[str, str, list[Any]], None] | None = None,
    ) -> None:
        self._host = host
        self.catalog = catalog
        self.provider_for = provider_for
        self.count = count
        self.stop_hook = stop_hook
        self.record = record
        self._asking = asyncio.Lock()
        """One child's question at a time: concurrent children share the user."""
        self._changing = asyncio.Lock()
        """One child's edit or command at a time (``OneAtATime``)."""
        self._told: set[str] = set()
        """The agents whose missing tools were said (once per session each)."""

    @property
    def parent(self) -> AgentLoop:
        return self._host.loop

    @property
    def budget(self) -> Budget:
        return self._host.budget

    async def run(self, args: TaskArgs, on_output: OutputCallback | None) -> ToolOutput:
        agent = self.catalog.agents.get(args.agent.strip().lower() or EXPLORE)
        if agent is None:
            raise ToolError(
                f"not run: there is no agent named {args.agent!r}; the agents are "
                f"{', '.join(self.catalog.agents)}"
            )
        call = CURRENT_CALL.get() or RunningCall(self.parent.turn, 0, "")
        own = self.provider_for(agent, call.call_id)
        provider = own or self.parent.provider
        activity = _Activity(on_output, self.parent.tools)
        tools, unmatched = self._tools(agent)
        self._say_missing(agent, unmatched, call.call_id)
        tree, workspace = (await isolation.child_worktree(self.parent.workspace, agent.name, call.call_id)
                           if agent.isolation == "worktree" else (None, self.parent.workspace))
        skills = await self._preloaded(agent, call.call_id)
        child = ChildLoop(
            self.parent, provider, tools=tools,
            system_prompt=self._system_prompt(agent, workspace, skills), approver=self._approver(agent, call),
            budget=self.budget, max_turns=agent.max_turns, workspace=workspace,
        )
        child.sink = self._forwarder(call, agent, provider, activity, self._held_to_budget(child))
        try:
            finished = await child.run(args.prompt)
            for number in range(CONTINUATIONS):
                if finished.reason != "done" or self.stop_hook is None:
                    break
                reason = await self.stop_hook(agent.name, number > 0)
                if reason is None:
                    break
                finished = await child.run(f"A SubagentStop hook asks you to go on: {reason}")
        finally:
            self._done(call, agent, child)
            if own is not None:
                await own.aclose()
            kept = await isolation.worktree_words(tree) if tree is not None else ""
        usage = child.usage
        spent = spent_line(agent.name, usage)
        if kept:
            spent += f"\n[{agent.name}: {kept}]"
        if finished.reason == "error":
            problem = finished.error.message if finished.error else "it failed"
            partial = cap_text(finished.final_text, RESULT_CAP)
            return ToolOutput(f"the {agent.name} agent failed: {problem}\n{partial}\n{spent}", is_error=True)
        answer = cap_text(finished.final_text.strip(), RESULT_CAP) or "(the agent gave no answer)"
        return ToolOutput(f"{answer}\n{spent}")

    def _say_missing(self, agent: AgentFile, unmatched: list[str], call_id: str) -> None:
        """Once per session and agent: the tools its file lists that it does not get."""
        words = [part for part in (agent.missing_words, ", ".join(unmatched)) if part]
        if not words or agent.name in self._told:
            return
        self._told.add(agent.name)
        self._host.notice("info", f"agent {agent.name} runs without {'; '.join(words)}: no such tool "
                          "here", call_id=call_id)

    def _tools(self, agent: AgentFile) -> tuple[ToolRegistry, list[str]]:
        """What the agent file lists, of what the parent has (never ``task``, and never
        ``ask_user``: only the agent the user talks to asks them), less what it denies, and
        the names that matched no tool of the session (an MCP server's not connected): a
        file narrows the parent's tools, it cannot add one."""
        offered = self.parent.tools.names
        listed = agent.tools if agent.tools is not None else tuple(offered)
        unmatched = [pattern for pattern in listed if not matching(pattern, offered)]
        denied = {name for pattern in agent.denied for name in matching(pattern, offered)}
        names = dict.fromkeys(name for pattern in listed for name in matching(pattern, offered))
        tools: list[Tool[Any]] = []
        for name in names:
            tool = self.parent.tools.get(name)
            if tool is None or name in (TASK_NAME, AskUser.name) or name in denied:
                continue
            if agent.name == EXPLORE and isinstance(tool, Bash):
                tool = ReadOnlyBash(tool)
            tools.append(tool if tool.kind == "read" else OneAtATime(tool, self._changing))
        return ToolRegistry(tools), unmatched

    async def _preloaded(self, agent: AgentFile, call_id: str) -> list[str]:
        """The skills the agent file lists, loaded as ``skill`` loads them (which opens
        their folders); the ones that could not be are said once per session and agent."""
        tool = self.parent.tools.get(UseSkill.name)
        if not agent.skills or not isinstance(tool, UseSkill):
            return []
        loaded, problems = await asyncio.to_thread(tool.preload, agent.skills, self.parent.workspace)
        told = f"{agent.name} skills"
        if problems and told not in self._told:
            self._told.add(told)
            self._host.notice("warning", f"agent {agent.name} starts without some of its skills: "
                              f"{'; '.join(problems)}", call_id=call_id)
        return loaded

    def _system_prompt(self, agent: AgentFile, workspace: Workspace, skills: list[str]) -> str:
        preloaded = "".join(f"{skill}\n\n" for skill in skills)
        return (
            f"{agent.prompt}\n\n{preloaded}You are the {agent.name} agent, working for another "
            f"agent in the workspace {workspace.root}. Your last message is your answer: "
            "the other agent reads only that, so make it complete."
        )

    def _held_to_budget(self, child: ChildLoop) -> Callable[[TurnFinished], None]:
        """What to tell the session's budget and the child's meter when one of the child's
        requests ended (each was admitted by the budget first: ``ChildLoop.before_request``)."""
        budget, meter = self.budget, child.meter
        if budget is None or meter is None:
            return lambda turn: None

        def ended(turn: TurnFinished) -> None:
            meter.turn_finished(turn.usage, turn.model)
            budget.counted(turn.usage is not None, child)

        return ended

    def _forwarder(
        self, call: RunningCall, agent: AgentFile, provider: Provider, activity: _Activity,
        ended: Callable[[TurnFinished], None],
    ) -> Sink:
        def forward(event: LoopEvent) -> None:
            if isinstance(event, TurnFinished):
                if event.usage is not None:
                    self.count(event.usage, event.model or provider.model)
                ended(event)
            activity.event(event)
            sink = self.parent.sink
            if sink is not None:
                sink(SubagentEvent(turn=call.turn, index=call.index, call_id=call.call_id,
                                   agent=agent.name, event=event))

        return forward

    def _approver(self, agent: AgentFile, call: RunningCall) -> Approver | None:
        ask = self.parent.gate.approver
        if ask is None:
            return None

        async def approve(request: ApprovalRequested) -> ApprovalDecision:
            async with self._asking:
                return await ask(request.model_copy(
                    update={"agent": agent.name, "parent_call_id": call.call_id}))

        return approve

    def _done(self, call: RunningCall, agent: AgentFile, child: ChildLoop) -> None:
        if self.record is not None:
            self.record(call.call_id, agent.name, list(child.messages))
        sink = self.parent.sink
        if sink is not None:
            sink(SubagentDone(turn=call.turn, index=call.index, call_id=call.call_id,
                              agent=agent.name, messages=list(child.messages), usage=child.usage))


class _Activity:
    """The child's work as the parent call's live output: each tool it starts, and its text,
    line by line."""

    def __init__(self, out: OutputCallback | None, tools: ToolRegistry) -> None:
        self.out = out
        self.tools = tools
        self.mid_line = False

    def event(self, event: LoopEvent) -> None:
        if self.out is None:
            return
        if isinstance(event, Streamed) and isinstance(event.event, TextDelta) and event.event.text:
            self.out(event.event.text)
            self.mid_line = not event.event.text.endswith("\n")
        elif isinstance(event, ToolStarted):
            tool = self.tools.get(event.name)
            arguments = event.arguments if isinstance(event.arguments, dict) else {}
            what = tool.summary(arguments) if tool is not None else ""
            self.out(("\n" if self.mid_line else "") + f"→ {event.name} {what}".rstrip() + "\n")
            self.mid_line = False
