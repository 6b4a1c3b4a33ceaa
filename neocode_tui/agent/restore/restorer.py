"""Taking back what the agent did: one conversation's checkpoints, and what ``/undo``,
``/rewind`` and ``/diff`` read from them and from git.

The session holds one ``Restorer`` and hands it only what it needs: the session's id (the
checkpoints are kept by it, so a resumed conversation has its own), its messages (a rewind
point is a prompt still in them), the file index to refresh and where to say a problem.
Rewinding the conversation itself stays the session's: the restorer writes the files.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from neocode_tui.agent.extensions import FileIndex
from neocode_tui.agent.restore import git_state
from neocode_tui.agent.restore.checkpoints import Checkpoint, CheckpointStore, Restore, Restored
from neocode_tui.agent.restore.git_run import Repository, find_repository
from neocode_tui.agent.tools import Tool
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import Message
from neocode_tui.errors import NeoCodeError
from neocode_tui.vocabulary import NoticeLevel


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

    @property
    def refused(self) -> list[str]:
        """Files that will be left as they are, and why."""
        return [restore.refused for restore in self.restores if restore.refused]


@dataclass(frozen=True)
class SessionDiff:
    source: Literal["git", "checkpoints"]
    text: str


class RestoreHost(Protocol):
    """The session whose files are checkpointed and taken back."""

    @property
    def id(self) -> str | None:
        """The saved session's id (None before its file): whose checkpoints these are."""
        ...

    @property
    def messages(self) -> list[Message]: ...

    def require_idle(self, what: str) -> None:
        """Raise ``WorkInProgress`` while a prompt runs: ``what`` waits for it."""
        ...

    def notice(self, level: NoticeLevel, message: str) -> None: ...


class Restorer:
    def __init__(
        self,
        workspace: Workspace,
        files: FileIndex,
        host: RestoreHost,
    ) -> None:
        self.workspace = workspace
        self.files = files
        self._host = host
        self._store: CheckpointStore | None = None
        self._unsaved_key = f"unsaved-{secrets.token_hex(6)}"
        """Where an unsaved conversation's checkpoints go (a fresh one after /clear)."""
        self._note = ""
        self._repository: Repository | None = None
        self._repository_found = False
        """Whether the repository was looked for (it is once, before the first command)."""

    @property
    def checkpoints(self) -> CheckpointStore:
        """This conversation's checkpoints (kept by session id, so a resumed one has them)."""
        key = self._host.id or self._unsaved_key
        if self._store is None or self._store.folder.name != key:
            self._store = CheckpointStore.for_session(key)
        return self._store

    def take_note(self) -> str:
        """What the model should hear with the next prompt about an undo since the last."""
        note, self._note = self._note, ""
        return note

    async def undo_preview(self) -> UndoPreview | None:
        """What ``undo`` would write back, to show before asking; None: nothing to undo."""
        self._host.require_idle("/undo")
        store = self.checkpoints
        checkpoint = await asyncio.to_thread(store.last_undoable)
        if checkpoint is None:
            return None
        restores = await asyncio.to_thread(store.restores, [checkpoint], self.workspace)
        return UndoPreview(checkpoint, restores, checkpoint.commands, await self.git_status())

    async def undo(self, preview: UndoPreview) -> Restored:
        """Write back the files the previewed prompt changed (a file that became a symlink,
        a folder or a FIFO is left as it is, and said). The model hears of it with the next
        prompt."""
        self._host.require_idle("/undo")
        result = await self.write_back(preview)
        await asyncio.to_thread(self.checkpoints.mark_undone, preview.checkpoint)
        restored = result.paths
        if restored:
            self._note = (
                f"[The user undid the file changes of their earlier request "
                f"{preview.checkpoint.prompt[:80]!r}: {', '.join(restored)} are back as they "
                "were before it.]\n\n"
            )
        return result

    async def write_back(self, preview: UndoPreview) -> Restored:
        result = await asyncio.to_thread(self.checkpoints.apply, preview.restores, self.workspace)
        self.files.invalidate()
        return result

    def rewind_points(self) -> list[Checkpoint]:
        """The prompts of this conversation that it can be rewound to, oldest first."""
        messages = self._host.messages
        return [
            checkpoint for checkpoint in self.checkpoints.all()
            if checkpoint.message_index < len(messages)
            and messages[checkpoint.message_index].role == "user"
        ]

    async def rewind_preview(self, number: int) -> UndoPreview:
        """What rewinding to prompt ``number`` would write back to the files."""
        self._host.require_idle("/rewind")
        store = self.checkpoints
        since = [checkpoint for checkpoint in store.all() if checkpoint.number >= number]
        if not since:
            raise RewindError(f"there is no prompt {number} to rewind to")
        restores = await asyncio.to_thread(store.restores, since, self.workspace)
        commands = sum(checkpoint.commands for checkpoint in since)
        return UndoPreview(since[0], restores, commands, await self.git_status())

    async def rewound(self, store: CheckpointStore, number: int, moved_to: str | None) -> None:
        """After a rewind to before prompt ``number``: the checkpoints go with the new
        session file (``moved_to``), without the prompts taken back."""
        self._note = ""
        if moved_to is not None:
            await asyncio.to_thread(store.move_to, CheckpointStore.for_session(moved_to).folder)
        await asyncio.to_thread(store.drop_from, number)

    async def diff(self) -> SessionDiff:
        """What changed in the workspace: ``git diff`` in a repository, otherwise every
        file the file tools changed in this conversation, from before the first change."""
        in_git = await git_state.working_diff(await self.repository(), self.workspace.root)
        if in_git is not None:
            return SessionDiff("git", in_git)
        store = self.checkpoints
        restores = await asyncio.to_thread(store.restores, store.all(), self.workspace)
        # From the files before the first change to the files now.
        text = "".join(Restore(r.path, r.current, r.before).diff() for r in restores)
        return SessionDiff("checkpoints", text)

    async def repository(self) -> Repository | None:
        """The workspace's repository as found at the session's start, before any command
        ran: git for NeoCode stays in it, whatever ``.git`` a command makes (``git_run``)."""
        if not self._repository_found:
            self._repository = await find_repository(self.workspace.root)
            self._repository_found = True
        return self._repository

    async def git_status(self) -> str | None:
        """``git status --short`` of the workspace; None outside a repository."""
        return await git_state.status_short(await self.repository(), self.workspace.root)

    def forget_unsaved(self) -> None:
        """An unsaved conversation's checkpoints go with it: nothing could resume it."""
        if self._store is not None and self._store.folder.name == self._unsaved_key:
            self._store.discard()
        self._unsaved_key = f"unsaved-{secrets.token_hex(6)}"

    async def before_tool(self, tool: Tool[Any], writes: list[Path]) -> None:
        """Before a call runs: what it will write is saved, and a command is counted."""
        store = self.checkpoints
        try:
            if tool.kind == "command":
                await asyncio.to_thread(store.ran_command)
            if writes:
                await asyncio.to_thread(store.before_write, writes, self.workspace)
        except OSError as exc:
            self._host.notice("warning", f"could not save a checkpoint: {exc.strerror or exc}")
        if writes or tool.kind == "command":
            self.files.invalidate()
