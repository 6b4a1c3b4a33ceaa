"""What replaces a session's conversation: a compaction's summary, ``/clear``, a resume and
a rewind. A part of ``AgentSession``'s, apart so that each concern is a module of its own;
it reads the session's parts as the session made them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from neocode_tui.agent.loop_events import ModeChanged, TranscriptReplaced
from neocode_tui.agent.restore import Restored
from neocode_tui.agent.store import SessionStore, find_session
from neocode_tui.errors import WorkInProgress
from neocode_tui.events import Usage

if TYPE_CHECKING:
    from pathlib import Path

    from neocode_tui.agent.context import Compactor, Meter, Uncompact
    from neocode_tui.agent.extensions import SessionHooks
    from neocode_tui.agent.goal import Pursuit
    from neocode_tui.agent.loop import AgentLoop
    from neocode_tui.agent.loop_events import LoopEvent
    from neocode_tui.agent.processes import BackgroundJobs, Job
    from neocode_tui.agent.restore import Restorer, UndoPreview
    from neocode_tui.agent.session.file import SessionFile
    from neocode_tui.agent.session.title import Titling
    from neocode_tui.agent.session.tools import SessionTools
    from neocode_tui.agent.store import LoadedSession, SessionInfo
    from neocode_tui.chat import Message
    from neocode_tui.providers import Provider
    from neocode_tui.vocabulary import ApprovalMode, Effort, NoticeLevel


class ConversationChanges:
    """The session's conversation taken back, summarised or swapped for another."""

    if TYPE_CHECKING:  # the session's, as ``AgentSession`` makes and defines them
        workspace: Path
        loop: AgentLoop
        file: SessionFile
        meter: Meter
        compaction: Compactor
        undo_compaction: Uncompact
        provider: Provider
        titling: Titling
        restore: Restorer
        own_tools: SessionTools
        lifecycle: SessionHooks
        goal: Pursuit
        jobs: BackgroundJobs
        child_transcripts: dict[str, list[Message]]
        approval: ApprovalMode

        @property
        def running(self) -> bool: ...
        @property
        def messages(self) -> list[Message]: ...
        @property
        def turn(self) -> int: ...
        @property
        def id(self) -> str | None: ...
        @property
        def title(self) -> str: ...
        def require_idle(self, what: str) -> None: ...
        def ensure_saved(self, fork: tuple[str, int] | None = None) -> str | None: ...
        def notice(self, level: NoticeLevel, message: str, *, calls_back: bool = False,
                   call_id: str | None = None) -> None: ...
        def emit(self, event: LoopEvent) -> None: ...
        def _use_effort(self, effort: Effort | None) -> None: ...

    async def compact(self, instructions: str = "") -> bool:
        """Replace the older history with a model-written summary, keeping the last turns
        verbatim; ``instructions`` say what the summary must keep. False when it could not.

        The session file keeps the whole history and records the compaction, so resuming
        continues from the summary and the title stays the first prompt.
        """
        if self.running:
            raise WorkInProgress("compaction waits for the current answer")
        if not self.messages:
            self.notice("info", "nothing to compact yet")
            return False
        return await self.compaction.compact(instructions)

    def _compacted(self, messages: list[Message]) -> None:
        """The history is a summary now; the file records it, the front ends show it."""
        self.undo_compaction.compacted(self.loop.messages, messages)
        self.loop.messages[:] = messages
        self.lifecycle.restart("compact")
        self.meter.history_replaced(costs=False)
        self.file.write(SessionStore.append_compaction, messages)
        self.emit(
            TranscriptReplaced(
                turn=self.turn, reason="compacted", messages=list(messages),
                session_id=self.id, title=self.title,
            )
        )

    def clear(self) -> list[Job]:
        """Start a fresh conversation; the current one stays saved. The background commands
        keep running (``BackgroundJobs.new_conversation``): the ones that do."""
        self.require_idle("/clear")
        self.lifecycle.restart("clear")  # while the id is still the ended session's
        self.file.forget()
        self.loop.messages.clear()
        self.child_transcripts = {}
        self.loop.usage = Usage.unknown()
        self.meter.history_replaced(costs=True)
        self.titling.restore("", "")
        self.restore.forget_unsaved()
        self.emit(TranscriptReplaced(turn=self.turn, reason="cleared"))
        self.own_tools.set_todos([], save=False)
        self.goal.clear()
        return self.jobs.new_conversation()

    def resume(self, session_id: str | None = None) -> SessionInfo:
        """Continue a saved session (by id or id prefix; the latest here when None).

        Raises ``SessionNotFound``. Calls left unanswered by a crash get results first, so
        the next request is valid.
        """
        self.require_idle("/resume")
        loaded = self.file.resume(find_session(self.workspace, session_id))
        messages = loaded.messages
        for problem in loaded.problems:
            self.notice("warning", problem)
        self.loop.messages[:] = messages
        self.child_transcripts = loaded.subagents
        self.loop.usage = loaded.usage
        self.meter.history_replaced(costs=True)
        self.titling.restore(loaded.info.title, loaded.info.title_by)
        self.emit(
            TranscriptReplaced(
                turn=self.turn, reason="resumed", messages=list(messages),
                session_id=loaded.info.id, title=self.title, subagents=loaded.subagents,
            )
        )
        self.own_tools.set_todos(loaded.todos, save=False)
        self._resume_mode(loaded.mode)
        self._resume_choices(loaded)
        self.lifecycle.restart("resume")
        return loaded.info

    def _resume_mode(self, saved: ApprovalMode | None) -> None:
        """Back in the mode the session was left in (a plan stays a plan), but never in
        ``full-auto``: that is chosen anew in each run, never one resume away."""
        if saved is None or saved == self.approval:
            return
        if saved == "full-auto":
            self.notice("info", f"this session was left in full-auto; it goes on in {self.approval} "
                        "(/approval full-auto to choose it again)")
            return
        self.approval = saved
        self.emit(ModeChanged(turn=self.loop.turn, mode=saved))

    def _resume_choices(self, loaded: LoadedSession) -> None:
        """Back on the model and effort chosen in the session: a model only on the provider
        it was chosen on (a name means nothing to another server)."""
        if loaded.model is not None and loaded.model[0] == self.provider.name:
            self.provider.model = loaded.model[1]
        if loaded.effort is not None:
            self._use_effort(None if loaded.effort == "off" else loaded.effort)

    # -- taking back what the agent did (the files: ``self.restore``) ------------------------

    async def rewind(self, preview: UndoPreview, *, files: bool) -> tuple[str, Restored]:
        """Take the conversation back to just before ``preview``'s prompt (and the files,
        if ``files``); returns that prompt, to edit and send again, and what was done to the
        files. The conversation goes on in a new session file; the old one stays whole."""
        self.require_idle("/rewind")
        checkpoint, store = preview.checkpoint, self.restore.checkpoints
        result = Restored([], [])
        if files:
            result = await self.restore.write_back(preview)
        kept = self.messages[: checkpoint.message_index]
        self.loop.messages[:] = kept
        self.meter.history_replaced(costs=False)
        fork = None if self.id is None else (self.id, checkpoint.number)
        self.file.forget()
        if not kept:
            self.titling.restore("", "")
        self.ensure_saved(fork)
        self.file.begin_with(kept, self.own_tools.todos)
        await self.restore.rewound(store, checkpoint.number, self.id)
        self.emit(
            TranscriptReplaced(
                turn=self.turn, reason="resumed", messages=list(kept), session_id=self.id,
                title=self.title,
            )
        )
        return checkpoint.prompt, result
