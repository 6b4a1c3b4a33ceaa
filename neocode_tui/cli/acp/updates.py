"""What the agent's events look like to an ACP client: ``session/update`` payloads.

One ``UpdateTranslator`` per ACP session turns loop events into updates as they happen
(text and thinking chunks, a tool call the moment the model starts one, its arguments as
they grow, then its status, output and diff) and replays a saved transcript the same way.
What happens to each call comes from the core's ``CallTracker``; here it is only mapped.
Updates go to ``put`` synchronously, in order; the caller sends them (see ``Outbox``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (
    image_block,
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

from neocode_tui.agent import (
    FINAL_ANSWER_REQUEST,
    ApprovalRequested,
    Call,
    CallArgumentsDelta,
    CallAwaitingApproval,
    CallBegin,
    CallDiscarded,
    CallEnd,
    CallIdentified,
    CallOutput,
    CallReady,
    CallRunning,
    CallTracker,
    CallUpdate,
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
    TranscriptReplaced,
    TurnFinished,
    TurnStarted,
    Workspace,
    notice_words,
    replayed,
)
from neocode_tui.agent.context import Meter
from neocode_tui.agent.tools import Tool, ToolNamed
from neocode_tui.chat import Image, Message
from neocode_tui.events import (
    ReasoningDelta,
    RefusalDelta,
    StreamRetry,
    TextDelta,
    Usage,
)
from neocode_tui.live_output import LiveTail

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
FINISHED: dict[str, ToolCallStatus] = {"ok": "completed"}
"""Any other status (error, denied, interrupted, skipped) is ``failed``."""

Update = Any
"""One ``session/update`` payload (the SDK's union of update models)."""


@dataclass
class _Shown:
    """One tool call as the client has been told about it."""

    call: Call
    acp_id: str = ""
    """Unique in the ACP session (models reuse ids such as ``call_1`` across turns)."""
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
    notes: list[str] = field(default_factory=list)
    """The session's notices about this call, kept above its result."""


class UpdateTranslator:
    """Loop events in, ACP session updates out (to ``put``), in the order they happened."""

    def __init__(
        self, workspace: Path, tool_named: ToolNamed, put: Callable[[Update], None],
        commands: Callable[[], Update] | None = None, options: Callable[[], Update] | None = None,
    ) -> None:
        """``tool_named``: the session's tool of that name; ``commands``: the editor's
        command list, sent again when it changes; ``options``: its config options, sent
        again when the mode changes."""
        self.commands = commands
        self.options = options
        self.workspace = Workspace(workspace)
        self.tool_named = tool_named
        self.put = put
        self._calls = CallTracker()
        self._shown: dict[Call, _Shown] = {}
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
        for update in self._calls.feed(event):
            self._call(update)
        if isinstance(event, Streamed):
            self._stream(event.event)
        elif isinstance(event, TurnStarted):
            self._finish_reason, self._refused = None, False
        elif isinstance(event, TurnFinished):
            self._finish_reason = event.finish_reason
            if event.usage is not None:
                self.run_usage = self.run_usage + event.usage
            self._flush_all()
        elif isinstance(event, Notice):
            log.info("%s: %s", event.level, event.message)
            if not self._with_its_call(event):
                self.put(update_agent_message_text(notice_text(event.message)))
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
            if self.options is not None:
                self.put(self.options())
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

    def _stream(self, event: Any) -> None:
        if isinstance(event, TextDelta):
            self.put(update_agent_message_text(event.text))
        elif isinstance(event, ReasoningDelta):
            self.put(update_agent_thought_text(event.text))
        elif isinstance(event, RefusalDelta):
            self._refused = True
            self.put(update_agent_message_text(event.text))
        elif isinstance(event, StreamRetry):
            self.put(update_agent_thought_text(
                f"\n(retrying {event.attempt}/{event.max_attempts}: {event.reason})\n"
            ))

    # -- tool calls -----------------------------------------------------------------------

    def _with_its_call(self, notice: Notice) -> bool:
        """A notice about a call (a subagent's missing tools, the model it runs on) is put in
        that call's output, not in the agent's answer; False when there is no such call."""
        call = self._calls.by_id(notice.call_id or "")
        if call is None:
            return False
        shown = self._announced(self._shown_of(call))
        shown.notes.append(notice.message)
        shown.output.feed(f"[{notice.message}]\n")
        shown.output_changed = True
        self._send(shown, force=True)
        return True

    def _call(self, update: CallUpdate) -> None:
        """One call's update as the client sees it: announced once it has a name (or the
        loop speaks of it), its arguments as they grow, its status, output and result."""
        call = update.call
        shown = self._shown_of(call)
        if isinstance(update, CallBegin | CallIdentified):
            if not shown.acp_id and call.name:
                self._announce(shown)
                if call.arguments.parsed.fields:
                    self._stage_arguments(shown)
                    self._send(shown)
        elif isinstance(update, CallArgumentsDelta):
            if shown.acp_id:
                self._stage_arguments(shown)
                self._send(shown)
        elif isinstance(update, CallReady):
            if shown.acp_id:
                self._send(shown, force=True)
        elif isinstance(update, CallDiscarded):
            del self._shown[call]
            if shown.acp_id and not shown.done:  # never run: the client sees it fail
                shown.pending.update(
                    status="failed",
                    content=[tool_content(text_block("discarded: the response was retried"))],
                )
                self._send(shown, force=True)
        elif isinstance(update, CallRunning):
            self._running(self._announced(shown), update.arguments)
        elif isinstance(update, CallOutput):
            self._announced(shown).output.feed(update.text)
            shown.output_changed = True
            self._send(shown)
        elif isinstance(update, CallEnd) and update.result is not None:
            self._finished(self._announced(shown), update)
        elif isinstance(update, CallAwaitingApproval):
            self._announced(shown)  # the question (``permission_call``) is about it

    def _running(self, shown: _Shown, arguments: Any) -> None:
        arguments = arguments if isinstance(arguments, dict) else {}
        name = shown.call.name
        tool = self.tool_named(name)
        shown.pending.update(
            status="in_progress", raw_input=arguments, title=title(tool, name, arguments),
            locations=locations(arguments, self.workspace),
        )
        self._send(shown, force=True)

    def _finished(self, shown: _Shown, end: CallEnd) -> None:
        assert end.result is not None
        change = diff_content(end.change)
        printed = shown.output if end.status == "interrupted" and shown.output.total_lines else None
        notes = [tool_content(text_block(f"_{note}_")) for note in shown.notes]
        shown.pending.update(status=FINISHED.get(end.status, "failed"), content=[
            *notes, *result_content(end.result, change, end.status, printed, end.images)])
        shown.output_changed = False  # the result replaces the live output
        shown.done = True
        self._send(shown, force=True)

    # -- approvals ------------------------------------------------------------------------

    async def permission_call(self, request: ApprovalRequested) -> ToolCallUpdate:
        """The tool call as the permission request shows it: what it would do, and the diff.
        A subagent's call is asked about on the parent's ``task`` call, which the editor
        shows (the child's own calls are that call's content), titled with the agent."""
        parent = self._calls.by_id(request.parent_call_id)
        call = self._located(parent, request.turn, request.index, request.call_id, request.name)
        self._send(call, force=True)
        tool = self.tool_named(request.name)
        arguments = (request.arguments if isinstance(request.arguments, dict)
                     else call.call.arguments.values())
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
        call = self._located(None, proposed.turn, proposed.index, proposed.call_id, "exit_plan_mode")
        self._send(call, force=True)
        return ToolCallUpdate(
            tool_call_id=call.acp_id, title="Carry out this plan?", kind="think", status="pending",
            content=[tool_content(text_block(proposed.plan))],
        )

    def shown_call_id(self, turn: int, index: int, call_id: str, name: str) -> str:
        """The editor's id of a call, sent to it now if it was not yet (a question about it follows)."""
        call = self._located(None, turn, index, call_id, name)
        self._send(call, force=True)
        return call.acp_id

    # -- replay ---------------------------------------------------------------------------

    def replay(self, messages: list[Message]) -> None:
        """A saved conversation as the updates that would have shown it live."""
        for item in replayed(messages):
            if isinstance(item, CallEnd):
                self._replay_call(item)
            elif isinstance(item, CallBegin):
                continue  # sent whole once it has ended
            elif item.role == "user" and item.notice:  # NeoCode's note, shown as it was live
                self.put(update_agent_message_text(notice_text(notice_words(item.content))))
            elif item.role == "user":
                if item.content != FINAL_ANSWER_REQUEST:  # the user's words only
                    self.put(update_user_message_text(item.content))
            else:
                if item.reasoning:
                    self.put(update_agent_thought_text(item.reasoning))
                if item.content:
                    self.put(update_agent_message_text(item.content))

    def _replay_call(self, end: CallEnd) -> None:
        call = end.call
        arguments = call.arguments.values()
        tool = self.tool_named(call.name)
        if end.result is None:
            status: ToolCallStatus = "pending"
            content: list[Any] = []
        else:
            status = FINISHED.get(end.status, "failed")
            saved = end.output  # a command stopped part way: what it had printed
            printed = None if saved is None else LiveTail.saved(
                saved.lines, saved.hidden, keep=LIVE_OUTPUT_LINES)
            content = result_content(end.result, None, end.status, printed, end.images)
        self.put(start_tool_call(
            self._unique(call.call_id), title(tool, call.name, arguments), kind=kind(tool, call.name),
            status=status, content=content, raw_input=arguments,
            locations=locations(arguments, self.workspace),
        ))

    # -- inside ---------------------------------------------------------------------------

    def _shown_of(self, call: Call) -> _Shown:
        shown = self._shown.get(call)
        if shown is None:
            shown = self._shown[call] = _Shown(call)
        return shown

    def _located(self, call: Call | None, turn: int, index: int, call_id: str, name: str) -> _Shown:
        """``call``, or the one the loop speaks of; announced now if the stream never showed it."""
        if call is None:
            call, updates = self._calls.locate(turn, index, call_id, name)
            for update in updates:
                self._call(update)
        return self._announced(self._shown_of(call))

    def _announced(self, shown: _Shown) -> _Shown:
        if not shown.acp_id:
            self._announce(shown)
        return shown

    def _announce(self, shown: _Shown) -> None:
        call = shown.call
        shown.acp_id = self._unique(call.call_id)
        tool = self.tool_named(call.name)
        self.put(start_tool_call(shown.acp_id, call.name, kind=kind(tool, call.name), status="pending"))
        shown.sent_at = time.monotonic()

    def _unique(self, model_id: str) -> str:
        candidate, number = model_id or "call", 1
        while candidate in self._used_ids:
            number += 1
            candidate = f"{model_id or 'call'}-{number}"
        self._used_ids.add(candidate)
        return candidate

    def _stage_arguments(self, shown: _Shown) -> None:
        call = shown.call
        arguments = call.arguments.values()
        if arguments == shown.shown_input:
            return  # the delta was part of a key or a number: nothing new to show
        shown.shown_input = arguments
        shown.pending["raw_input"] = arguments
        tool = self.tool_named(call.name)
        settled = call.arguments.settled()
        if names_a_file(tool) and "path" not in settled:
            return  # "edit" or "edit ws/no" would name no file: the title waits for the path
        shown.pending["title"] = title(tool, call.name, settled)
        where = locations(settled, self.workspace)
        if where:
            shown.pending["locations"] = where

    def _send(self, shown: _Shown, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - shown.sent_at < SEND_EVERY:
            if shown.due is None:  # what came last goes out even if nothing follows it
                shown.due = asyncio.get_running_loop().call_later(
                    shown.sent_at + SEND_EVERY - now, self._send_due, shown)
            return
        if shown.output_changed:  # drawn once per update sent, not once per piece of output
            shown.output_changed = False
            shown.pending["content"] = [tool_content(text_block(fenced(live_text(shown.output))))]
        if not shown.pending:
            return
        self.put(update_tool_call(shown.acp_id, **shown.pending))
        shown.pending = {}
        shown.sent_at = now

    def _send_due(self, shown: _Shown) -> None:
        shown.due = None
        if not shown.done:
            self._send(shown, force=True)

    def _flush_all(self) -> None:
        for shown in list(self._shown.values()):
            if shown.acp_id:
                self._send(shown, force=True)


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
    printed: LiveTail | None = None, images: Sequence[Image] = (),
) -> list[Any]:
    """A tool's result for the client: the diff of an edit that happened, else its text,
    under what a command stopped part way had printed (``printed``), and the pictures it
    carries as the model is sent them."""
    if change is not None and status == "ok":
        return [change, tool_content(text_block(result.splitlines()[0] if result else ""))]
    shown = [tool_content(text_block(fenced(live_text(printed))))] if printed is not None else []
    pictures = [tool_content(image_block(image.data, image.media_type)) for image in images if image.data]
    return [*shown, tool_content(text_block(fenced(result))), *pictures]


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


def notice_text(message: str) -> str:
    """A notice of the session's as the editor's thread shows it: an aside of the agent's."""
    return f"\n\n_{message}_\n\n"
