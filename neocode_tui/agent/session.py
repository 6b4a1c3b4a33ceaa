"""One conversation with the agent, whichever front end drives it.

The app, headless runs and ACP all hold an ``AgentSession``: it builds the provider from
the settings, owns the loop, the session file, compaction, the model and approval mode,
resume / clear / list and the usage totals. A front end gives it a ``listener`` for
events and an ``approver`` for questions, then calls ``prompt``, ``cancel`` and the
commands; it never wires the pieces itself, so a feature added here reaches all of them.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neocode_tui.agent import git_state
from neocode_tui.agent.checkpoints import Checkpoint, CheckpointStore, Restore
from neocode_tui.agent.compaction import compact_messages
from neocode_tui.agent.file_index import FileIndex
from neocode_tui.agent.loop import AgentLoop, Approver
from neocode_tui.agent.loop_events import (
    LoopEvent,
    Notice,
    RunFinished,
    SessionTitled,
    TranscriptReplaced,
)
from neocode_tui.agent.mentions import expand_mentions
from neocode_tui.agent.store import (
    SessionInfo,
    SessionStore,
    find_session,
    list_sessions,
    load_session,
    title_of,
)
from neocode_tui.agent.tools import Tool, ToolRegistry
from neocode_tui.chat import Message, clean_text
from neocode_tui.config import Settings
from neocode_tui.errors import NeoCodeError, WorkInProgress
from neocode_tui.events import Usage
from neocode_tui.providers import Provider, make_provider
from neocode_tui.redact import Redactor
from neocode_tui.vocabulary import ApprovalMode

Listener = Callable[[LoopEvent], None]


class RewindError(NeoCodeError):
    """The prompt asked for is not one this conversation can go back to."""


@dataclass(frozen=True)
class UndoPreview:
    """What /undo or /rewind would write back, shown before the user says yes."""

    checkpoint: Checkpoint
    """The prompt taken back (the earliest of them, for a rewind)."""
    restores: list[Restore]
    commands: int
    """``bash`` calls run since: what they changed is not taken back."""
    git_status: str | None
    """``git status --short`` in a repository: what else changed (commands included)."""

    @property
    def diff(self) -> str:
        return "".join(restore.diff() for restore in self.restores)


@dataclass(frozen=True)
class SessionDiff:
    source: Literal["git", "checkpoints"]
    text: str


class AgentSession:
    """A conversation in ``workspace``: prompts in, events out, saved as it goes.

    ``save=False`` keeps it in memory (demos, benchmarks). The session file is created on
    the first prompt, so opening and closing the app leaves no empty sessions behind.
    """

    def __init__(
        self,
        settings: Settings,
        workspace: Path,
        *,
        provider: Provider | None = None,
        listener: Listener | None = None,
        approver: Approver | None = None,
        tools: ToolRegistry | None = None,
        save: bool = True,
    ) -> None:
        self.settings = settings
        self.workspace = workspace.resolve()
        self.provider = provider or make_provider(settings)
        self.listener = listener
        self.save = save
        self.title = ""
        self.id: str | None = None
        """The saved session's id, once there is a file (from the first prompt on)."""
        self._store: SessionStore | None = None
        self._compaction: asyncio.Task[None] | None = None
        self.loop = AgentLoop(
            self.provider,
            self.workspace,
            sink=self._emit,
            approver=approver,
            approval=settings.approval or "ask",
            max_turns=settings.max_turns,
            tools=tools,
            secrets=settings.secrets,
        )
        self.files = FileIndex(self.workspace)
        """The workspace's files for the ``@`` picker; a front end starts its first scan."""
        self.loop.before_tool = self._before_tool
        self._checkpoints: CheckpointStore | None = None
        self._unsaved_key = f"unsaved-{secrets.token_hex(6)}"
        """Where an unsaved conversation's checkpoints go (a fresh one after /clear)."""
        self._undo_note = ""

    # -- what the front ends show ---------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return self.loop.messages

    @property
    def usage(self) -> Usage:
        """Token totals for the whole session, resumed history included."""
        return self.loop.usage

    @property
    def saving(self) -> bool:
        """The conversation is being written to its session file (it can be resumed)."""
        return self._store is not None and self._store.saving

    @property
    def running(self) -> bool:
        """A prompt or a compaction is in progress."""
        return self.loop.running or (
            self._compaction is not None and not self._compaction.done()
        )

    @property
    def approval(self) -> ApprovalMode:
        return self.loop.approval

    @approval.setter
    def approval(self, mode: ApprovalMode) -> None:
        """Takes effect at the next tool call, even in the middle of a run."""
        self.loop.approval = mode

    @property
    def model(self) -> str:
        return self.provider.model

    @model.setter
    def model(self, name: str) -> None:
        """Takes effect at the next request."""
        self.provider.model = name

    def saved_sessions(self) -> list[SessionInfo]:
        """This folder's other saved sessions, the most recently used first."""
        return [info for info in list_sessions(self.workspace) if info.id != self.id]

    # -- running --------------------------------------------------------------------------

    async def prompt(self, text: str) -> RunFinished:
        """Run ``text`` to the end; ``cancel()`` ends it early (``reason="cancelled"``)."""
        if self.running:
            raise WorkInProgress("the agent is still working on the last prompt")
        text = clean_text(text)
        self.ensure_saved()
        if not self.title:
            self.title = title_of(text)
            if self._store is not None:
                self._emit(
                    SessionTitled(turn=self.loop.turn, session_id=self._store.id, title=self.title)
                )
        expanded = await asyncio.to_thread(
            expand_mentions, text, self.loop.workspace, Redactor(self.settings.secrets)
        )
        for problem in expanded.problems:
            self._notice("warning", problem)
        await asyncio.to_thread(self.checkpoints.begin, text, len(self.messages))
        note, self._undo_note = self._undo_note, ""
        return await self.loop.run(note + expanded.text)

    def ensure_saved(self) -> str | None:
        """Create the session file now, if it is saved at all; returns its id."""
        if self._store is None and self.save:
            self._store = SessionStore.create(
                self.workspace, provider=self.provider.name, model=self.provider.model,
                on_problem=self._store_problem,
            )
            self.loop.session = self._store
            self.id = self._store.id
        return self.id

    def cancel(self) -> bool:
        """Stop the prompt or compaction in progress; False when nothing was running."""
        if self._compaction is not None and not self._compaction.done():
            self._compaction.cancel()
            return True
        return self.loop.cancel()

    async def compact(self) -> bool:
        """Replace the history with a model-written summary; False when it could not.

        The old session file stays whole; the summary starts a file of its own.
        """
        if self.running:
            raise WorkInProgress("compaction waits for the current answer")
        if not self.messages:
            self._notice("info", "nothing to compact yet")
            return False
        self._compaction = work = asyncio.create_task(self._compact())
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            self._notice("warning", "compaction interrupted: the conversation is unchanged")
            return False
        finally:
            self._compaction = None

    async def _compact(self) -> bool:
        summary = await compact_messages(self.provider, self.messages)
        if summary.error:
            self._notice("error", f"could not compact: {summary.error}")
            return False
        self.loop.messages[:] = summary.messages
        self._close_store()
        self.id = None
        self._forget_unsaved_checkpoints()
        if self.ensure_saved() and self._store is not None:
            for message in summary.messages:
                self._store.append_message(message)
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="compacted", messages=list(summary.messages),
                session_id=self.id, title=self.title,
            )
        )
        return True

    def clear(self) -> None:
        """Start a fresh conversation; the current one stays saved."""
        self._require_idle("/clear")
        self._close_store()
        self.loop.messages.clear()
        self.loop.usage = Usage()
        self.title = ""
        self.id = None
        self._forget_unsaved_checkpoints()
        self._emit(TranscriptReplaced(turn=self.loop.turn, reason="cleared"))

    def resume(self, session_id: str | None = None) -> SessionInfo:
        """Continue a saved session (by id or id prefix; the latest here when None).

        Raises ``SessionNotFound``. Calls left unanswered by a crash get results first, so
        the next request is valid.
        """
        self._require_idle("/resume")
        loaded = load_session(find_session(self.workspace, session_id))
        if loaded.info.id == self.id:
            self._close_store()  # our own lock would keep us out
        store, messages = SessionStore.resume(loaded, on_problem=self._store_problem)
        self._close_store()  # only now: a busy session leaves the current one as it was
        if not self.save:
            store.close()
        self._store = store if self.save else None
        self.loop.session = self._store
        self.id = loaded.info.id
        for problem in loaded.problems:
            self._notice("warning", problem)
        self.loop.messages[:] = messages
        self.loop.usage = loaded.usage
        self.title = loaded.info.title
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="resumed", messages=list(messages),
                session_id=loaded.info.id, title=self.title,
            )
        )
        return loaded.info

    # -- taking back what the agent did ------------------------------------------------------

    @property
    def checkpoints(self) -> CheckpointStore:
        """This conversation's checkpoints (kept by session id, so a resumed one has them)."""
        key = self.id or self._unsaved_key
        if self._checkpoints is None or self._checkpoints.folder.name != key:
            self._checkpoints = CheckpointStore.for_session(key)
        return self._checkpoints

    async def undo_preview(self) -> UndoPreview | None:
        """What ``undo`` would write back, to show before asking; None: nothing to undo."""
        self._require_idle("/undo")
        store = self.checkpoints
        checkpoint = await asyncio.to_thread(store.last_undoable)
        if checkpoint is None:
            return None
        restores = await asyncio.to_thread(store.restores, [checkpoint], self.loop.workspace)
        return UndoPreview(
            checkpoint, restores, checkpoint.commands, await git_state.status_short(self.workspace)
        )

    async def undo(self, preview: UndoPreview) -> list[str]:
        """Write back the files the previewed prompt changed; the paths restored. The model
        hears of it with the next prompt."""
        self._require_idle("/undo")
        store = self.checkpoints
        await asyncio.to_thread(store.apply, preview.restores, self.loop.workspace)
        await asyncio.to_thread(store.mark_undone, preview.checkpoint)
        self.files.invalidate()
        restored = [restore.path for restore in preview.restores]
        if restored:
            self._undo_note = (
                f"[The user undid the file changes of their earlier request "
                f"{preview.checkpoint.prompt[:80]!r}: {', '.join(restored)} are back as they "
                "were before it.]\n\n"
            )
        return restored

    def rewind_points(self) -> list[Checkpoint]:
        """The prompts of this conversation that it can be rewound to, oldest first."""
        messages = self.messages
        return [
            checkpoint for checkpoint in self.checkpoints.all()
            if checkpoint.message_index < len(messages)
            and messages[checkpoint.message_index].role == "user"
        ]

    async def rewind_preview(self, number: int) -> UndoPreview:
        """What rewinding to prompt ``number`` would write back to the files."""
        self._require_idle("/rewind")
        store = self.checkpoints
        since = [checkpoint for checkpoint in store.all() if checkpoint.number >= number]
        if not since:
            raise RewindError(f"there is no prompt {number} to rewind to")
        restores = await asyncio.to_thread(store.restores, since, self.loop.workspace)
        commands = sum(checkpoint.commands for checkpoint in since)
        return UndoPreview(
            since[0], restores, commands, await git_state.status_short(self.workspace)
        )

    async def rewind(self, preview: UndoPreview, *, files: bool) -> str:
        """Take the conversation back to just before ``preview``'s prompt (and the files,
        if ``files``); returns that prompt, to edit and send again. The conversation goes
        on in a new session file; the old one stays whole."""
        self._require_idle("/rewind")
        checkpoint, store = preview.checkpoint, self.checkpoints
        if files:
            await asyncio.to_thread(store.apply, preview.restores, self.loop.workspace)
            self.files.invalidate()
        kept = self.messages[: checkpoint.message_index]
        self.loop.messages[:] = kept
        self._close_store()
        self.id = None
        self._undo_note = ""
        if self.ensure_saved() and self._store is not None:
            for message in kept:
                self._store.append_message(message)
            moved = CheckpointStore.for_session(self._store.id)
            await asyncio.to_thread(store.move_to, moved.folder)
        await asyncio.to_thread(store.drop_from, checkpoint.number)
        if not kept:
            self.title = ""
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="resumed", messages=list(kept), session_id=self.id,
                title=self.title,
            )
        )
        return checkpoint.prompt

    async def diff(self) -> SessionDiff:
        """What changed in the workspace: ``git diff`` in a repository, otherwise every
        file the file tools changed in this conversation, from before the first change."""
        in_git = await git_state.working_diff(self.workspace)
        if in_git is not None:
            return SessionDiff("git", in_git)
        store = self.checkpoints
        restores = await asyncio.to_thread(store.restores, store.all(), self.loop.workspace)
        # From the files before the first change to the files now.
        text = "".join(Restore(r.path, r.current, r.before).diff() for r in restores)
        return SessionDiff("checkpoints", text)

    def _forget_unsaved_checkpoints(self) -> None:
        """An unsaved conversation's checkpoints go with it: nothing could resume it."""
        if self._checkpoints is not None and self._checkpoints.folder.name == self._unsaved_key:
            self._checkpoints.discard()
        self._unsaved_key = f"unsaved-{secrets.token_hex(6)}"

    async def _before_tool(self, tool: Tool, writes: list[Path]) -> None:
        store = self.checkpoints
        try:
            if tool.kind == "command":
                await asyncio.to_thread(store.ran_command)
            if writes:
                await asyncio.to_thread(store.before_write, writes, self.loop.workspace)
        except OSError as exc:
            self._notice("warning", f"could not save a checkpoint: {exc.strerror or exc}")
        if writes or tool.kind == "command":
            self.files.invalidate()

    async def aclose(self) -> None:
        """Stop whatever runs (the pending call is recorded as interrupted), close the file."""
        await self.files.aclose()
        await asyncio.to_thread(self._forget_unsaved_checkpoints)
        compaction = self._compaction
        if compaction is not None and not compaction.done():
            compaction.cancel()
            await asyncio.wait([compaction])
        await self.loop.stop()
        self._close_store()
        await self.provider.aclose()

    # -- inside ---------------------------------------------------------------------------

    def _require_idle(self, what: str) -> None:
        if self.running:
            raise WorkInProgress(f"{what} waits for the current answer (interrupt it first)")

    def _close_store(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
            self.loop.session = None

    def _store_problem(self, problem: str) -> None:
        self._notice("warning", problem)

    def _notice(self, level: str, message: str) -> None:
        self._emit(Notice(turn=self.loop.turn, level=level, message=message))  # type: ignore[arg-type]

    def _emit(self, event: LoopEvent) -> None:
        if self.listener is not None:
            self.listener(event)

