"""The agent loop: stream a turn, run its tool calls, feed back the results, repeat.

It drives no widget: whoever runs it (the app, the headless printer, a test) sees what
happens through ``sink``, one ``LoopEvent`` at a time, and answers approval requests
through ``approver``. The transcript, ``messages``, is valid for the next request after
every way a run can end: every tool call in it has exactly one result.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from neocode_tui.agent.approvals import needs_approval, refusal_without_approver
from neocode_tui.agent.buffers import Buffers
from neocode_tui.agent.call_context import CURRENT_CALL, RunningCall
from neocode_tui.agent.hooks import Hooks, Permission, ToolVerdict
from neocode_tui.agent.images import without_images
from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    FileChange,
    LoopEvent,
    Notice,
    RunFinished,
    StopReason,
    Streamed,
    ToolFinished,
    ToolOutputDelta,
    ToolStarted,
    ToolStatus,
    TurnFinished,
    TurnStarted,
)
from neocode_tui.agent.memory_files import MemoryFiles
from neocode_tui.agent.permission_rules import Verdict
from neocode_tui.agent.permissions import Permissions, prefix_rule
from neocode_tui.agent.prompt import PLAN_LEFT, PLAN_MODE, build_system_prompt
from neocode_tui.agent.store import SessionStore
from neocode_tui.agent.tools import Tool, ToolError, ToolOutput, ToolRegistry, default_tools
from neocode_tui.agent.tools.skill import UseSkill
from neocode_tui.agent.transcript import INTERRUPTED, STOPPED, tool_result, unanswered_calls
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace
from neocode_tui.chat import ChatRequest, Image, Message, ToolCall
from neocode_tui.collector import CollectedToolCall, CollectedTurn, Collector
from neocode_tui.events import ErrorInfo, StreamEvent, Usage
from neocode_tui.known_secrets import Secrets
from neocode_tui.live_output import LineCap
from neocode_tui.providers import Provider
from neocode_tui.vocabulary import ApprovalMode

Sink = Callable[[LoopEvent], None]
Approver = Callable[[ApprovalRequested], Awaitable[ApprovalDecision]]
BeforeTool = Callable[[Tool[Any], list[Path]], Awaitable[None]]
BetweenTurns = Callable[[], Awaitable[None]]
"""Told each approved call's tool and the paths it will write, just before it runs."""
BeforeRequest = Callable[[], Awaitable[ErrorInfo | None]]
"""Asked before each request: why it must not be sent (a budget), or None."""

CUT_SHORT = {
    "length": "the answer was cut off at the model's output token limit",
    "content_filter": "the answer was stopped by the provider's content filter",
}
FINAL_ANSWER_REQUEST = (
    "You have reached the turn limit for this run: tool calls will not be run any more. "
    "Answer now, without tools: what you did, what is left to do, and how to continue."
)
TURN_LIMIT_RESULT = "not run: the turn limit was reached"
CONCURRENT_CALLS = 4
"""Calls of a concurrent tool (``task``) running at once; the rest of the batch waits."""


class AgentLoop:
    """Runs prompts against ``provider`` with tools working inside ``workspace``.

    ``approval`` and ``allowed_for_session`` may be changed between and during runs; each
    tool call reads them when it comes up. With no ``approver`` (headless), a call that
    would need a yes is refused with a result telling the model why.
    """

    def __init__(
        self,
        provider: Provider,
        workspace: Path,
        *,
        sink: Sink | None = None,
        approver: Approver | None = None,
        approval: ApprovalMode = "ask",
        max_turns: int = 25,
        session: SessionStore | None = None,
        tools: ToolRegistry | None = None,
        messages: list[Message] | None = None,
        usage: Usage | None = None,
        system_prompt: str | None = None,
        secrets: Secrets | None = None,
        buffers: Buffers | None = None,
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.provider = provider
        self.workspace = Workspace(workspace, buffers)
        self.sink = sink
        self.approver = approver
        self.approval: ApprovalMode = approval
        self.max_turns = max_turns
        self.session = session
        self.tools = tools or default_tools()
        self.messages: list[Message] = list(messages or [])
        """The transcript: public, valid for the next request whenever no run is active."""
        self.usage = usage or Usage.unknown()
        """Token totals for the whole session."""
        self.system_prompt = system_prompt
        """None until the first run builds it from the instruction files."""
        self.allowed_for_session: set[str] = set()
        self.before_tool: BeforeTool | None = None
        """Checkpoints hook in here, to save what a call is about to change."""
        self.hooks: Hooks | None = None
        """The user's PreToolUse and PostToolUse hooks, run around each call."""
        self.permissions: Permissions | None = None
        """The allow, ask and deny rules: deny beats ask beats allow, and beats the mode."""
        self.append_system_prompt = ""
        """The user's words added after the built system prompt (``--append-system-prompt``)."""
        self.between_turns: BetweenTurns | None = None
        """Awaited before each request of a run after its first (the transcript is valid
        then): compaction hooks in here, so a long run goes on inside the window."""
        self.before_request: BeforeRequest | None = None
        """A spending limit hooks in here: a refusal ends the run as an error."""
        self.clock: Callable[[], float] = time.monotonic
        """What tool durations are measured with."""
        self.pending_notes: Callable[[], list[str]] | None = None
        """Lines the model is told before its next request, appended after the messages it
        has seen (which stay as they were sent): background commands that ended."""
        self.secrets = secrets if secrets is not None else Secrets()
        """The run's holder: scrubs the streamed answer and every tool result before anyone
        sees it (the session shares it with everything else)."""
        self.memory = MemoryFiles(self.workspace.root, self.secrets)
        """The instruction files loaded: at the start, and each folder's as work reaches it."""
        self.images = True
        """Whether the model takes images; without, each is sent as a line saying it was
        not sent (``images = false`` in the settings)."""
        self.turn = 0
        """The last turn number; it keeps growing across runs, so (turn, index) stays unique."""
        self._call_index: dict[str, int] = {}
        self._running: set[str] = set()
        """The ids of the calls whose tools are running: a cancel stops them part way."""
        self._last_text = ""
        self._planned = False
        """The last request was made in plan mode: the next one out of it says so."""
        self._final: str | None = None
        """The answer a tool ended the run with (``ToolOutput.final``)."""
        self._work: asyncio.Task[RunFinished] | None = None
        self._stopped: RunFinished | None = None

    @property
    def running(self) -> bool:
        return self._work is not None and not self._work.done()

    async def run(self, prompt: str, images: Sequence[Image] = ()) -> RunFinished:
        """Run ``prompt`` until the model stops calling tools, an error, or the turn limit.

        However a run ends, the partial answer is kept and every call not run gets a
        result, so the transcript stays valid, and ``RunFinished`` is emitted. ``cancel()``
        stops a run on purpose: it then returns ``RunFinished(reason="cancelled")``. Any
        other cancellation (a timeout, the program closing) propagates as usual, so
        ``asyncio.timeout()`` around a run raises ``TimeoutError``.
        """
        if self.running:
            raise RuntimeError("a run is already in progress")
        self._last_text = ""
        self._stopped = self._final = None
        self._add(Message(role="user", content=prompt, images=list(images)))
        self._work = work = asyncio.create_task(self._run_reporting())
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if (task is not None and task.cancelling()) or self._stopped is None:
                raise  # cancelled from outside: the caller's cancel goes on
            return self._stopped
        finally:
            self._work = None

    def cancel(self) -> bool:
        """Stop the run in progress, if any: ``run`` returns once it has wound down."""
        if self._work is None or self._work.done():
            return False
        self._work.cancel()
        return True

    async def stop(self) -> None:
        """Cancel the run in progress, if any, and wait until it has wound down."""
        work = self._work
        if self.cancel() and work is not None:
            await asyncio.wait([work])

    async def _run_reporting(self) -> RunFinished:
        try:
            finished = await self._run_turns()
        except asyncio.CancelledError:
            self._stopped = self._cancelled()
            self._emit(self._stopped)
            raise
        self._emit(finished)
        return finished

    async def _run_turns(self) -> RunFinished:
        for number in range(self.max_turns):
            if number and self.between_turns is not None:
                await self.between_turns()
            turn = await self._stream_turn()
            if not turn.ok:
                return self._failed(turn)
            if not turn.tool_calls and not turn.dropped_tool_calls:
                return self._finished("done")
            for batch in self._batches(turn.tool_calls):
                await self._run_batch(batch)
            if turn.dropped_tool_calls:
                self._note_dropped(turn.dropped_tool_calls)
            if self._final is not None:
                self._last_text, self._final = self._final, None
                return self._finished("done")
        # The tools stay defined (Anthropic rejects a history with tool calls and no tool
        # definitions) but may not be called; a call a server makes anyway is not run.
        self._add(Message(role="user", content=FINAL_ANSWER_REQUEST))
        turn = await self._stream_turn(tool_choice="none")
        if not turn.ok:
            return self._failed(turn)
        self._close_unanswered(TURN_LIMIT_RESULT, "skipped")
        return self._finished("turn_limit")

    def _batches(self, calls: list[CollectedToolCall]) -> list[list[CollectedToolCall]]:
        """The calls in order, those of a concurrent tool next to each other in one batch."""
        batches: list[list[CollectedToolCall]] = []
        for call in calls:
            tool = self.tools.get(call.name)
            together = tool is not None and tool.concurrent
            if together and batches and batches[-1][-1].name == call.name:
                batches[-1].append(call)
            else:
                batches.append([call])
        return batches

    async def _run_batch(self, calls: list[CollectedToolCall]) -> None:
        """One call, or a batch of concurrent ones, ``CONCURRENT_CALLS`` at a time; each is
        shown finished when it is, and the results go to the transcript in the calls' order
        (those finished before a cancel too: the others get "interrupted")."""
        if len(calls) == 1:
            self._answer(calls[0], await self._finished_call(calls[0]))
            return
        gate = asyncio.Semaphore(CONCURRENT_CALLS)
        results: dict[str, ToolFinished] = {}

        async def one(call: CollectedToolCall) -> None:
            async with gate:
                finished = results[call.id] = await self._finished_call(call)
            self._emit(finished)

        try:
            await asyncio.gather(*(one(call) for call in calls))
        finally:
            for call in calls:
                if call.id in results:
                    self._answer(call, results[call.id], emit=False)

    async def _finished_call(self, call: CollectedToolCall) -> ToolFinished:
        finished = await self._run_call(call)
        if finished.status == "ok":
            finished = await self._post_tool_hooks(call, finished)
        return finished

    def _answer(self, call: CollectedToolCall, finished: ToolFinished, *, emit: bool = True) -> None:
        self._add(tool_result(self._as_tool_call(call), finished.result, finished.is_error,
                              finished.duration, finished.images, finished.status))
        if emit:
            self._emit(finished)

    async def _stream_turn(self, tool_choice: Literal["auto", "none"] = "auto") -> CollectedTurn:
        refused = await self.before_request() if self.before_request is not None else None
        if refused is not None:
            return CollectedTurn(error=refused)
        self.turn += 1
        number = self.turn
        self._emit(TurnStarted(turn=number))
        if self.pending_notes is not None and (notes := self.pending_notes()):
            self._add(Message(role="user", content="\n".join(f"[{note}]" for note in notes)))
        if self.system_prompt is None:
            self.system_prompt = await asyncio.to_thread(self.built_system_prompt)
        request = ChatRequest(
            model=self.provider.model,
            system=self._system_for_mode(),
            messages=list(self.messages) if self.images else without_images(self.messages),
            tools=self.tools.specs(),
            tool_choice=tool_choice,
        )
        collector = Collector(self._forwarder(number))
        try:
            # Scrubbed where the events fan out: the screen, the transcript and the file
            # all get the same scrubbed text.
            turn = await collector.collect(self.secrets.stream(self.provider.stream(request)))
        except asyncio.CancelledError:
            self._finish_turn(number, collector.partial())
            raise
        except Exception as exc:  # providers report failures as events; this is a bug
            failure = self.secrets(f"the provider failed: {type(exc).__name__}: {exc}")
            turn = CollectedTurn(error=ErrorInfo(kind="stream", message=failure))
        self._finish_turn(number, turn)
        return turn

    def built_system_prompt(self) -> str:
        """The system prompt from the files as they are now (the skills listed, the user's
        addition after it); reads them, so call it in a thread from async code."""
        skill = self.tools.get("skill")
        skills = skill.catalogue(self.workspace.root).listing() if isinstance(skill, UseSkill) else ""
        built = build_system_prompt(self.workspace.root, self.secrets, self.memory, skills)
        return f"{built}\n\n{self.append_system_prompt}" if self.append_system_prompt else built

    def _system_for_mode(self) -> str:
        assert self.system_prompt is not None
        planning, left = self.approval == "plan", self._planned and self.approval != "plan"
        self._planned = planning
        if planning:
            return f"{self.system_prompt}\n\n{PLAN_MODE}"
        return f"{self.system_prompt}\n\n{PLAN_LEFT}" if left else self.system_prompt

    def _finish_turn(self, number: int, turn: CollectedTurn) -> None:
        self._record(turn)
        if turn.finish_reason in CUT_SHORT:
            self._emit(Notice(turn=number, level="warning", message=CUT_SHORT[turn.finish_reason]))
        self._emit(
            TurnFinished(
                turn=number, finish_reason=turn.finish_reason, usage=turn.usage, error=turn.error
            )
        )

    def _forwarder(self, turn: int) -> Callable[[StreamEvent], None] | None:
        sink = self.sink
        if sink is None:
            return None
        return lambda event: sink(Streamed.model_construct(turn=turn, event=event))

    def _record(self, turn: CollectedTurn) -> None:
        """The assistant message as streamed, even a partial one (the user saw it)."""
        if turn.usage is not None:
            self.usage = self.usage + turn.usage
            if self.session is not None:
                self.session.append_usage(turn.usage)
        self._call_index = {call.id: call.index for call in turn.tool_calls}
        self._last_text = turn.text or turn.refusal
        if self._last_text or turn.tool_calls:
            self._add(
                Message(
                    role="assistant",
                    content=self._last_text,
                    reasoning=turn.reasoning,
                    thinking=turn.thinking,
                    tool_calls=[self._as_tool_call(call) for call in turn.tool_calls],
                )
            )

    async def _run_call(self, call: CollectedToolCall) -> ToolFinished:
        """Validate, approve and run one call; every failure becomes a result for the model."""

        started: float | None = None

        def result(
            text: str, status: ToolStatus = "error", *, diff: str | None = None,
            change: FileChange | None = None, images: Sequence[Image] = (),
        ) -> ToolFinished:
            duration = None if started is None else round(self.clock() - started, 3)
            return ToolFinished(
                turn=self.turn, index=call.index, call_id=call.id, name=call.name,
                result=self.secrets(text), is_error=status != "ok", status=status,
                diff=self.secrets.optional(diff), change=self._scrubbed(change), duration=duration,
                images=list(images),
            )

        tool = self.tools.get(call.name)
        if tool is None:
            return result(
                f"not run: there is no tool named {call.name!r}; "
                f"the tools are {', '.join(self.tools.names)}"
            )
        if call.parse_error is not None:
            return result(
                f"not run: the {call.parse_error}; send the call again with a JSON object"
            )
        try:
            args = tool.args_model.model_validate(call.arguments_json)
        except ValidationError as exc:
            return result(f"not run: invalid arguments for {tool.name}: {_describe(exc)}")
        verdict = await self._pre_tool_hooks(call)
        if verdict.permission == "deny":
            return result(f"not run: blocked by a PreToolUse hook: {verdict.reason}", "denied")
        # Asked outside the tool's error handling: an approval that cannot be answered
        # (the program closing) is a cancel, never a failed call followed by a new request.
        try:
            denial = await self._approve(tool, args, call, verdict.permission)
        except (ToolError, PathOutsideWorkspace) as exc:
            return result(str(exc))
        except OSError as exc:
            return result(f"{tool.name} failed: {exc.strerror or exc}")
        if denial is not None:
            return result(denial, "denied")
        try:
            if self.before_tool is not None:
                await self.before_tool(tool, tool.writes(args, self.workspace))
            self._emit(
                ToolStarted(
                    turn=self.turn, index=call.index, call_id=call.id, name=call.name,
                    arguments=call.arguments_json,
                )
            )
            self._running.add(call.id)
            CURRENT_CALL.set(RunningCall(self.turn, call.index, call.id))
            started = self.clock()
            output = await tool.run(args, self.workspace, self._live_output(call))
            self._running.discard(call.id)
            output = await self._with_instructions(tool.touches(args, self.workspace), output)
        except (ToolError, PathOutsideWorkspace) as exc:
            return result(str(exc))
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return result(f"{tool.name} failed: {exc.strerror or exc}{where}")
        except Exception as exc:  # a tool bug must not end the session
            return result(f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        if output.final is not None:
            self._final = self.secrets(output.final)
        return result(
            output.text, "error" if output.is_error else "ok", diff=output.diff,
            change=output.change, images=output.images,
        )

    async def _with_instructions(self, paths: list[Path], output: ToolOutput) -> ToolOutput:
        """The instructions of a folder reached for the first time come with the result
        (once, and said on screen)."""
        if output.is_error or not paths:
            return output
        arrived = await asyncio.to_thread(self.memory.reached, paths)
        for entry in arrived:
            self._emit(Notice(turn=self.turn, level="info", message=(
                f"{entry.file.shown} joins the context ({entry.file.size} bytes): "
                f"the instructions of {entry.folder}/")))
        notes = "".join(
            f"\n\n<instructions file=\"{entry.file.shown}\">\nInstructions for the files under "
            f"{entry.folder}/ (they apply from now on):\n\n{entry.text}\n</instructions>"
            for entry in arrived
        )
        return replace(output, text=output.text + notes) if notes else output

    async def _pre_tool_hooks(self, call: CollectedToolCall) -> ToolVerdict:
        if self.hooks is None:
            return ToolVerdict()
        verdict = await self.hooks.pre_tool(call.name, call.arguments_json)
        return ToolVerdict(verdict.permission, self.secrets(verdict.reason))

    async def _post_tool_hooks(self, call: CollectedToolCall, finished: ToolFinished) -> ToolFinished:
        """What a PostToolUse hook has to say about the result goes to the model with it."""
        if self.hooks is None:
            return finished
        note = await self.hooks.post_tool(call.name, call.arguments_json, finished.result)
        if not note:
            return finished
        return finished.model_copy(
            update={"result": f"{finished.result}\n\n[PostToolUse hook: {self.secrets(note)}]"}
        )

    async def _approve(
        self, tool: Tool[Any], args: object, call: CollectedToolCall, hook: Permission | None = None
    ) -> str | None:
        """None when the call may run, else the refusal the model is sent. A deny rule
        refuses whatever the mode or a hook says; a hook's "allow" runs it without asking
        (unless an ask rule is about it), its "ask" or an ask rule asks whatever the mode
        (but plan mode holds); an allow rule stops asking as a yes for the session does."""
        ruled = await self._ruled(tool, args)
        if ruled is not None and ruled.behavior == "deny":
            return f"not run: denied by {ruled.why}"
        if self.approval == "plan" and tool.kind != "read":
            return (
                f"not run: plan mode is on, so only reading tools run; {tool.name} will be "
                "available once the user leaves plan mode. Finish the plan instead."
            )
        asked_by_rule = ruled is not None and ruled.behavior == "ask"
        if hook == "allow" and not asked_by_rule:
            return None
        writes, root = tool.writes(args, self.workspace), self.workspace.root
        confinement = tool.confinement(args)
        allowed = (ruled is not None and ruled.behavior == "allow") or (
            tool.session_scope(args) in self.allowed_for_session
        )
        if hook != "ask" and not asked_by_rule and not needs_approval(
            tool.kind, self.approval, writes, root=root, allowed_for_session=allowed,
            confinement=confinement,
        ):
            return None
        preview = await tool.preview(args, self.workspace)
        if self.approver is None:
            if asked_by_rule and ruled is not None:
                return f"not run: {tool.name} asks for approval by {ruled.why}, and nobody can approve it in this run"
            return refusal_without_approver(tool.name, writes, root, confinement, tool.kind)
        command = tool.command(args)
        scope = tool.session_scope(args)
        offered = await asyncio.to_thread(prefix_rule, command, scope) if (
            command and tool.name == "bash" and self.permissions is not None) else ""
        request = ApprovalRequested(
            turn=self.turn, index=call.index, call_id=call.id, name=tool.name,
            summary=tool.summary(call.arguments_json), command=command,
            diff=self.secrets(preview.diff) if preview else None,
            change=self._scrubbed(preview.change if preview else None),
            arguments=call.arguments_json, session_scope=scope, prefix_rule=offered,
        )
        self._emit(request)
        decision = await self.approver(request)
        if decision.verdict == "session":
            self.allowed_for_session.add(request.session_scope)
        if decision.verdict == "no":
            reason = decision.reason.strip()
            return "the user denied this call" + (f": {reason}" if reason else "")
        if decision.rule and self.permissions is not None:
            level, said = await self.permissions.remember(decision.rule, decision.save_to)
            self._emit(Notice(turn=self.turn, level=level, message=self.secrets(said)))
        return None

    async def _ruled(self, tool: Tool[Any], args: object) -> Verdict | None:
        """The rule that decides the call; parsing a command takes a thread (a long one
        would hold the screen)."""
        if self.permissions is None:
            return None
        values = args.model_dump() if isinstance(args, BaseModel) else {}
        return await asyncio.to_thread(self.permissions.decide, tool.name, values)

    def _scrubbed(self, change: FileChange | None) -> FileChange | None:
        if change is None:
            return None
        return FileChange(
            path=change.path, before=self.secrets.optional(change.before),
            after=self.secrets(change.after),
        )

    def _live_output(self, call: CollectedToolCall) -> Callable[[str], None] | None:
        """Passes output on line by line: a key never spans two lines, so each line can
        be redacted whole. Each line is cut (``LineCap``), so one endless line costs no
        more than many short ones. A last line without an end shows up in the final result."""
        sink = self.sink
        if sink is None:
            return None
        turn = self.turn
        lines = LineCap()

        def feed(text: str) -> None:
            if ended := lines.feed(text):
                sink(ToolOutputDelta(turn=turn, index=call.index, call_id=call.id,
                                     text=self.secrets(ended)))

        return feed

    def _note_dropped(self, count: int) -> None:
        message = (
            f"{count} tool call(s) in your last message had no tool name, so they were not "
            "run; send them again with a name if they are still needed."
        )
        self._add(Message(role="user", content=message))
        self._emit(Notice(turn=self.turn, level="warning", message=message))

    def _close_unanswered(self, text: str, status: ToolStatus, running_text: str = "") -> None:
        """Give each call of the last assistant message that has no result this one
        (``running_text`` for the call whose tool was running, if any)."""
        running, self._running = self._running, set()
        for call in unanswered_calls(self.messages):
            result = running_text if running_text and call.id in running else text
            self._add(tool_result(call, result, is_error=True, status=status))
            self._emit(
                ToolFinished(
                    turn=self.turn, index=self._call_index.get(call.id, 0), call_id=call.id,
                    name=call.name, result=result, is_error=True, status=status,
                )
            )

    def _failed(self, turn: CollectedTurn) -> RunFinished:
        assert turn.error is not None
        self._close_unanswered(
            f"not run: the response failed before it was complete ({turn.error.message})",
            "skipped",
        )
        return RunFinished(
            turn=self.turn, reason="error", final_text=self._last_text, usage=self.usage,
            error=turn.error,
        )

    def _cancelled(self) -> RunFinished:
        self._close_unanswered(INTERRUPTED, "interrupted", running_text=STOPPED)
        return self._finished("cancelled")

    def _finished(self, reason: StopReason) -> RunFinished:
        return RunFinished(
            turn=self.turn, reason=reason, final_text=self._last_text, usage=self.usage
        )

    def _add(self, message: Message) -> None:
        self.messages.append(message)
        if self.session is not None:
            self.session.append_message(message)

    def _emit(self, event: LoopEvent) -> None:
        if self.sink is not None:
            self.sink(event)

    @staticmethod
    def _as_tool_call(call: CollectedToolCall) -> ToolCall:
        return ToolCall(id=call.id, name=call.name, arguments=call.arguments)


def _describe(error: ValidationError) -> str:
    """Pydantic's errors in one line: "path: Field required; timeout: ..."."""
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
