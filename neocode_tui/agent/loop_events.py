"""What the agent loop reports, for the screen, the headless printer and stream-json.

Every event names its ``turn`` (1, 2, ...), so a consumer can drop anything that belongs to
a turn it already closed (a cancelled turn's late events never land in the next one).
Provider events reach consumers wrapped in ``Streamed`` in the order they arrived.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from neocode_tui.agent.session import Todo
from neocode_tui.chat import Image, Message
from neocode_tui.events import ErrorInfo, StreamEvent, Usage
from neocode_tui.vocabulary import ApprovalMode, NoticeLevel

StopReason = Literal["done", "cancelled", "error", "turn_limit"]
ToolStatus = Literal["ok", "error", "denied", "interrupted", "skipped"]
Verdict = Literal["yes", "session", "no"]
"""yes once; yes for this tool for the rest of the session; no."""


class _LoopEvent(BaseModel):
    # Validators are built on first use, not at import: the app draws its first frame sooner.
    model_config = ConfigDict(frozen=True, defer_build=True)
    turn: int


class TurnStarted(_LoopEvent):
    type: Literal["turn_started"] = "turn_started"


class Streamed(_LoopEvent):
    """A provider event, forwarded live by the collector's callback."""

    type: Literal["stream"] = "stream"
    event: StreamEvent


class TurnFinished(_LoopEvent):
    type: Literal["turn_finished"] = "turn_finished"
    finish_reason: str | None
    usage: Usage | None = None
    error: ErrorInfo | None = None
    model: str | None = None
    """The fallback model that answered the turn, when the session's could not."""


class FileChange(BaseModel):
    """A whole file before and after an edit (``before`` None: the file is new), for front
    ends that show their own diff view (ACP editors). Kept out of JSON output: it can be
    as large as the file."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    path: str
    """Absolute."""
    before: str | None
    after: str


class ToolStarted(_LoopEvent):
    type: Literal["tool_started"] = "tool_started"
    index: int
    call_id: str
    name: str
    arguments: Any = None


class ToolOutputDelta(_LoopEvent):
    """A running command's output as it arrives, so a long command is not a silent wait.

    All of it, line by line and scrubbed; ``ToolFinished.result`` (head and tail, capped)
    is what counts and what the model gets.
    """

    type: Literal["tool_output_delta"] = "tool_output_delta"
    index: int
    call_id: str
    text: str


class ToolFinished(_LoopEvent):
    type: Literal["tool_finished"] = "tool_finished"
    index: int
    call_id: str
    name: str
    result: str
    """Exactly what the model is sent."""
    is_error: bool = False
    status: ToolStatus = "ok"
    diff: str | None = None
    """A unified diff, for tools that changed a file (shown colored on screen)."""
    change: FileChange | None = Field(None, exclude=True)
    duration: float | None = None
    """Seconds the tool ran (None: it did not run)."""
    images: list[Image] = Field(default_factory=list, exclude=True)
    """What the result carries besides its text (an image ``read_file`` read)."""
    job: str = ""
    """The background command the call went on as (its id), if it did."""


class ApprovalRequested(_LoopEvent):
    type: Literal["approval_requested"] = "approval_requested"
    index: int
    call_id: str
    name: str
    summary: str
    """One line: the command, or "write path (N lines)"."""
    diff: str | None = None
    command: str | None = None
    arguments: Any = None
    """The call's parsed arguments."""
    session_scope: str = ""
    """What "yes for this session" would allow from then on (``bash: pytest …``)."""
    prefix_rule: str = ""
    """The rule "always allow commands starting with …" offered to save (``bash(npm test:*)``)."""
    change: FileChange | None = Field(None, exclude=True)
    """What an edit would change, whole."""
    agent: str = ""
    """The subagent that asks ("" the main agent), and the parent's ``task`` call it runs in."""
    parent_call_id: str = ""


class Compaction(BaseModel):
    """What a compaction did: how many messages it summarised into how much, and the summary
    the model reads from now on (a screen folds it under one line)."""

    model_config = ConfigDict(frozen=True)

    reason: str
    summarised: int
    kept: int
    tokens_before: int
    tokens_after: int
    summary: str


class Notice(_LoopEvent):
    type: Literal["notice"] = "notice"
    level: NoticeLevel = "info"
    message: str
    compaction: Compaction | None = None
    """A compaction's notice: its figures and summary, which ``message`` also says in words."""
    calls_back: bool = False
    """News the user is called back for when not looking (a background command ended)."""
    call_id: str | None = None
    """The tool call it is about (a subagent's missing tools): an editor shows it there."""


class PromptImages(_LoopEvent):
    """The images a prompt's ``@`` mentions attached, found as it was expanded: the front
    end shows them with the prompt it echoed, as it shows pasted ones."""

    type: Literal["prompt_images"] = "prompt_images"
    images: list[Image]


class RunFinished(_LoopEvent):
    type: Literal["run_finished"] = "run_finished"
    reason: StopReason
    final_text: str = ""
    usage: Usage = Field(default_factory=Usage)
    error: ErrorInfo | None = None


class SessionTitled(_LoopEvent):
    """The session has a title (its first prompt's first line), and a file to resume from."""

    type: Literal["session_titled"] = "session_titled"
    session_id: str
    title: str


class TranscriptReplaced(_LoopEvent):
    """The conversation now holds ``messages`` instead of what came before.

    ``compacted``: a summary replaced the history (the session file keeps the full one);
    ``resumed``: a saved session was opened; ``cleared``: a fresh start.
    """

    type: Literal["transcript_replaced"] = "transcript_replaced"
    reason: Literal["compacted", "resumed", "cleared"]
    messages: list[Message] = Field(default_factory=list)
    session_id: str | None = None
    title: str = ""
    subagents: dict[str, list[Message]] = Field(default_factory=dict)
    """``resumed``: the transcripts of the subagents the session ran, by ``task`` call id."""


class SubagentEvent(_LoopEvent):
    """One event of a subagent's own loop (its own turns), inside the parent's ``task`` call
    ``call_id`` of ``turn``: front ends show the child's progress on that call."""

    type: Literal["subagent_event"] = "subagent_event"
    index: int
    call_id: str
    agent: str
    event: Any
    """The child's ``LoopEvent``."""


class SubagentDone(_LoopEvent):
    """A subagent ended (also when cancelled): its whole transcript, for the panel to unfold."""

    type: Literal["subagent_done"] = "subagent_done"
    index: int
    call_id: str
    agent: str
    messages: list[Message] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


class TodosChanged(_LoopEvent):
    """The agent's task list is now ``todos``, whole (empty: there is none)."""

    type: Literal["todo"] = "todo"
    todos: list[Todo] = Field(default_factory=list)


class PlanProposed(_LoopEvent):
    """In plan mode the model handed over its plan (``exit_plan_mode``): the user decides."""

    type: Literal["plan"] = "plan"
    index: int
    call_id: str
    plan: str


class ModeChanged(_LoopEvent):
    """The approval mode changed on the user's answer during a run (a plan carried out), or a
    resumed session came back in the mode it was left in."""

    type: Literal["mode_changed"] = "mode_changed"
    mode: ApprovalMode


class CommandsChanged(_LoopEvent):
    """The slash commands the session takes changed: an MCP server's prompts came or went."""

    type: Literal["commands_changed"] = "commands_changed"


class Steered(_LoopEvent):
    """Words the user sent while the agent worked joined the running turn: the model reads
    them with this turn's request (they are a user message of the transcript now)."""

    type: Literal["steered"] = "steered"
    text: str


GoalState = Literal["active", "met", "stopped", "cleared"]


class GoalChanged(_LoopEvent):
    """The session's goal (``/goal``) was set, judged not met yet, met, stopped by a limit or
    cleared; ``turns``: the turns it has taken so far."""

    type: Literal["goal"] = "goal"
    condition: str
    state: GoalState
    turns: int = 0
    reason: str = ""
    """The judge's latest word, or why it stopped."""


LoopEvent = Annotated[
    TurnStarted
    | Streamed
    | TurnFinished
    | ToolStarted
    | ToolOutputDelta
    | ToolFinished
    | ApprovalRequested
    | Notice
    | PromptImages
    | RunFinished
    | SessionTitled
    | TranscriptReplaced
    | SubagentEvent
    | SubagentDone
    | TodosChanged
    | PlanProposed
    | ModeChanged
    | CommandsChanged
    | GoalChanged
    | Steered,
    Field(discriminator="type"),
]

LoopEventAdapter: TypeAdapter[LoopEvent] = TypeAdapter(LoopEvent, config=ConfigDict(defer_build=True))


class PlanDecision(BaseModel):
    """What the user made of a plan: carry it out in ``auto-edit`` or ``ask``, or go on
    planning (``plan``) with ``feedback`` for the model."""

    model_config = ConfigDict(defer_build=True)

    mode: Literal["auto-edit", "ask", "plan"]
    feedback: str = ""


class ApprovalDecision(BaseModel):
    model_config = ConfigDict(defer_build=True)

    verdict: Verdict
    reason: str = ""
    """With "no": sent to the model."""
    rule: str = ""
    """With "yes": an allow rule to keep from now on (the request's ``prefix_rule``)."""
    save_to: Literal["user", "project"] | None = None
    """Where ``rule`` is saved: the user's config, this project, or (None) this session."""
