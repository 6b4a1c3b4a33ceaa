"""One conversation with the agent, whichever front end drives it.

The app, headless runs and ACP all hold an ``AgentSession``: it builds the provider from
the settings, owns the loop, the session file, compaction, the model and approval mode,
resume / clear / list and the usage totals. A front end gives it a ``listener`` for
events and an ``approver`` for questions, then calls ``prompt``, ``cancel`` and the
commands; it never wires the pieces itself, so a feature added here reaches all of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from neocode_tui.agent.compaction import compact_messages
from neocode_tui.agent.loop import AgentLoop, Approver
from neocode_tui.agent.loop_events import (
    LoopEvent,
    Notice,
    RunFinished,
    SessionTitled,
    TranscriptReplaced,
)
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.store import (
    SessionInfo,
    SessionStore,
    find_session,
    list_sessions,
    load_session,
    title_of,
)
from neocode_tui.agent.tools import ToolRegistry
from neocode_tui.chat import Message, clean_text
from neocode_tui.config import Settings
from neocode_tui.errors import WorkInProgress
from neocode_tui.events import Usage
from neocode_tui.providers import Provider, make_provider
from neocode_tui.vocabulary import ApprovalMode

Listener = Callable[[LoopEvent], None]


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
        mcp: McpManager | None = None,
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
        # MCP servers: from the config files unless given; started by the front end or
        # the first prompt, their tools offered at each request once connected.
        self.mcp = mcp or McpManager(self.workspace)
        self.loop.tools.add_source(self.mcp)

    # -- what the front ends show ---------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return self.loop.messages

    @property
    def usage(self) -> Usage:
        """Token totals for the whole session, resumed history included."""
        return self.loop.usage

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
        self.mcp.start()
        self.ensure_saved()
        if not self.title:
            self.title = title_of(text)
            if self._store is not None:
                self._emit(
                    SessionTitled(turn=self.loop.turn, session_id=self._store.id, title=self.title)
                )
        return await self.loop.run(text)

    def ensure_saved(self) -> str | None:
        """Create the session file now, if it is saved at all; returns its id."""
        if self._store is None and self.save:
            self._store = SessionStore.create(
                self.workspace, provider=self.provider.name, model=self.provider.model
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
        self._emit(TranscriptReplaced(turn=self.loop.turn, reason="cleared"))

    def resume(self, session_id: str | None = None) -> SessionInfo:
        """Continue a saved session (by id or id prefix; the latest here when None).

        Raises ``SessionNotFound``. Calls left unanswered by a crash get results first, so
        the next request is valid.
        """
        self._require_idle("/resume")
        loaded = load_session(find_session(self.workspace, session_id))
        self._close_store()
        store, messages = SessionStore.resume(loaded)
        if not self.save:
            store.close()
        self._store = store if self.save else None
        self.loop.session = self._store
        self.id = loaded.info.id
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

    async def aclose(self) -> None:
        """Stop whatever runs (the pending call is recorded as interrupted), close the file."""
        compaction = self._compaction
        if compaction is not None and not compaction.done():
            compaction.cancel()
            await asyncio.wait([compaction])
        await self.loop.stop()
        self._close_store()
        await self.mcp.aclose()
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

    def _notice(self, level: str, message: str) -> None:
        self._emit(Notice(turn=self.loop.turn, level=level, message=message))  # type: ignore[arg-type]

    def _emit(self, event: LoopEvent) -> None:
        if self.listener is not None:
            self.listener(event)

