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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Literal

from neocode_tui.agent import git_state
from neocode_tui.agent.checkpoints import Checkpoint, CheckpointStore, Restore
from neocode_tui.agent.compaction import DEFAULT_SUMMARY_INPUT, compact_messages
from neocode_tui.agent.context import (
    CHARS_PER_TOKEN,
    ContextFigure,
    ContextPart,
    about,
    breakdown,
    context_window,
    estimate_tokens,
    is_overflow,
    message_tokens,
    reported_tokens,
)
from neocode_tui.agent.custom_commands import CustomCommands, load_commands
from neocode_tui.agent.file_index import FileIndex
from neocode_tui.agent.hooks import load_hooks
from neocode_tui.agent.loop import AgentLoop, Approver
from neocode_tui.agent.loop_events import (
    LoopEvent,
    Notice,
    RunFinished,
    SessionTitled,
    TranscriptReplaced,
    TurnFinished,
)
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.mentions import expand_mentions
from neocode_tui.agent.pricing import request_cost
from neocode_tui.agent.prompt import build_system_prompt
from neocode_tui.agent.sandbox import choose_sandbox
from neocode_tui.agent.store import (
    SessionInfo,
    SessionStore,
    find_session,
    list_sessions,
    title_of,
)
from neocode_tui.agent.tools import Tool, ToolRegistry
from neocode_tui.agent.tools.bash import Bash
from neocode_tui.agent.workspace import refuse_too_wide
from neocode_tui.chat import Message, clean_text
from neocode_tui.config import Settings
from neocode_tui.errors import NeoCodeError, WorkInProgress
from neocode_tui.events import ErrorInfo, Usage
from neocode_tui.providers import Provider, make_provider
from neocode_tui.redact import Redactor
from neocode_tui.vocabulary import ApprovalMode

Listener = Callable[[LoopEvent], None]

CONTINUE_AFTER_OVERFLOW = (
    "The history was compacted because it no longer fitted your context window. "
    "Continue the task from where you left off."
)


@dataclass
class ModelCost:
    """One model's share of the session: its requests' tokens and, when priced, dollars."""

    model: str
    usage: Usage = field(default_factory=Usage)
    requests: int = 0
    cost: Decimal | None = None


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
        mcp: McpManager | None = None,
        built_in_commands: Iterable[str] = (),
    ) -> None:
        """``built_in_commands``: the front end's own slash commands, which no custom
        command may take the name of."""
        refuse_too_wide(workspace)
        self.settings = settings
        self.workspace = workspace.resolve()
        self.provider = provider or make_provider(settings)
        self.listener = listener
        self.save = save
        self.title = ""
        self.id: str | None = None
        """The saved session's id, once there is a file (from the first prompt on)."""
        self._store: SessionStore | None = None
        self._closed_store: SessionStore | None = None
        self._compaction: asyncio.Task[bool] | None = None
        self._last_usage: Usage | None = None
        """The last request's usage, while the history is the one it was counted on."""
        self._counted = 0
        """How many messages that request's figure covers; later ones are estimated."""
        self._costs: dict[str, ModelCost] = {}
        self._compaction_cancelled = False
        self._compacted_in_run = False
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
        self.sandbox = choose_sandbox(settings.sandbox, settings.sandbox_network)
        """How commands run; said once, at the first prompt, when it could not be had."""
        bash = self.loop.tools.get("bash")
        if isinstance(bash, Bash):
            bash.sandbox, bash.secrets = self.sandbox, tuple(settings.secrets)
        self._sandbox_told = not self.sandbox.unavailable
        self.files = FileIndex(self.workspace)
        """The workspace's files for the ``@`` picker; a front end starts its first scan."""
        self.loop.before_tool = self._before_tool
        self._checkpoints: CheckpointStore | None = None
        self._unsaved_key = f"unsaved-{secrets.token_hex(6)}"
        """Where an unsaved conversation's checkpoints go (a fresh one after /clear)."""
        self._undo_note = ""
        # MCP servers: from the config files unless given; started by the front end or
        # the first prompt, their tools offered at each request once connected.
        self.mcp = mcp or McpManager(self.workspace)
        self.loop.tools.add_source(self.mcp)
        self.loop.between_turns = self._compact_between_turns
        # The user's extensions: custom slash commands and hooks.
        self._built_in_commands = tuple(built_in_commands)
        self.commands: CustomCommands = load_commands(self.workspace, self._built_in_commands)
        self.hooks = load_hooks(self.workspace, secrets=tuple(settings.secrets))
        redact = Redactor(settings.secrets)
        self.hooks.report = lambda level, message: self._notice(level, redact(message))
        self.hooks.session_id = lambda: self.id
        self.loop.hooks = self.hooks
        self._extensions_told = False

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
        """The conversation is written to its session file (it can be resumed), or was up to
        ``aclose``."""
        store = self._store or self._closed_store
        return store is not None and store.problem is None

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

    # -- switching provider ---------------------------------------------------------------

    async def use_settings(self, settings: Settings) -> None:
        """Talk to the provider and model ``settings`` name from the next request on (a
        profile picked with ``/model NAME``). The conversation, approval mode and sandbox
        stay; keys the new settings bring are scrubbed from then on as well."""
        self._require_idle("/model")
        old, self.provider = self.provider, make_provider(settings)
        self.loop.provider, self.settings = self.provider, settings
        scrubbed = self.loop.scrub_also(settings.secrets)
        bash = self.loop.tools.get("bash")
        if isinstance(bash, Bash):
            bash.secrets = tuple(scrubbed)
        await old.aclose()

    # -- context and cost -----------------------------------------------------------------

    @property
    def context_window(self) -> int | None:
        """The model's window in tokens (the setting first); None when unknown."""
        return context_window(self.model, self.settings.resolved_base_url, self.settings.context_window)

    @property
    def context(self) -> ContextFigure:
        """What the next request carries at least: the last request as the server counted
        it plus what came after, else an estimate of the whole."""
        reported = reported_tokens(self._last_usage)
        if reported is None:
            tokens = sum(part.tokens for part in self.context_parts())
        else:
            tokens = reported + sum(message_tokens(m) for m in self.messages[self._counted:])
        return ContextFigure(tokens=tokens, window=self.context_window, estimated=reported is None)

    def context_parts(self) -> list[ContextPart]:
        """What fills the window, estimated part by part (for ``/context``)."""
        if self.loop.system_prompt is None:
            self.loop.system_prompt = build_system_prompt(self.workspace, self.settings.secrets)
        return breakdown(self.loop.system_prompt, self.loop.tools.specs(), self.messages)

    @property
    def costs(self) -> list[ModelCost]:
        """Tokens and cost per model, for the requests this session made since it was
        opened (a resumed file records no model per request)."""
        return list(self._costs.values())

    @property
    def cost(self) -> Decimal | None:
        """Dollars for the priced requests; None when no model used has a known price."""
        known = [entry.cost for entry in self._costs.values() if entry.cost is not None]
        return sum(known, Decimal(0)) if known else None

    def _count(self, usage: Usage | None) -> None:
        if usage is None:
            return
        entry = self._costs.setdefault(self.model, ModelCost(self.model))
        entry.usage = entry.usage + usage
        entry.requests += 1
        cost = request_cost(usage, self.model, self.settings.resolved_base_url)
        if cost is not None:
            entry.cost = (entry.cost or Decimal(0)) + cost

    def _over_threshold(self, prompt: str) -> bool:
        """Past the threshold with a history whose summary can bring it back: when the
        instructions and tools alone fill that much, compacting would only repeat."""
        figure = self.context
        if not self.messages or figure.window is None:
            return False
        limit = figure.window * self.settings.compact_threshold
        fixed = sum(part.tokens for part in self.context_parts()[:-2])
        return figure.tokens + estimate_tokens(prompt) >= limit > fixed

    @property
    def _threshold_words(self) -> str:
        return f"{self.settings.compact_threshold:.0%} of the window"

    async def _compact_between_turns(self) -> None:
        """Within a run, before its next request: past the threshold, the older history is
        compacted and the run goes on. Once per run at most: what is left over the threshold
        after that is the run's own work, which a summary of the past cannot shrink. A cancel
        stops the run here as anywhere (the transcript is valid between turns)."""
        if self._compacted_in_run or not self._over_threshold(""):
            return
        self._compacted_in_run = True
        await self._compact("", f"the context passed {self._threshold_words} during the run")

    def saved_sessions(self) -> list[SessionInfo]:
        """This folder's other saved sessions, the most recently used first."""
        return [info for info in list_sessions(self.workspace) if info.id != self.id]

    # -- running --------------------------------------------------------------------------

    def reload_commands(self) -> CustomCommands:
        """Read the command folders again: a file added since shows up."""
        self.commands = load_commands(self.workspace, self._built_in_commands)
        return self.commands

    async def prompt(self, text: str) -> RunFinished:
        """Run ``text`` to the end; ``cancel()`` ends it early (``reason="cancelled"``).
        ``/name args`` of a custom command sends the command's prompt."""
        if self.running:
            raise WorkInProgress("the agent is still working on the last prompt")
        turn = self.loop.turn
        finished = await self._prompt(clean_text(text))
        if finished.reason != "cancelled" and self.loop.turn != turn:  # a turn ran and stopped
            await self.hooks.stopped(finished.reason)
        return finished

    async def _prompt(self, text: str) -> RunFinished:
        self.mcp.start()
        self.ensure_saved()
        if not self._sandbox_told:
            self._sandbox_told = True
            self._notice(
                "warning",
                f"no sandbox: {self.sandbox.unavailable}; every command asks for approval "
                "(install bubblewrap, or choose --sandbox off to silence this)",
            )
        if not self.title:
            self.title = title_of(text)
            if self._store is not None:
                self._emit(
                    SessionTitled(turn=self.loop.turn, session_id=self._store.id, title=self.title)
                )
        if not self._extensions_told:
            self._extensions_told = True
            for problem in [*self.commands.problems, *self.hooks.notices()]:
                self._notice("warning", problem)
        typed, text = text, self.commands.expand(text) or text
        expanded = await asyncio.to_thread(
            expand_mentions, text, self.loop.workspace, Redactor(self.settings.secrets)
        )
        for problem in expanded.problems:
            self._notice("warning", problem)
        self._compacted_in_run = False
        if self._over_threshold(expanded.text):
            if not await self._compact_guarded("", f"the context passed {self._threshold_words}"):
                if self._compaction_cancelled:  # Esc while compacting: the prompt is not sent
                    stopped = RunFinished(turn=self.loop.turn, reason="cancelled", usage=self.usage)
                    self._emit(stopped)
                    return stopped
        submitted = await self.hooks.prompt_submitted(text)
        if submitted.blocked is not None:
            message = f"the prompt was blocked by a UserPromptSubmit hook: {submitted.blocked}"
            blocked = RunFinished(
                turn=self.loop.turn, reason="error", usage=self.usage,
                error=ErrorInfo(kind="bad_request", message=Redactor(self.settings.secrets)(message)),
            )
            self._emit(blocked)
            return blocked
        await asyncio.to_thread(self.checkpoints.begin, typed, len(self.messages))
        note, self._undo_note = self._undo_note, ""
        text = note + expanded.text
        if submitted.context:
            context = Redactor(self.settings.secrets)(submitted.context)
            text += f"\n\n<user-prompt-submit-hook>\n{context}\n</user-prompt-submit-hook>"
        finished = await self.loop.run(text)
        if finished.reason != "error" or not is_overflow(finished.error):
            return finished
        # Once: a history that overflows again after compaction is not going to fit.
        unanswered = self.messages[-1] if self.messages else None
        if unanswered is not None and (unanswered.role, unanswered.content) == ("user", text):
            self.loop.messages.pop()  # asked again after the compaction, not summarised
        else:
            unanswered = None
        if not self.messages or not await self._compact_guarded("", "the model's context overflowed"):
            # Nothing before this prompt to summarise (it alone is too long), or no summary.
            if unanswered is not None:
                self.loop.messages.append(unanswered)
            return finished
        return await self.loop.run(text if unanswered is not None else CONTINUE_AFTER_OVERFLOW)

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

    async def compact(self, instructions: str = "") -> bool:
        """Replace the older history with a model-written summary, keeping the last turns
        verbatim; ``instructions`` say what the summary must keep. False when it could not.

        The session file keeps the whole history and records the compaction, so resuming
        continues from the summary and the title stays the first prompt.
        """
        if self.running:
            raise WorkInProgress("compaction waits for the current answer")
        if not self.messages:
            self._notice("info", "nothing to compact yet")
            return False
        return await self._compact_guarded(instructions, "on request")

    async def _compact_guarded(self, instructions: str, reason: str) -> bool:
        self._compaction_cancelled = False
        self._compaction = work = asyncio.create_task(self._compact(instructions, reason))
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            self._compaction_cancelled = True
            self._notice("warning", "compaction interrupted: the conversation is unchanged")
            return False
        finally:
            self._compaction = None

    async def _compact(self, instructions: str, reason: str) -> bool:
        window = self.context_window
        before = self.context.tokens
        result = await compact_messages(
            self.provider, self.messages, instructions=instructions,
            budget_chars=window * CHARS_PER_TOKEN // 2 if window else DEFAULT_SUMMARY_INPUT,
        )
        self._count(result.usage)
        if result.usage is not None:
            self.loop.usage = self.loop.usage + result.usage
            if self._store is not None:
                self._store.append_usage(result.usage)
        if result.error:
            self._notice("error", f"could not compact: {result.error}")
            return False
        self.loop.messages[:] = result.messages
        self._last_usage = None
        if self._store is not None:
            self._store.append_compaction(result.messages)
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="compacted", messages=list(result.messages),
                session_id=self.id, title=self.title,
            )
        )
        kept = f", the last {result.kept} kept as they were" if result.kept else ""
        self._notice(
            "info",
            f"── compacted ({reason}) ──\n{result.summarised} earlier messages were summarised"
            f"{kept}: {about(before)} → {about(self.context.tokens)} tokens. The session file "
            f"keeps the whole history; the model now reads this summary:\n\n"
            f"{result.summary}",
        )
        return True

    def clear(self) -> None:
        """Start a fresh conversation; the current one stays saved."""
        self._require_idle("/clear")
        self._close_store()
        self.loop.messages.clear()
        self.loop.usage = Usage.unknown()
        self._last_usage, self._costs = None, {}
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
        info = find_session(self.workspace, session_id)
        if info.id == self.id:
            self._close_store()  # our own lock would keep us out
        store, loaded = SessionStore.resume(info, on_problem=self._store_problem)
        messages = loaded.messages
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
        self._last_usage, self._costs = None, {}
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
        self._closed_store = self._store
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

    def _store_problem(self, problem: str) -> None:
        self._notice("warning", problem)

    def _notice(self, level: str, message: str) -> None:
        self._emit(Notice(turn=self.loop.turn, level=level, message=message))

    def _emit(self, event: LoopEvent) -> None:
        if isinstance(event, TurnFinished):
            self._last_usage, self._counted = event.usage, len(self.messages)
            self._count(event.usage)
        if self.listener is not None:
            self.listener(event)

