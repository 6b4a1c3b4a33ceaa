"""What the agent's events look like to an ACP client: ``session/update`` payloads.

One ``UpdateTranslator`` per ACP session turns loop events into updates as they happen
(text and thinking chunks, a tool call the moment the model starts one, its arguments as
they grow, then its status, output and diff) and replays a saved transcript the same way.
Updates go to ``put`` synchronously, in order; the caller sends them (see ``Outbox``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.helpers import update_current_mode
from acp.schema import (
    AgentPlanUpdate,
    Cost,
    FileEditToolCallContent,
    PlanEntry,
    SessionInfoUpdate,
    StopReason,
    ToolCallLocation,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    UsageUpdate,
)

from neocode_tui.agent.loop import FINAL_ANSWER_REQUEST
from neocode_tui.agent.loop_events import (
    ApprovalRequested,
    CommandsChanged,
    FileChange,
    LoopEvent,
    ModeChanged,
    Notice,
    PlanProposed,
    RunFinished,
    SessionTitled,
    Streamed,
    TodosChanged,
    ToolFinished,
    ToolOutputDelta,
    ToolStarted,
    TranscriptReplaced,
    TurnFinished,
    TurnStarted,
)
from neocode_tui.agent.meter import Meter
from neocode_tui.agent.tools import Tool, ToolRegistry
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import Message, ToolCall
from neocode_tui.events import (
    ReasoningDelta,
    RefusalDelta,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from neocode_tui.live_output import LiveTail
from neocode_tui.partial_json import PartialJSON

log = logging.getLogger("neocode.acp")

LIVE_OUTPUT_LINES = 200
"""Lines of a running command's output an update shows: each update carries them all, so
they are few enough for every update to stay small however much the command prints."""
SEND_EVERY = 0.05
"""Seconds between two updates of one call's growing arguments or output: a long
``write_file`` streams its content once per interval, not once per delta."""
ACP_KINDS: dict[str, ToolKind] = {"glob": "search", "grep": "search"}
"""Tools whose ACP kind is not the one their NeoCode kind maps to."""
KIND_OF: dict[str, ToolKind] = {"read": "read", "edit": "edit", "command": "execute"}
PATH_ARGUMENTS = frozenset({"path"})
"""Arguments that name a file: shown in a title or a location only once complete."""
FINISHED: dict[str, ToolCallStatus] = {"ok": "completed"}
"""Any other status (error, denied, interrupted, skipped) is ``failed``."""

Update = Any
"""One ``session/update`` payload (the SDK's union of update models)."""




@dataclass
class _Call:
    """One tool call as the client has been told about it."""

    name: str = ""
    model_id: str = ""
    acp_id: str = ""
    """Unique in the ACP session (models reuse ids such as ``call_1`` across turns)."""
    arguments: PartialJSON = field(default_factory=PartialJSON)
    output: LiveTail = field(default_factory=lambda: LiveTail(keep=LIVE_OUTPUT_LINES))
    """What a running command printed, as far as it is shown: its last lines."""
    output_changed: bool = False
    due: asyncio.TimerHandle | None = None
    """A send held back by ``SEND_EVERY``, to go out when the interval is over."""
    sent_at: float = 0.0
    pending: dict[str, Any] = field(default_factory=dict)
    """Fields changed since the last update sent for this call."""
    shown_input: dict[str, Any] | None = None
    done: bool = False

    def raw_input(self) -> dict[str, Any]:
        return {key: value.value() for key, value in self.arguments.fields.items()}

    def settled_input(self) -> dict[str, Any]:
        """The arguments without a path still streaming: an editor opens every location
        it is sent, and ``ws/no`` on the way to ``ws/notes.txt`` names no file."""
        return {key: value.value() for key, value in self.arguments.fields.items()
                if value.complete or key not in PATH_ARGUMENTS}


class UpdateTranslator:
    """Loop events in, ACP session updates out (to ``put``), in the order they happened."""

    def __init__(
        self, workspace: Path, tools: ToolRegistry, put: Callable[[Update], None],
        commands: Callable[[], Update] | None = None,
    ) -> None:
        """``commands``: the editor's command list, sent again when it changes."""
        self.commands = commands
        self.workspace = Workspace(workspace)
        self.tools = tools
        self.put = put
        self._streamed: dict[tuple[int, int], _Call] = {}
        self._by_model_id: dict[str, _Call] = {}
        self._used_ids: set[str] = set()
        self._finish_reason: str | None = None
        self._refused = False
        self.run_usage = Usage.unknown()
        """The tokens of the requests since ``start_run``: a prompt's, not the session's."""

    def start_run(self) -> None:
        self.run_usage = Usage.unknown()

    # -- live events ----------------------------------------------------------------------

    def event(self, event: LoopEvent) -> None:
        """The ``AgentSession`` listener."""
        if isinstance(event, Streamed):
            self._stream(event.turn, event.event)
        elif isinstance(event, TurnStarted):
            self._finish_reason, self._refused = None, False
        elif isinstance(event, TurnFinished):
            self._finish_reason = event.finish_reason
            if event.usage is not None:
                self.run_usage = self.run_usage + event.usage
            self._flush_all()
        elif isinstance(event, ToolStarted):
            self._tool_started(event)
        elif isinstance(event, ToolOutputDelta):
            call = self._find(event.turn, event.index, event.call_id)
            call.output.feed(event.text)
            call.output_changed = True
            self._send(call)
        elif isinstance(event, ToolFinished):
            self._tool_finished(event)
        elif isinstance(event, Notice):
            log.info("%s: %s", event.level, event.message)
            self.put(update_agent_message_text(f"\n\n_{event.message}_\n\n"))
        elif isinstance(event, SessionTitled):
            self.put(SessionInfoUpdate(session_update="session_info_update", title=event.title))
        elif isinstance(event, TranscriptReplaced) and event.reason == "resumed":
            self.replay(event.messages)
        elif isinstance(event, RunFinished):
            self._flush_all()
        elif isinstance(event, TodosChanged):
            self.put(plan_update(event))
        elif isinstance(event, ModeChanged):
            self.put(update_current_mode(event.mode))
        elif isinstance(event, CommandsChanged) and self.commands is not None:
            self.put(self.commands())

    def stop_reason(self, finished: RunFinished) -> StopReason:
        """ACP's name for how a run ended (an ``error`` run is answered with an error)."""
        if finished.reason == "cancelled":
            return "cancelled"
        if finished.reason == "turn_limit":
            return "max_turn_requests"
        if self._refused or self._finish_reason == "content_filter":
            return "refusal"
        return "max_tokens" if self._finish_reason == "length" else "end_turn"

    def _stream(self, turn: int, event: Any) -> None:
        if isinstance(event, TextDelta):
            self.put(update_agent_message_text(event.text))
        elif isinstance(event, ReasoningDelta):
            self.put(update_agent_thought_text(event.text))
        elif isinstance(event, RefusalDelta):
            self._refused = True
            self.put(update_agent_message_text(event.text))
        elif isinstance(event, ToolCallStart):
            call = self._streamed.setdefault((turn, event.index), _Call())
            call.model_id = call.model_id or event.id
            call.name = call.name or event.name
            if not call.acp_id and call.name:
                self._announce(call, "pending")
                self._by_model_id[call.model_id] = call
                if call.arguments.fields:
                    self._stage_arguments(call)
                    self._send(call)
        elif isinstance(event, ToolCallDelta):
            call = self._streamed.setdefault((turn, event.index), _Call())
            call.arguments.feed(event.arguments)
            if call.acp_id:
                self._stage_arguments(call)
                self._send(call)
        elif isinstance(event, ToolCallEnd):
            ended = self._streamed.get((turn, event.index))
            if ended is not None:
                self._send(ended, force=True)
        elif isinstance(event, StreamRetry):
            self._discard_attempt(turn)
            self.put(update_agent_thought_text(
                f"\n(retrying {event.attempt}/{event.max_attempts}: {event.reason})\n"
            ))

    def _discard_attempt(self, turn: int) -> None:
        """A retried attempt's calls were never run: the client sees them fail."""
        for key in [key for key in self._streamed if key[0] == turn]:
            call = self._streamed.pop(key)
            if call.acp_id and not call.done:
                call.pending.update(
                    status="failed",
                    content=[tool_content(text_block("discarded: the response was retried"))],
                )
                self._send(call, force=True)

    def _tool_started(self, event: ToolStarted) -> None:
        call = self._find(event.turn, event.index, event.call_id, event.name)
        arguments = event.arguments if isinstance(event.arguments, dict) else {}
        tool = self.tools.get(event.name)
        call.pending.update(
            status="in_progress", raw_input=arguments, title=title(tool, event.name, arguments),
            locations=locations(arguments, self.workspace),
        )
        self._send(call, force=True)

    def _tool_finished(self, event: ToolFinished) -> None:
        call = self._find(event.turn, event.index, event.call_id, event.name)
        change = diff_content(event.change)
        printed = call.output if event.status == "interrupted" and call.output.total_lines else None
        call.pending.update(status=FINISHED.get(event.status, "failed"),
                            content=result_content(event.result, change, event.status, printed))
        call.output_changed = False  # the result replaces the live output
        call.done = True
        self._send(call, force=True)

    # -- approvals ------------------------------------------------------------------------

    async def permission_call(self, request: ApprovalRequested) -> ToolCallUpdate:
        """The tool call as the permission request shows it: what it would do, and the diff.
        A subagent's call is asked about on the parent's ``task`` call, which the editor
        shows (the child's own calls are that call's content), titled with the agent."""
        parent = self._by_model_id.get(request.parent_call_id) if request.parent_call_id else None
        call = parent or self._find(request.turn, request.index, request.call_id, request.name)
        self._send(call, force=True)
        tool = self.tools.get(request.name)
        arguments = request.arguments if isinstance(request.arguments, dict) else call.raw_input()
        change = diff_content(request.change)
        if change is not None:
            content: list[Any] = [change]
        else:
            shown = request.command or request.diff or request.summary
            content = [tool_content(text_block(fenced(shown)))]
        asking = f"{request.agent}: {request.summary}" if request.agent else request.summary
        return ToolCallUpdate(
            tool_call_id=call.acp_id, title=asking, kind=kind(tool, request.name),
            status="pending", content=content, raw_input=arguments,
            locations=locations(arguments, self.workspace),
        )

    async def plan_call(self, proposed: PlanProposed) -> ToolCallUpdate:
        """The ``exit_plan_mode`` call as the plan's question shows it: the plan itself."""
        call = self._find(proposed.turn, proposed.index, proposed.call_id, "exit_plan_mode")
        self._send(call, force=True)
        return ToolCallUpdate(
            tool_call_id=call.acp_id, title="Carry out this plan?", kind="think", status="pending",
            content=[tool_content(text_block(proposed.plan))],
        )

    # -- replay ---------------------------------------------------------------------------

    def replay(self, messages: list[Message]) -> None:
        """A saved conversation as the updates that would have shown it live."""
        results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
        for message in messages:
            if message.role == "user" and message.content != FINAL_ANSWER_REQUEST:
                self.put(update_user_message_text(message.content))
            elif message.role == "assistant":
                if message.reasoning:
                    self.put(update_agent_thought_text(message.reasoning))
                if message.content:
                    self.put(update_agent_message_text(message.content))
                for tool_call in message.tool_calls:
                    self._replay_call(tool_call, results.get(tool_call.id))

    def _replay_call(self, tool_call: ToolCall, result: Message | None) -> None:
        call = _Call(name=tool_call.name, model_id=tool_call.id)
        call.arguments.feed(tool_call.arguments)
        arguments = call.raw_input()
        tool = self.tools.get(tool_call.name)
        if result is None:
            status: ToolCallStatus = "pending"
            content: list[Any] = []
        else:
            status = "failed" if result.is_error else "completed"
            saved = result.output  # a command stopped part way: what it had printed
            printed = None if saved is None else LiveTail.saved(
                saved.lines, saved.hidden, keep=LIVE_OUTPUT_LINES)
            content = result_content(result.content, None, result.status, printed)
        call.acp_id = self._unique(call.model_id)
        self.put(start_tool_call(
            call.acp_id, title(tool, call.name, arguments), kind=kind(tool, call.name),
            status=status, content=content, raw_input=arguments,
            locations=locations(arguments, self.workspace),
        ))

    # -- inside ---------------------------------------------------------------------------

    def _find(self, turn: int, index: int, model_id: str, name: str = "") -> _Call:
        """The call this event is about; announced now if the stream never showed it."""
        call = self._streamed.get((turn, index))
        if call is None or (call.model_id and call.model_id != model_id):
            call = self._by_model_id.get(model_id)
        if call is None:
            call = self._streamed[(turn, index)] = _Call(name=name, model_id=model_id)
            self._by_model_id[model_id] = call
        if not call.acp_id:
            call.name = call.name or name
            self._announce(call, "pending")
        return call

    def _announce(self, call: _Call, status: ToolCallStatus) -> None:
        call.acp_id = self._unique(call.model_id)
        tool = self.tools.get(call.name)
        self.put(start_tool_call(call.acp_id, call.name, kind=kind(tool, call.name), status=status))
        call.sent_at = time.monotonic()

    def _unique(self, model_id: str) -> str:
        candidate, number = model_id or "call", 1
        while candidate in self._used_ids:
            number += 1
            candidate = f"{model_id or 'call'}-{number}"
        self._used_ids.add(candidate)
        return candidate

    def _stage_arguments(self, call: _Call) -> None:
        arguments = call.raw_input()
        if arguments == call.shown_input:
            return  # the delta was part of a key or a number: nothing new to show
        call.shown_input = arguments
        call.pending["raw_input"] = arguments
        tool = self.tools.get(call.name)
        settled = call.settled_input()
        if names_a_file(tool) and "path" not in settled:
            return  # "edit" or "edit ws/no" would name no file: the title waits for the path
        call.pending["title"] = title(tool, call.name, settled)
        where = locations(settled, self.workspace)
        if where:
            call.pending["locations"] = where

    def _send(self, call: _Call, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - call.sent_at < SEND_EVERY:
            if call.due is None:  # what came last goes out even if nothing follows it
                call.due = asyncio.get_running_loop().call_later(
                    call.sent_at + SEND_EVERY - now, self._send_due, call)
            return
        if call.output_changed:  # drawn once per update sent, not once per piece of output
            call.output_changed = False
            call.pending["content"] = [tool_content(text_block(fenced(live_text(call.output))))]
        if not call.pending:
            return
        self.put(update_tool_call(call.acp_id, **call.pending))
        call.pending = {}
        call.sent_at = now

    def _send_due(self, call: _Call) -> None:
        call.due = None
        if not call.done:
            self._send(call, force=True)

    def _flush_all(self) -> None:
        for call in list(self._streamed.values()):
            if call.acp_id:
                self._send(call, force=True)


def usage_update(meter: Meter) -> UsageUpdate:
    """The context the next request carries against the window, and the session's cost:
    what the app's status bar shows."""
    figure = meter.context
    cost = meter.cost
    return UsageUpdate(
        session_update="usage_update", used=figure.tokens, size=meter.working_window,
        cost=Cost(amount=float(cost), currency="USD") if cost is not None else None,
    )
def plan_update(event: TodosChanged) -> AgentPlanUpdate:
    """The task list as ACP's plan: every entry, whole, each time (the schema's rule)."""
    return AgentPlanUpdate(session_update="plan", entries=[
        PlanEntry(content=todo.content, priority="medium", status=todo.status) for todo in event.todos
    ])


def kind(tool: Tool | None, name: str) -> ToolKind:
    if name in ACP_KINDS:
        return ACP_KINDS[name]
    return KIND_OF.get(tool.kind, "other") if tool is not None else "other"


def names_a_file(tool: Tool | None) -> bool:
    """Whether the tool's arguments have a ``path``: its title and location wait for it."""
    if tool is None:
        return False
    return "path" in tool.args_model.model_fields


def title(tool: Tool | None, name: str, arguments: Mapping[str, Any]) -> str:
    """The tool's own one-line summary ("edit app.py"), or its name while there is none."""
    if tool is None:
        return name
    try:
        return tool.summary(arguments).strip() or name
    except (TypeError, ValueError, AttributeError):
        return name  # a summary of half-streamed arguments of an unexpected type


def locations(arguments: Mapping[str, Any], workspace: Workspace) -> list[ToolCallLocation]:
    """The file a call is about, as an absolute path the editor can open."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path.strip():
        return []
    where = os.path.normpath(os.path.join(workspace.root, os.path.expanduser(path)))
    line = arguments.get("offset")
    return [ToolCallLocation(path=where, line=line if isinstance(line, int) else None)]


def diff_content(change: FileChange | None) -> FileEditToolCallContent | None:
    """An edit's whole file before and after (already scrubbed by the core), as ACP's diff."""
    if change is None:
        return None
    return tool_diff_content(change.path, change.after, change.before)


def result_content(
    result: str, change: FileEditToolCallContent | None, status: str,
    printed: LiveTail | None = None,
) -> list[Any]:
    """A tool's result for the client: the diff of an edit that happened, else its text,
    under what a command stopped part way had printed (``printed``)."""
    if change is not None and status == "ok":
        return [change, tool_content(text_block(result.splitlines()[0] if result else ""))]
    shown = [tool_content(text_block(fenced(live_text(printed))))] if printed is not None else []
    return [*shown, tool_content(text_block(fenced(result)))]


def live_text(output: LiveTail) -> str:
    """A running command's last lines, under a count of those above them."""
    above = f"… {output.hidden:,} earlier lines\n" if output.hidden else ""
    return above + "\n".join(output.lines)


def fenced(text: str, language: str = "") -> str:
    """Text shown verbatim in a Markdown client, with a fence longer than any inside it."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


class Outbox:
    """Updates sent one at a time, in the order they were put; ``flush`` waits for all.

    Loop events arrive synchronously while sending is async: this keeps their order, and
    lets a prompt's response wait until every update before it has gone out.
    """

    def __init__(self, send: Callable[[Update], Awaitable[None]]) -> None:
        self._send = send
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._pump = asyncio.create_task(self._run(), name="acp-outbox")

    def put(self, update: Update) -> None:
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        await self._queue.join()

    async def aclose(self) -> None:
        self._pump.cancel()
        await asyncio.gather(self._pump, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self._send(update)
            except Exception as exc:  # the client went away: drop updates, keep flush working
                log.warning("could not send a session update: %s", exc)
            finally:
                self._queue.task_done()
