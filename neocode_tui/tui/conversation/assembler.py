"""Turns loop events into conversation blocks: what the screen shows, decided in one place.

The assembler owns the meaning of events for the screen (where text ends, what a retry
takes back, what an interrupted run says); what happens to each tool call comes from the
core's ``CallTracker`` and is only mapped to its panel here. The view owns drawing. It
speaks to the view through ``BlockSink`` so the rules can be read without any rendering code
around them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from neocode_tui.agent import (
    Call,
    CallBegin,
    CallDiscarded,
    CallEnd,
    CallOutput,
    CallRunning,
    CallTracker,
    CallUpdate,
    notice_words,
    replayed,
)
from neocode_tui.live_output import LiveTail
from neocode_tui.tui.conversation.background import Backgrounded
from neocode_tui.tui.conversation.blocks import (
    Block,
    MarkdownBlock,
    NoticeBlock,
    ReasoningBlock,
    RefusalBlock,
    ToolBlock,
    UserBlock,
)
from neocode_tui.tui.conversation.compaction_block import CompactionBlock
from neocode_tui.tui.conversation.markdown_split import MarkdownSplitter, Piece
from neocode_tui.tui.conversation.questions_block import QuestionsBlock
from neocode_tui.tui.conversation.task_block import TaskBlock
from neocode_tui.tui.conversation.todo_line import TodoLine
from neocode_tui.vocabulary import CUT_SHORT, NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.agent import Compaction, LoopEvent, RunFinished, SubagentDone, SubagentEvent
    from neocode_tui.agent.processes import Job
    from neocode_tui.chat import Image, Message, RunEnd
    from neocode_tui.events import StreamEvent
    from neocode_tui.tui.attachments import Attachment
    from neocode_tui.tui.keys import KeyNames

_HINTS = {
    "auth": "Check your API key (OPENAI_API_KEY or ANTHROPIC_API_KEY) and send again.",
    "bad_request": "Check the model name (--model) and base URL, then send again.",
    "rate_limit": "The provider is rate limiting: wait a moment and send again.",
    "server": "The provider is having trouble: send again in a moment.",
    "connection": "Check your network or the base URL (--base-url), then send again.",
    "timeout": "The model stopped answering: send again.",
    "truncated": "The answer was cut off: send again to retry.",
    "malformed": "The provider sent something unreadable: send again to retry.",
    "stream": "Send again, or try another model.",
}


def error_message(message: str, kind: str | None) -> str:
    """The error in plain words plus what the user can do about it."""
    hint = _HINTS.get(kind or "", "Send your message again to retry.")
    return f"{(message or 'The run failed').rstrip('.')}. {hint}"


def run_end_notice(reason: str, message: str = "", kind: str = "") -> tuple[NoticeLevel, str] | None:
    """What the conversation says where a run ended otherwise than done: live, and again
    where a resumed session's saved run ended."""
    if reason == "cancelled":
        return "warning", "Interrupted by you: the run stopped here; send a message to go on."
    if reason == "turn_limit":
        return "warning", "Stopped at the turn limit (--max-turns): send a message to go on."
    if reason == "error":
        return "error", error_message(message, kind or None)
    return None


class BlockSink(Protocol):
    def append(self, block: Block, *, render: bool = True) -> None: ...
    def insert_before(self, anchor: Block, block: Block) -> None: ...
    def remove(self, block: Block) -> None: ...
    def touch(self, block: Block) -> None: ...
    def remove_attempt(self, attempt: object) -> None: ...


class _Segment:
    """An assistant text segment: settled blocks go in before ``live``, the open tail."""

    def __init__(self, live: MarkdownBlock) -> None:
        self.splitter = MarkdownSplitter()
        self.live = live
        self.shown_revision = 0


JobLookup = Callable[[str], "Job | None"]
"""The session's background command of an id, while it remembers it."""


BEFORE_THE_TURN = ("approval_requested", "tool_started", "tool_finished")
"""The events of calls made before a prompt's first turn starts (a command's lines)."""


class Assembler:
    def __init__(
        self, sink: BlockSink, clock: Callable[[], float] = time.monotonic,
        jobs: JobLookup = lambda job_id: None,
    ) -> None:
        self._sink = sink
        self._clock = clock
        self._jobs = jobs
        self._turn: int | None = None
        self._awaiting_run = False
        self._echoed: UserBlock | None = None
        """The prompt echoed last, which the images its mentions attach join."""
        self._calls = CallTracker()
        self._background: list[ToolBlock] = []
        """Panels of calls that went on in the background and still run: drawn on each tick."""
        self._reset_turn()

    def _reset_turn(self) -> None:
        self._attempt = object()
        self._segment: _Segment | None = None
        self._reasoning: ReasoningBlock | None = None
        self._refusal: RefusalBlock | None = None
        self._tools: dict[Call, ToolBlock] = {}
        """This attempt's panels."""
        self._error_shown = False

    def reset(self) -> None:
        self._turn = None
        self._awaiting_run = False
        self._calls = CallTracker()
        self._background = []
        self._reset_turn()

    # --- what the app adds directly -------------------------------------------------

    def user_message(self, text: str, attachments: list[Attachment] | None = None) -> None:
        self._close_open_text()
        self._awaiting_run = True
        self._echoed = UserBlock(text, attachments)
        self._sink.append(self._echoed)

    def notice(self, level: NoticeLevel, message: str,
               keyed: Callable[[KeyNames], str] | None = None) -> None:
        """Notices belong to no stream attempt: a retry never takes one back; ``keyed``:
        see ``NoticeBlock``."""
        self._sink.append(NoticeBlock(level, message, keyed))

    def compaction(self, what: Compaction) -> None:
        """A compaction's folded line, the summary under it."""
        self._sink.append(CompactionBlock(what))

    def transcript(self, messages: list[Message], children: dict[str, list[Message]] | None = None) -> None:
        """A resumed session: every message settled, rendered lazily by the view;
        ``children``: the subagents' transcripts by ``task`` call id. Where a run ended
        otherwise than done, the notice it showed is shown again."""
        from neocode_tui.tui.attachments import Attachment  # pydantic is loaded by now
        ends = _run_ends(messages)
        pending: list[tuple[NoticeLevel, str]] = []
        for item in replayed(messages):
            if isinstance(item, CallEnd):
                block = _panel(item.call)
                if item.result is not None:
                    block.duration = item.duration
                    if item.job:  # gone with the run that started it
                        block.background = Backgrounded(item.job, None)
                    if item.output is not None:  # a command stopped part way: what it had printed
                        block.output = LiveTail.saved(item.output.lines, item.output.hidden)
                    block.finish(item.result, None)
                if isinstance(block, TaskBlock):
                    block.child_done((children or {}).get(item.call.call_id, []))
                self._sink.append(block, render=False)
                continue
            if isinstance(item, CallBegin):
                continue  # drawn whole once it has ended
            self._replayed_notices(pending)
            pending = _notices_after(item, ends.get(id(item)))
            if item.role == "user" and item.notice:
                self._sink.append(NoticeBlock("info", notice_words(item.content)), render=False)
            elif item.role == "user":
                chips = [Attachment(image) for image in item.images] if item.images else None
                self._sink.append(UserBlock(item.content, chips), render=False)
            else:
                if item.reasoning:
                    thought = ReasoningBlock(item.reasoning)
                    thought.took = item.thought_for
                    self._sink.append(thought, render=False)
                if item.content.strip():
                    self._sink.append(MarkdownBlock(item.content), render=False)
        self._replayed_notices(pending)

    def _replayed_notices(self, notices: list[tuple[NoticeLevel, str]]) -> None:
        for level, text in notices:
            self._sink.append(NoticeBlock(level, text), render=False)

    # --- time ------------------------------------------------------------------------

    @property
    def timing(self) -> bool:
        """Something shows a time that grows: a running command, a thought."""
        return self._reasoning is not None or bool(self._background) or any(
            tool.status == "running" for tool in self._tools.values()
        )

    def tick(self) -> None:
        """Now and then while ``timing``: the growing times move on."""
        now = self._clock()
        for block in [self._reasoning, *self._tools.values()]:
            if isinstance(block, ToolBlock) and block.status != "running":
                continue
            if block is not None and block.started_at is not None:
                block.took = now - block.started_at
                block.changed()
                self._sink.touch(block)
        for tool in self._background:
            if tool.background is not None and tool.background.moved():
                tool.changed()
                self._sink.touch(tool)
        self._background = [tool for tool in self._background if tool.background and tool.background.running]

    # --- loop events ----------------------------------------------------------------

    def apply(self, event: LoopEvent) -> None:
        # Dispatched on each event's ``type`` tag: the event classes (pydantic) need not be
        # imported here, so the view draws its first frame before pydantic loads (start-up).
        if event.type == "turn_started":
            self._close_open_text()
            self._turn = event.turn
            self._reset_turn()
            return
        if event.type == "prompt_images" and self._awaiting_run and self._echoed is not None:
            self._with_the_prompt(event.images)
            return
        in_run = event.turn == self._turn or (self._turn is None and self._awaiting_run)
        if event.type == "notice" and in_run:
            if event.compaction is not None:
                self.compaction(event.compaction)
            else:
                self.notice(event.level, event.message)
            return
        if event.type == "run_finished" and in_run:
            self._run_finished(event)
            return
        if event.turn == self._turn:  # a closed turn's late event never lands in a later one
            self._in_turn(event)
        elif self._awaiting_run and event.type in BEFORE_THE_TURN and event.turn == (self._turn or 0) + 1:
            for update in self._calls.feed(event):  # a command's !`command` lines, run first
                self._call(update)

    def _with_the_prompt(self, images: list[Image]) -> None:
        """The images its ``@`` mentions attached, as chips under the prompt echoed."""
        from neocode_tui.tui.attachments import Attachment  # pydantic is loaded by now

        assert self._echoed is not None
        self._echoed.attachments += [Attachment(image) for image in images]
        self._echoed.changed()
        self._sink.touch(self._echoed)

    def _in_turn(self, event: LoopEvent) -> None:
        """An event of the open turn: what it streams, then what it did to its tool calls."""
        if event.type == "stream":
            self._stream(event.event)
        elif event.type == "turn_finished":
            self._close_open_text()
            # The error itself is told once: by its stream event, or by RunFinished (which
            # also covers a cancel, so a cancelled turn is not reported twice).
        elif event.type in ("subagent_event", "subagent_done"):
            self._subagent(event)
        for update in self._calls.feed(event):
            self._call(update)

    def _call(self, update: CallUpdate) -> None:
        """One call's update, on its panel (created on first sight)."""
        call = update.call
        if isinstance(update, CallDiscarded):
            self._tools.pop(call, None)  # its panel went with the attempt
            return
        tool = self._tools.get(call)
        if tool is None:
            tool = self._tools[call] = _panel(call)
            self._add(tool)
            if isinstance(update, CallBegin):
                return
        if isinstance(update, CallOutput):
            tool.add_output(update.text)  # a bounded tail, drawn once per frame however fast
        elif isinstance(update, CallEnd) and update.result is not None:
            tool.duration = update.duration
            if update.job:
                tool.background = Backgrounded(update.job, self._jobs(update.job))
                self._background.append(tool)
            tool.finish(update.result, update.diff)
        else:  # its name, arguments or status changed
            if isinstance(update, CallRunning):
                tool.started_at = self._clock()
            tool.changed()
        self._sink.touch(tool)

    def _subagent(self, event: SubagentEvent | SubagentDone) -> None:
        """A subagent's event, or its end, drawn inside its ``task`` call's block."""
        call = self._calls.get(event.turn, event.index)
        task = self._tools.get(call) if call is not None else None
        if isinstance(task, TaskBlock):
            if event.type == "subagent_done":
                task.child_done(event.messages)
            else:
                task.child_event(event.event)
            self._sink.touch(task)

    def _stream(self, event: StreamEvent) -> None:
        if event.type == "text_delta":
            segment = self._segment
            if segment is None:
                self._close_open_text()
                segment = self._segment = _Segment(MarkdownBlock())
                self._add(segment.live)
            segment.splitter.append(event.text)
        elif event.type == "reasoning_delta":
            if self._reasoning is None:
                self._close_open_text()
                self._reasoning = ReasoningBlock()
                self._reasoning.started_at = self._clock()
                self._add(self._reasoning)
            self._reasoning.text.append(event.text)
            self._reasoning.changed()
            self._sink.touch(self._reasoning)
        elif event.type == "refusal_delta":
            if self._refusal is None:
                self._close_open_text()
                self._refusal = RefusalBlock()
                self._add(self._refusal)
            self._refusal.text.append(event.text)
            self._refusal.changed()
            self._sink.touch(self._refusal)
        elif event.type == "tool_call_start":
            self._close_open_text()
        elif event.type == "message_done":
            self._close_open_text()
        elif event.type == "error":
            self._close_open_text()
            self._error(event.message, event.kind)
        elif event.type == "retry":
            # The attempt goes; the status bar's one updating line says why.
            self._sink.remove_attempt(self._attempt)
            self._reset_turn()

    def _run_finished(self, event: RunFinished) -> None:
        self._close_open_text()
        for update in self._calls.feed(event):  # what had not finished: interrupted or skipped
            self._call(update)
        error = event.error
        if event.reason == "error" and not self._error_shown:
            self._error(error.message if error else "", error.kind if error else None)
        elif event.reason != "error" and (shown := run_end_notice(event.reason)):
            self.notice(*shown)
        self._turn = None
        self._awaiting_run = False
        self._reset_turn()

    # --- per frame --------------------------------------------------------------------

    def end_of_frame(self) -> None:
        """Once per frame: settle finished Markdown blocks and hand the open tail to the view."""
        segment = self._segment
        if segment is None or segment.splitter.revision == segment.shown_revision:
            return
        segment.shown_revision = segment.splitter.revision
        splitter = segment.splitter
        for piece in splitter.settle():
            self._insert_settled(segment, piece)
        segment.live.piece = splitter.open_code() or splitter.tail
        segment.live.changed()
        self._sink.touch(segment.live)

    # --- helpers --------------------------------------------------------------------------

    def _add(self, block: Block) -> None:
        block.attempt = self._attempt
        self._sink.append(block)

    def _insert_settled(self, segment: _Segment, piece: Piece) -> None:
        block = MarkdownBlock(piece)
        block.attempt = self._attempt
        self._sink.insert_before(segment.live, block)

    def _close_open_text(self) -> None:
        """Text, thinking and refusals end where anything else begins."""
        segment, self._segment = self._segment, None
        if segment is not None:
            for piece in segment.splitter.finish():
                self._insert_settled(segment, piece)
            self._sink.remove(segment.live)
        if self._reasoning is not None:
            if self._reasoning.started_at is not None:
                self._reasoning.took = self._clock() - self._reasoning.started_at
            self._reasoning.finish()
            self._sink.touch(self._reasoning)
            self._reasoning = None
        self._refusal = None

    def _error(self, message: str, kind: str | None) -> None:
        self._error_shown = True
        self.notice("error", error_message(message, kind))


_PANELS: dict[str, type[ToolBlock]] = {"task": TaskBlock, "todo_write": TodoLine, "ask_user": QuestionsBlock}
"""The calls drawn otherwise than as a tool panel."""


def _panel(call: Call) -> ToolBlock:
    return _PANELS.get(call.name, ToolBlock)(call)


def _notices_after(message: Message, ended: RunEnd | None) -> list[tuple[NoticeLevel, str]]:
    """What the conversation said once ``message``'s turn was over: that its answer was cut
    short, then how the run ended."""
    notices: list[tuple[NoticeLevel, str]] = []
    if message.role == "assistant" and message.status in CUT_SHORT:
        notices.append(("warning", CUT_SHORT[message.status]))
    if ended is not None and (shown := run_end_notice(ended.reason, ended.message, ended.kind)):
        notices.append(shown)
    return notices


def _run_ends(messages: list[Message]) -> dict[int, RunEnd]:
    """Where a run ended otherwise than done, by the user or assistant message whose turn
    (its calls and their results included) that end followed."""
    ends: dict[int, RunEnd] = {}
    owner: int | None = None
    for message in messages:
        if message.role in ("user", "assistant"):
            owner = id(message)
        if message.ended is not None and owner is not None:
            ends[owner] = message.ended
    return ends

