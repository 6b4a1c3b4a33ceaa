"""One conversation with the agent, whichever front end drives it.

The app, headless runs and ACP all hold an ``AgentSession``: it builds the provider from
the settings, owns the loop, the session file, compaction, the model and approval mode,
resume / clear / list and the usage totals. A front end gives it a ``listener`` for
events and an ``approver`` for questions, then calls ``prompt``, ``cancel`` and the
commands; it never wires the pieces itself, so a feature added here reaches all of them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.agent.buffers import Buffers
from neocode_tui.agent.commands import COMMANDS
from neocode_tui.agent.context import Budget, Compactor, Meter
from neocode_tui.agent.delegation import AgentProviders, Subagents, TaskTool, load_agents
from neocode_tui.agent.extensions import (
    CustomCommands,
    FileIndex,
    PromptCommand,
    PromptExpansion,
    SessionHooks,
    load_commands,
    load_hooks,
)
from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.loop_events import (
    CommandsChanged,
    LoopEvent,
    ModeChanged,
    Notice,
    RunFinished,
    SessionTitled,
    StopReason,
    TranscriptReplaced,
    TurnFinished,
)
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.mcp.config import Configs
from neocode_tui.agent.mcp.elicitation import Elicitor
from neocode_tui.agent.mcp.prompts import PromptArgumentsMissing
from neocode_tui.agent.permissions import Approver, Permissions, RunOptions
from neocode_tui.agent.processes import BackgroundJobs, Job, seconds, stopped_words
from neocode_tui.agent.restore import Restored, Restorer, UndoPreview
from neocode_tui.agent.sandbox import choose_sandbox, recover, recovered_note
from neocode_tui.agent.session.file import SessionFile
from neocode_tui.agent.session.side_work import SideWork
from neocode_tui.agent.session.title import Titling
from neocode_tui.agent.session.tools import SessionTools
from neocode_tui.agent.store import SessionInfo, find_session, list_sessions
from neocode_tui.agent.tools import ToolError, ToolRegistry
from neocode_tui.agent.tools.bash import Bash
from neocode_tui.agent.tools.web import configure_web_fetch
from neocode_tui.agent.workspace import refuse_too_wide
from neocode_tui.chat import Image, Message, clean_text
from neocode_tui.errors import WorkInProgress
from neocode_tui.events import ErrorInfo, Usage
from neocode_tui.known_secrets import known_secrets
from neocode_tui.providers import Provider, make_provider
from neocode_tui.settings.model import Settings
from neocode_tui.vocabulary import ApprovalMode, Effort, NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.settings.load import Profiles

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
        mcp_configs: Configs | None = None,
        built_in_commands: Iterable[str] = (),
        profiles: Profiles | None = None,
        trusted: bool = False,
        buffers: Buffers | None = None,
        run: RunOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        elicitor: Elicitor | None = None,
    ) -> None:
        """``mcp_configs``: the MCP servers (else those of the config files);
        ``built_in_commands``: the front end's own slash commands, which no custom command
        may take the name of (the core's own never can). ``profiles``: the user's, for
        ``/model NAME``. ``trusted``: the user trusts the folder for this run (``--trust``):
        its MCP servers and hooks start as in a folder they trusted before. ``buffers``: an
        editor's copies of the files, which file tools read and write instead of the disk.
        ``run``: the command line's permission rules and system prompt addition. ``clock``:
        what commands are timed with. ``elicitor``: asks the user an MCP server's question
        (without one, it is declined)."""
        refuse_too_wide(workspace)
        self.settings = settings
        self.profiles = profiles
        self.workspace = workspace.resolve()
        self._recovered = recovered_note(recover(self.workspace))
        """What sandboxed commands left in the workspace unchecked, set aside before
        anything here is loaded (said at the first prompt)."""
        self.secrets = known_secrets(settings)
        """Every secret this conversation knows, the one holder everything scrubs with."""
        self.provider = provider or make_provider(settings, secrets=self.secrets)
        self.listener = listener
        self.loop = AgentLoop(
            self.provider,
            self.workspace,
            sink=self._emit,
            approver=approver,
            approval=settings.approval or "ask",
            max_turns=settings.max_turns,
            tools=tools,
            secrets=self.secrets,
            buffers=buffers,
        )
        self.file = SessionFile(self.workspace, self.loop, lambda: self.provider, save=save,
                                on_problem=self._store_problem)
        run = run or RunOptions()
        self._delegation(profiles)
        self._work(settings, run, clock)
        self._extensions(mcp_configs, built_in_commands, trusted, elicitor)
        self._policy(settings, run, trusted, approver)

    def _delegation(self, profiles: Profiles | None) -> None:
        """Subagents, the meter, the small model's side work, the budget and titles."""
        self.agents = load_agents(self.workspace)
        """The subagents ``task`` may run, as the session started (the tool's definition
        stays the same bytes all session)."""
        self.meter = Meter(
            settings=lambda: self.settings, model=lambda: self.model, messages=lambda: self.messages,
            system_prompt=self.loop.current_system_prompt, tool_specs=self.loop.tools.specs,
        )
        """The context's fill and the session's cost."""
        self.loop.sent_from = lambda: self.meter.sent_from
        self.budget = Budget(self.meter, lambda: self.settings.max_budget_usd, self.notice)
        """``max_budget_usd``, over every request of the session (its subagents' and side
        work too): a front end that can ask sets ``budget.ask``."""
        self.loop.before_request = self.budget.before_request
        self.side = SideWork(lambda: self.settings, lambda: self.provider, self.meter, self.secrets,
                             self.budget)
        """The small model's work (titles, summaries); ``side.provider()`` for subagents."""
        self.subagents = Subagents(
            self.loop, self.agents, count=self._count_child,
            provider_for=AgentProviders(profiles, self.secrets, model=lambda: self.model, notice=self.notice),
            stop_hook=lambda agent, active: self.hooks.subagent_stopped(agent, active),
            record=self._record_child, budget=self.budget,
        )
        self.child_transcripts: dict[str, list[Message]] = {}
        """The subagents' transcripts of the session last resumed, by ``task`` call id."""
        if self.loop.tools.get("task") is None:
            self.loop.tools.add(TaskTool(self.subagents))
        self.titling = Titling(self.side, told=lambda title: self._emit(
            SessionTitled(turn=self.loop.turn, session_id=self.id or "", title=title)),
            save=lambda title, by: self.file.write(lambda store: store.append_title(title, by)))

    def _work(self, settings: Settings, run: RunOptions, clock: Callable[[], float]) -> None:
        """Where and how tools work: added folders, the sandbox, background jobs, web pages,
        the file index, checkpoints and the session's own tools."""
        added = [self.loop.workspace.add(folder) for folder in run.add_dirs]
        self.sandbox = replace(choose_sandbox(settings.sandbox, settings.sandbox_network),
                               added=tuple(self.loop.workspace.added))
        """How commands run; said once, at the first prompt, when it could not be had."""
        bash = self.loop.tools.get("bash")
        if isinstance(bash, Bash):
            bash.sandbox, bash.secrets = self.sandbox, self.secrets.keys
        self.jobs = bash.jobs if isinstance(bash, Bash) else BackgroundJobs()
        """Background commands: ``bash_output`` and ``kill_bash`` for the model, ``/ps`` and
        Ctrl+B for the user."""
        self.jobs.scrub, self.jobs.report = self.secrets, self._job_ended
        self.jobs.clock = self.loop.runner.clock = clock
        self.loop.pending_notes = self.jobs.take_notes
        self.stopped_at_close: list[Job] = []
        """The background commands the end of the session killed (front ends say so)."""
        self._sandbox_told = not self.sandbox.unavailable
        configure_web_fetch(self.loop.tools.get("web_fetch"), settings, self.secrets, self.loop.gate)
        self.files = FileIndex(self.workspace)
        """The workspace's files for the ``@`` picker; a front end starts its first scan."""
        self.restore = Restorer(
            self.loop.workspace, self.files, session_id=lambda: self.id, messages=lambda: self.messages,
            require_idle=self.require_idle, notice=self.notice,
        )
        """Checkpoints, /undo, /rewind's files and /diff."""
        self.loop.runner.before_tool = self.restore.before_tool
        self.own_tools = SessionTools(
            mode=lambda: self.approval, set_mode=lambda mode: setattr(self, "approval", mode),
            emit=self._emit, turn=lambda: self.loop.turn, scrub=self.secrets,
            store=lambda todos: self.file.write(lambda store: store.append_todos(todos)),
        )
        """The task list and the plan hand-off (a front end sets ``plan_approver``)."""
        self.loop.tools.add_source(self.own_tools)
        self.loop.append_system_prompt = "\n\n".join(filter(None, [
            "Besides the workspace you may read and write these folders (use their absolute "
            "paths): " + ", ".join(map(str, added)) if added else "", run.append_system_prompt]))

    def _extensions(self, mcp_configs: Configs | None, built_in_commands: Iterable[str], trusted: bool,
                    elicitor: Elicitor | None) -> None:
        """What the user and the folder add: MCP servers, custom commands, hooks, and what a
        typed prompt expands into."""
        # MCP servers: from the config files unless given; started by the front end or
        # the first prompt, their tools offered at each request once connected.
        self.mcp = McpManager(self.workspace, configs=mcp_configs, trusted=trusted, secrets=self.secrets)
        self.loop.tools.add_source(self.mcp)
        # The user's extensions: custom slash commands and hooks.
        self._built_in_commands = (*COMMANDS, *built_in_commands)
        self.commands: CustomCommands = load_commands(self.workspace, self._built_in_commands)
        self.hooks = load_hooks(self.workspace, secrets=self.secrets.keys, trusted=trusted)
        self.hooks.report = self.notice
        self.mcp.report = lambda message: self.notice("warning", message)
        self.mcp.inform = lambda message: self.notice("info", message)
        self.mcp.elicitor = elicitor
        self.mcp.on_change = lambda: self._emit(CommandsChanged(turn=self.loop.turn))
        self.expansion = PromptExpansion(
            self.loop.workspace, self.secrets, self.mcp, commands=lambda: self.commands,
            images=lambda: self.loop.images, notice=self.notice,
        )
        """Commands, MCP prompts and resources, and mentions: what a typed prompt becomes."""
        self.hooks.session_id = lambda: self.id
        self.loop.runner.hooks = self.hooks

    def _policy(self, settings: Settings, run: RunOptions, trusted: bool, approver: Approver | None) -> None:
        """Who decides what runs, and when the history is compacted."""
        self.permissions = Permissions(
            self.loop.workspace, trusted=trusted, allowed=run.allowed_tools,
            disallowed=run.disallowed_tools,
        )
        self.loop.gate.permissions = self.permissions
        self.lifecycle = SessionHooks(self.hooks)
        """SessionStart, SessionEnd, PermissionRequest and Notification."""
        self.compaction = Compactor(
            self.meter, self.budget, self.side, self.secrets,
            threshold=lambda: self.settings.compact_threshold, messages=lambda: self.loop.messages,
            run=self.loop.run, pre_compact=self.hooks.pre_compact, counted=self._count_usage,
            replaced=self._compacted, notice=self.notice, ended=self._ended,
        )
        self.loop.between_turns = self.compaction.between_turns
        if approver is not None:
            self.loop.gate.approver = self.lifecycle.asking(approver)
        self.own_tools.on_ask = lambda: self.lifecycle.notify("NeoCode has a plan for you to review")
        self.loop.images = settings.images
        self._extensions_told = False

    # -- what the front ends show ---------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return self.loop.messages

    @property
    def title(self) -> str:
        """The first prompt's first line, or the small model's title for it."""
        return self.titling.title

    @property
    def usage(self) -> Usage:
        """Token totals for the whole session, resumed history included."""
        return self.loop.usage

    @property
    def id(self) -> str | None:
        """The saved session's id, once there is a file (from the first prompt on)."""
        return self.file.id

    @property
    def saving(self) -> bool:
        """The conversation is written to its session file (it can be resumed), or was up to
        ``aclose``."""
        return self.file.saving

    @property
    def running(self) -> bool:
        """A prompt or a compaction is in progress."""
        return self.loop.running or self.compaction.running

    @property
    def approval(self) -> ApprovalMode:
        return self.loop.approval

    @approval.setter
    def approval(self, mode: ApprovalMode) -> None:
        """Takes effect at the next tool call, even in the middle of a run; the session file
        keeps it, so the session resumes in it."""
        if mode != self.loop.approval:
            self.file.write(lambda store: store.append_mode(mode))
        self.loop.approval = mode

    @property
    def model(self) -> str:
        return self.provider.model

    @model.setter
    def model(self, name: str) -> None:
        """Takes effect at the next request."""
        self.provider.model = name

    @property
    def effort(self) -> Effort | None:
        return self.settings.effort

    @effort.setter
    def effort(self, effort: Effort | None) -> None:
        """Takes effect at the next request (the provider reads it as it builds one)."""
        self.settings = self.settings.model_copy(update={"effort": effort})
        if hasattr(self.provider, "effort"):
            self.provider.effort = effort

    # -- switching provider ---------------------------------------------------------------

    async def use_settings(self, settings: Settings) -> None:
        """Talk to the provider and model ``settings`` name from the next request on (a
        profile picked with ``/model NAME``). The conversation, approval mode and sandbox
        stay; keys the new settings bring are scrubbed from then on as well (every
        profile's keys in the user's file already were)."""
        self.require_idle("/model")
        self.secrets.add(keys=settings.secrets)
        old, self.provider = self.provider, make_provider(settings, secrets=self.secrets)
        self.loop.provider, self.settings = self.provider, settings
        self.loop.images = settings.images
        await old.aclose()

    # -- subagents (``self.subagents``) ----------------------------------------------------

    def _count_child(self, usage: Usage, model: str) -> None:
        """A subagent's request: in the session's totals and cost, and its file."""
        self.meter.count(usage, model)
        self._count_usage(usage)

    def _count_usage(self, usage: Usage) -> None:
        """A request outside the loop's turns, in the session's totals and its file."""
        self.loop.usage = self.loop.usage + usage
        self.file.write(lambda store: store.append_usage(usage))

    def _record_child(self, call_id: str, agent: str, messages: list[Message]) -> None:
        self.file.write(lambda store: store.append_subagent(call_id, agent, messages))

    # -- context and cost (``self.meter``) ---------------------------------------------------

    def saved_sessions(self) -> list[SessionInfo]:
        """This folder's other saved sessions, the most recently used first."""
        return [info for info in list_sessions(self.workspace) if info.id != self.id]

    # -- running --------------------------------------------------------------------------

    def prompt_commands(self) -> list[PromptCommand]:
        """Every command that stands for a prompt: the custom ones, then the MCP servers'."""
        return [*self.commands.commands.values(), *self.mcp.prompts()]

    def reload_commands(self) -> CustomCommands:
        """Read the command folders again: a file added since shows up."""
        self.commands = load_commands(self.workspace, self._built_in_commands)
        return self.commands

    async def prompt(self, text: str, images: Sequence[Image] = ()) -> RunFinished:
        """Run ``text`` (and ``images``, pasted or sent by an editor) to the end; ``cancel()``
        ends it early (``reason="cancelled"``). ``/name args`` of a custom command sends the
        command's prompt."""
        if self.running:
            raise WorkInProgress("the agent is still working on the last prompt")
        turn = self.loop.turn
        finished = await self._prompt(clean_text(text), list(images))
        await self.titling.settle()  # it ran alongside; a short wait, if any
        if finished.reason != "cancelled" and self.loop.turn != turn:  # a turn ran and stopped
            await self.hooks.stopped(finished.reason)
        return finished

    async def _prompt(self, text: str, images: list[Image]) -> RunFinished:
        await self.restore.repository()  # before any command can change what git would find
        self.mcp.start()
        self.ensure_saved()
        self._say_once(text)
        try:
            prompt = await self.expansion.expand(text, images)
        except (ToolError, PromptArgumentsMissing) as exc:
            return self._ended("error", ErrorInfo(kind="bad_request", message=self.secrets(str(exc))))
        not_sent = await self.compaction.before_prompt(prompt.text)
        if not_sent is not None:
            return not_sent
        started = await self.lifecycle.start_context(self.model)
        submitted = await self.hooks.prompt_submitted(prompt.submitted)
        if submitted.blocked is not None:
            message = f"the prompt was blocked by a UserPromptSubmit hook: {submitted.blocked}"
            return self._ended("error", ErrorInfo(kind="bad_request", message=self.secrets(message)))
        self.file.write(lambda store: store.append_prompt(text))
        try:
            await asyncio.to_thread(self.restore.checkpoints.begin, text, len(self.messages))
        except OSError as exc:
            self.notice("warning", f"could not save a checkpoint: {exc.strerror or exc}")
        sent = self.expansion.with_context(self.restore.take_note() + prompt.text, (
            ("session-start-hook", started), ("user-prompt-submit-hook", submitted.context)))
        return await self.compaction.run(sent, prompt.images)

    def _say_once(self, prompt: str) -> None:
        """What the first prompt brings: the sandbox's absence, the title, the problems of
        the commands and hooks."""
        if not self._sandbox_told:
            self._sandbox_told = True
            self.notice(
                "warning",
                f"no sandbox: {self.sandbox.unavailable}; every command asks for approval "
                "(install bubblewrap, or choose --sandbox off to silence this)",
            )
        self.titling.first_prompt(prompt, tell=self.file.store is not None)
        if not self._extensions_told:
            self._extensions_told = True
            recovered = [self._recovered] if self._recovered else []
            for problem in [*recovered, *self.commands.problems, *self.hooks.notices(),
                            *self.permissions.notices(), *self.agents.problems]:
                self.notice("warning", problem)

    def _ended(self, reason: StopReason, error: ErrorInfo | None = None) -> RunFinished:
        finished = RunFinished(turn=self.loop.turn, reason=reason, usage=self.usage, error=error)
        self._emit(finished)
        return finished

    def ensure_saved(self, fork: tuple[str, int] | None = None) -> str | None:
        """Create the session file now, if it is saved at all (made from session
        ``fork[0]`` at its prompt ``fork[1]``, for a rewind); returns its id."""
        if self.file.ensure(fork):
            self.titling.save_again()  # a title given before the file was made
            self.file.write(lambda store: store.append_mode(self.approval))
        return self.id

    def cancel(self) -> bool:
        """Stop the prompt or compaction in progress; False when nothing was running."""
        return self.compaction.cancel() or self.loop.cancel()

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
        self.loop.messages[:] = messages
        self.lifecycle.restart("compact")
        self.meter.history_replaced(costs=False)
        self.file.write(lambda store: store.append_compaction(messages))
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="compacted", messages=list(messages),
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
        self._emit(TranscriptReplaced(turn=self.loop.turn, reason="cleared"))
        self.own_tools.set_todos([], save=False)
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
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="resumed", messages=list(messages),
                session_id=loaded.info.id, title=self.title, subagents=loaded.subagents,
            )
        )
        self.own_tools.set_todos(loaded.todos, save=False)
        self._resume_mode(loaded.mode)
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
        self._emit(ModeChanged(turn=self.loop.turn, mode=saved))

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
        self._emit(
            TranscriptReplaced(
                turn=self.loop.turn, reason="resumed", messages=list(kept), session_id=self.id,
                title=self.title,
            )
        )
        return checkpoint.prompt, result

    async def aclose(self, reason: str = "other") -> None:
        """Stop whatever runs (the pending call is recorded as interrupted), run the SessionEnd
        hooks (``reason``: ``prompt_input_exit`` when the user quit), close the file."""
        await self.files.aclose()
        await asyncio.to_thread(self.restore.forget_unsaved)
        await self.compaction.aclose()
        await self.loop.stop()
        await self.titling.aclose()
        self.stopped_at_close = await self.jobs.aclose()
        if self.stopped_at_close:
            self.notice("warning", stopped_words(self.stopped_at_close) + " as the session ended")
        await self.lifecycle.end(reason)
        self.file.end()
        await self.mcp.aclose()
        await self.side.aclose()
        await self.provider.aclose()

    # -- inside ---------------------------------------------------------------------------

    def require_idle(self, what: str) -> None:
        if self.running:
            raise WorkInProgress(f"{what} waits for the current answer (interrupt it first)")

    def _job_ended(self, job: Job) -> None:
        self.notice("info", f"background command {job.id} ({job.summary}) ended: {job.status}, "
                    f"after {seconds(job.elapsed())}")

    def _store_problem(self, problem: str) -> None:
        self.notice("warning", problem)

    def notice(self, level: NoticeLevel, message: str) -> None:
        """The session's own word to the user (a compaction, a restart, a hook), through the
        listener; scrubbed, since it may carry a hook's words, a summary, a server's error."""
        self._emit(Notice(turn=self.loop.turn, level=level, message=self.secrets(message)))

    def _emit(self, event: LoopEvent) -> None:
        self.own_tools.seen(event)
        if isinstance(event, TurnFinished):
            self.meter.turn_finished(event.usage)
            self.budget.counted(event.usage is not None)
        if isinstance(event, TranscriptReplaced):
            self.loop.history_replaced(event.reason)
        if self.listener is not None:
            self.listener(event)


