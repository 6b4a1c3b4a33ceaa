"""The agent loop: stream a turn, run its tool calls, feed back the results, repeat.

It drives no widget: whoever runs it (the app, the headless printer, a test) sees what
happens through ``sink``, one ``LoopEvent`` at a time, and answers approval requests
through ``approver``; what runs around its requests (a budget, compaction) it asks its
``host``. The transcript, ``messages``, is valid for the next request after
every way a run can end: every tool call in it has exactly one result.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from neocode_tui.agent.buffers import Buffers
from neocode_tui.agent.extensions import MemoryFiles
from neocode_tui.agent.images import without_images
from neocode_tui.agent.loop_events import (
    LoopEvent,
    Notice,
    RunFinished,
    Steered,
    StopReason,
    Streamed,
    ToolFinished,
    ToolStatus,
    TurnFinished,
    TurnStarted,
)
from neocode_tui.agent.loop_host import Alone, LoopHost
from neocode_tui.agent.notes import notes_message
from neocode_tui.agent.permissions import Approver, CallGate
from neocode_tui.agent.session import PLAN_LEFT, PLAN_MODE, build_system_prompt
from neocode_tui.agent.store import SessionStore
from neocode_tui.agent.tool_runner import AroundCalls, ToolRunner, as_tool_call
from neocode_tui.agent.tools import ToolRegistry, default_tools
from neocode_tui.agent.tools.skill import UseSkill
from neocode_tui.agent.transcript import INTERRUPTED, STOPPED, tool_result, unanswered_calls
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import ChatRequest, Image, Message, RunEnd
from neocode_tui.collector import CollectedTurn, Collector
from neocode_tui.events import ErrorInfo, StreamEvent, Usage
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers import Provider
from neocode_tui.vocabulary import CUT_SHORT, ApprovalMode

Sink = Callable[[LoopEvent], None]

FINAL_ANSWER_REQUEST = (
    "You have reached the turn limit for this run: tool calls will not be run any more. "
    "Answer now, without tools: what you did, what is left to do, and how to continue."
)
TURN_LIMIT_RESULT = "not run: the turn limit was reached"
"""Heads the notes the model is told between messages (a background command ended)."""


class AgentLoop:
    """Runs prompts against ``provider`` with tools working inside ``workspace``.

    The loop streams the turns and keeps the transcript; its ``runner`` runs each turn's
    tool calls and its ``gate`` says whether one may run. ``approval`` may be changed
    between and during runs; each tool call reads it when it comes up.

    ``gate``: the one the session judges calls with (else the loop makes its own, asking
    ``approver``); ``around``: what runs around every call (hooks, checkpoints); ``clock``:
    what tool durations are measured with; ``images``: whether the model takes images
    (without, each is sent as a line saying it was not sent); ``append_system_prompt``: the
    user's words after the built system prompt (``--append-system-prompt``).
    """

    def __init__(
        self,
        provider: Provider,
        workspace: Path | Workspace,
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
        host: LoopHost | None = None,
        gate: CallGate | None = None,
        around: AroundCalls | None = None,
        clock: Callable[[], float] = time.monotonic,
        images: bool = True,
        append_system_prompt: str = "",
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.provider = provider
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace, buffers)
        """Given as a ``Workspace``, it is shared (a subagent works in its parent's)."""
        self.sink = sink
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
        self.append_system_prompt = append_system_prompt
        self.host: LoopHost = host or Alone()
        self.secrets = secrets if secrets is not None else Secrets()
        """The run's holder: scrubs the streamed answer and every tool result before anyone
        sees it (the session shares it with everything else)."""
        self.memory = MemoryFiles(self.workspace.root, self.secrets,
                                  hidden=lambda path: self.workspace.hidden(path))
        """The instruction files loaded: at the start, and each folder's as work reaches it."""
        self.images = images
        self.turn = 0
        """The last turn number; it keeps growing across runs, so (turn, index) stays unique."""
        self.gate = gate or CallGate(self.workspace, self.secrets, self, approver=approver)
        """Approvals: the approver, the permission rules, the yeses for the session."""
        self.runner = ToolRunner(
            self.tools, self.workspace, self.secrets, self.memory, approve=self.gate.refusal,
            emit=self.emit, add=self._add, turn=lambda: self.turn, live=lambda: self.sink is not None,
            around=around, clock=clock,
        )
        """Runs the calls."""
        self._call_index: dict[str, int] = {}
        self._last_text = ""
        self._planned = False
        self._fallback: str | None = None
        """The fallback model this run went on with (each prompt tries the model first)."""
        """The last request was made in plan mode: the next one out of it says so."""
        self._work: asyncio.Task[RunFinished] | None = None
        self._stopped: RunFinished | None = None

    @property
    def running(self) -> bool:
        return self._work is not None and not self._work.done()

    async def run(self, prompt: str, images: Sequence[Image] = (), ran: Sequence[Message] = ()) -> RunFinished:
        """Run ``prompt`` until the model stops calling tools, an error, or the turn limit;
        ``ran``: the calls run before it (a command's lines), kept on it for the screen.

        However a run ends, the partial answer is kept and every call not run gets a
        result, so the transcript stays valid, and ``RunFinished`` is emitted. ``cancel()``
        stops a run on purpose: it then returns ``RunFinished(reason="cancelled")``. Any
        other cancellation (a timeout, the program closing) propagates as usual, so
        ``asyncio.timeout()`` around a run raises ``TimeoutError``.
        """
        if self.running:
            raise RuntimeError("a run is already in progress")
        self._last_text = ""
        self._stopped = self.runner.final = self._fallback = None
        self._add_notes()  # before the prompt: the user's words stay the newest
        self._add(Message(role="user", content=prompt, images=list(images), ran=list(ran)))
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
            self._ended(self._stopped)
            raise
        self._ended(finished)
        return finished

    def _ended(self, finished: RunFinished) -> None:
        """A run that did not simply finish leaves its end on its last message (and in the
        file), so a resumed session shows what was shown."""
        if finished.reason != "done" and self.messages:
            error = finished.error
            ended = RunEnd(reason=finished.reason, message=error.message if error else "",
                           kind=error.kind if error else "")
            self.messages[-1] = self.messages[-1].model_copy(update={"ended": ended})
            if self.session is not None:
                self.session.append_run_end(ended)
        self.emit(finished)

    async def _run_turns(self) -> RunFinished:
        for number in range(self.max_turns):
            if number:
                await self.host.between_turns()
            turn = await self._stream_turn()
            if not turn.ok:
                return self._failed(turn)
            if not turn.tool_calls and not turn.dropped_tool_calls:
                if self.host.steering():
                    continue  # the user spoke while it answered: the turn reads it
                return self._finished("done")
            await self.runner.run(turn.tool_calls)
            if turn.dropped_tool_calls:
                self._note_dropped(turn.dropped_tool_calls)
            if self.runner.final is not None:
                self._last_text, self.runner.final = self.runner.final, None
                return self._finished("done")
        # The tools stay defined (Anthropic rejects a history with tool calls and no tool
        # definitions) but may not be called; a call a server makes anyway is not run.
        self._add(Message(role="user", content=FINAL_ANSWER_REQUEST))
        turn = await self._stream_turn(tool_choice="none")
        if not turn.ok:
            return self._failed(turn)
        self._close_unanswered(TURN_LIMIT_RESULT, "skipped")
        return self._finished("turn_limit")

    def _add_notes(self) -> None:
        """What the model is to hear of (the host's ``pending_notes``), as a message marked as NeoCode's
        own, never as the user's words."""
        if notes := self.host.pending_notes():
            self._add(Message(role="user", content=notes_message(notes), notice=True))

    def _add_steers(self, turn: int) -> None:
        """The user's words sent while the run worked, as their messages, after what the
        model has seen (its tool results), so this request reads them."""
        for text in self.host.take_steers():
            self._add(Message(role="user", content=text))
            self.emit(Steered(turn=turn, text=text))

    async def _stream_turn(self, tool_choice: Literal["auto", "none"] = "auto") -> CollectedTurn:
        refused = await self.host.before_request()
        if refused is not None:
            return CollectedTurn(error=refused)
        self.turn += 1
        number = self.turn
        self.emit(TurnStarted(turn=number))
        self._add_notes()
        self._add_steers(number)
        if self.system_prompt is None:
            self.system_prompt = await asyncio.to_thread(self.built_system_prompt)
        for line in self.memory.take_withheld():
            self.emit(Notice(turn=number, level="warning", message=line))
        sent = self.messages[self.host.sent_from():]
        request = ChatRequest(
            model=self._fallback or self.provider.model,
            system=self._system_for_mode(),
            messages=sent if self.images else without_images(sent),
            tools=self.tools.specs(),
            tool_choice=tool_choice,
        )
        collector = Collector(self._forwarder(number), self.runner.clock)
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
        skills = skill.catalogue(self.workspace).listing() if isinstance(skill, UseSkill) else ""
        built = build_system_prompt(self.workspace.root, self.secrets, self.memory, skills)
        return f"{built}\n\n{self.append_system_prompt}" if self.append_system_prompt else built

    def current_system_prompt(self) -> str:
        """The system prompt the next request sends before the mode's words, built now if
        no run has built it yet (reads the files: from async code, call it in a thread)."""
        if self.system_prompt is None:
            self.system_prompt = self.built_system_prompt()
        return self.system_prompt

    def history_replaced(self, reason: str) -> None:
        """A summary keeps the folders' instructions (they move into the system prompt);
        a history cleared, resumed or rewound gets them again as work reaches them."""
        memory = self.memory
        if memory.folders if reason == "compacted" else memory.forget_arrivals():
            self.system_prompt = None

    def _system_for_mode(self) -> str:
        assert self.system_prompt is not None
        planning, left = self.approval == "plan", self._planned and self.approval != "plan"
        self._planned = planning
        if planning:
            return f"{self.system_prompt}\n\n{PLAN_MODE}"
        return f"{self.system_prompt}\n\n{PLAN_LEFT}" if left else self.system_prompt

    def _finish_turn(self, number: int, turn: CollectedTurn) -> None:
        if turn.model is not None and turn.model != self._fallback:
            self._fallback = turn.model
            self.emit(Notice(turn=number, level="warning", message=(
                f"{self.provider.model} could not answer: this prompt goes on with {turn.model} "
                f"(the next one tries {self.provider.model} again)")))
        self._record(turn)
        if turn.finish_reason in CUT_SHORT:
            self.emit(Notice(turn=number, level="warning", message=CUT_SHORT[turn.finish_reason]))
        self.emit(
            TurnFinished(
                turn=number, finish_reason=turn.finish_reason, usage=turn.usage, error=turn.error,
                model=self._fallback,
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
                    tool_calls=[as_tool_call(call) for call in turn.tool_calls],
                    status=turn.finish_reason if turn.finish_reason in CUT_SHORT else "",
                    thought_for=None if turn.thought_for is None else round(turn.thought_for, 1),
                    model=self._fallback or "",
                )
            )

    def _note_dropped(self, count: int) -> None:
        message = (
            f"{count} tool call(s) in your last message had no tool name, so they were not "
            "run; send them again with a name if they are still needed."
        )
        self._add(Message(role="user", content=message))
        self.emit(Notice(turn=self.turn, level="warning", message=message))

    def _close_unanswered(self, text: str, status: ToolStatus, running_text: str = "") -> None:
        """Give each call of the last assistant message that has no result this one
        (``running_text`` for the call whose tool was running, if any)."""
        running = self.runner.take_running()
        for call in unanswered_calls(self.messages):
            result = running_text if running_text and call.id in running else text
            self._add(tool_result(call, result, is_error=True, status=status,
                                  output=running.get(call.id)))
            self.emit(
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

    def emit(self, event: LoopEvent) -> None:
        """Tell the sink what happened (the gate reports through this too)."""
        if self.sink is not None:
            self.sink(event)


