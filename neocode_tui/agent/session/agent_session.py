"""One conversation with the agent, whichever front end drives it.

The app, headless runs and ACP all hold an ``AgentSession``: it builds the provider from
the settings, owns the loop, the session file, compaction, the model and approval mode,
resume / clear / list and the usage totals. A front end gives it a ``FrontEnd`` (where
events go, who answers its questions) as it is made, then calls ``prompt``, ``cancel`` and
the commands; it never wires the pieces itself, so a feature added here reaches all of them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neocode_tui.agent.buffers import Buffers
from neocode_tui.agent.commands import COMMANDS
from neocode_tui.agent.context import Budget, Compactor, Headroom, Meter, Uncompact, compaction_words
from neocode_tui.agent.delegation import AgentProviders, Subagents, TaskTool, load_agents
from neocode_tui.agent.extensions import (
    CustomCommands,
    FileIndex,
    PromptCommand,
    PromptExpansion,
    SessionHooks,
    ShellLines,
    commands_and_skills,
    load_hooks,
)
from neocode_tui.agent.goal import Limits, Pursuit, ask_judge
from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.loop_events import (
    CommandsChanged,
    Compaction,
    LoopEvent,
    Notice,
    PromptImages,
    RunFinished,
    SessionTitled,
    StopReason,
    Streamed,
    TranscriptReplaced,
    TurnFinished,
)
from neocode_tui.agent.lsp import LanguageServers, LspTool, load_server_configs
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.mcp.config import Configs
from neocode_tui.agent.permissions import CallGate, Permissions, RunOptions
from neocode_tui.agent.processes import BackgroundJobs, Job, seconds, stopped_words
from neocode_tui.agent.restore import Restorer
from neocode_tui.agent.sandbox import choose_sandbox, recover, recovered_note
from neocode_tui.agent.session.file import SessionFile
from neocode_tui.agent.session.front_end import NOBODY, FrontEnd
from neocode_tui.agent.session.history import ConversationChanges
from neocode_tui.agent.session.side_work import SideWork
from neocode_tui.agent.session.steering import Steers
from neocode_tui.agent.session.title import Titling
from neocode_tui.agent.session.tools import SessionTools
from neocode_tui.agent.store import SessionInfo, SessionStore, list_sessions
from neocode_tui.agent.tool_runner import AroundCalls
from neocode_tui.agent.tools import AskUser, SkillFolders, ToolError, ToolRegistry, default_tools
from neocode_tui.agent.tools.bash import Bash
from neocode_tui.agent.tools.web import WebFetch
from neocode_tui.agent.web import AllowList
from neocode_tui.agent.workspace import Workspace, refuse_too_wide
from neocode_tui.chat import Image, Message, clean_text
from neocode_tui.deferred import lazy
from neocode_tui.errors import WorkInProgress
from neocode_tui.events import ErrorInfo, RateLimits, Usage
from neocode_tui.known_secrets import known_secrets
from neocode_tui.providers import Provider, make_provider
from neocode_tui.settings.model import Settings
from neocode_tui.trust import is_trusted
from neocode_tui.vocabulary import ApprovalMode, Effort, NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.agent.mcp import prompts as mcp_prompts
    from neocode_tui.agent.telemetry import Recorder
    from neocode_tui.settings.load import Profiles
else:
    mcp_prompts = lazy("neocode_tui.agent.mcp.prompts")  # only an MCP prompt needs it

MAX_STOP_RETURNS = 8
"""How often Stop hooks may send the agent back to work for one prompt."""
STOP_HOOK_SAYS = "[NeoCode: a Stop hook did not let you stop yet. It says:]"
"""What comes before a Stop hook's reason, so the model knows the user did not write it."""


class AgentSession(ConversationChanges):
    """A conversation in ``workspace``: prompts in, events out, saved as it goes.

    ``save=False`` keeps it in memory (demos, benchmarks). The session file is created on
    the first prompt, so opening and closing the app leaves no empty sessions behind.
    """

    def __init__(
        self,
        settings: Settings,
        workspace: Path,
        front: FrontEnd = NOBODY,
        *,
        provider: Provider | None = None,
        save: bool = True,
        mcp_configs: Configs | None = None,
        built_in_commands: Iterable[str] = (),
        profiles: Profiles | None = None,
        trusted: bool = False,
        buffers: Buffers | None = None,
        run: RunOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``mcp_configs``: the MCP servers (else those of the config files);
        ``built_in_commands``: the front end's own slash commands, which no custom command
        may take the name of (the core's own never can). ``profiles``: the user's, for
        ``/model NAME``. ``trusted``: the user trusts the folder for this run (``--trust``):
        its MCP servers and hooks start as in a folder they trusted before. ``buffers``: an
        editor's copies of the files, which file tools read and write instead of the disk.
        ``run``: the command line's permission rules and system prompt addition. ``clock``:
        what commands are timed with.

        The parts are made in the order they need each other; one that calls back into the
        session sees it as the narrow host it declares (``LoopHost``, ``GateHost``...)."""
        refuse_too_wide(workspace)
        self.settings, self.profiles, self.front = settings, profiles, front
        self.workspace = workspace.resolve()
        self._recovered = recovered_note(recover(self.workspace))
        """What sandboxed commands left in the workspace unchecked, set aside before
        anything here is loaded (said at the first prompt)."""
        self.secrets = known_secrets(settings)
        """Every secret this conversation knows, the one holder everything scrubs with."""
        self.provider = provider or make_provider(settings, secrets=self.secrets)
        self.telemetry: Recorder | None = None
        run = run or RunOptions()
        room = Workspace(self.workspace, buffers)
        added = [room.add(folder) for folder in run.add_dirs]
        self._guards(room, run, trusted, clock)
        self._extensions(room, mcp_configs, built_in_commands, trusted, profiles)
        self.loop = AgentLoop(
            self.provider, room, sink=self.emit, approval=settings.approval or "ask",
            max_turns=settings.max_turns, tools=self._tools(settings), secrets=self.secrets,
            host=self, gate=self.gate,
            around=AroundCalls(self.hooks, self.restore.before_tool, self.language.after_change),
            clock=clock, images=settings.images,
            append_system_prompt=_addition(added, run.append_system_prompt),
        )
        self.file = SessionFile(self.workspace, self.loop, save=save, on_problem=self._store_problem)
        self._context(clock)
        if settings.telemetry:  # off, not even its module is loaded
            from neocode_tui.agent.telemetry import start_telemetry

            self.telemetry = start_telemetry(settings, lambda: self.id, lambda: self.model,
                                             lambda words: self.notice("warning", words))

    def _guards(self, room: Workspace, run: RunOptions, trusted: bool, clock: Callable[[], float]) -> None:
        """Where and how tools work, and who decides what runs: the sandbox, background
        jobs, hooks, permission rules and the gate, the file index and checkpoints."""
        self.sandbox = replace(choose_sandbox(self.settings.sandbox, self.settings.sandbox_network),
                               added=tuple(room.added))
        """How commands run; said once, at the first prompt, when it could not be had."""
        self._sandbox_told = not self.sandbox.unavailable
        self.jobs = BackgroundJobs(clock, scrub=self.secrets, report=self._job_ended)
        """Background commands: ``bash_output`` and ``kill_bash`` for the model, ``/ps`` and
        Ctrl+B for the user."""
        self.stopped_at_close: list[Job] = []
        """The background commands the end of the session killed (front ends say so)."""
        self.hooks = load_hooks(self.workspace, secrets=self.secrets.keys, trusted=trusted,
                                report=self.notice, host=self)
        self.lifecycle = SessionHooks(self.hooks)
        """SessionStart, SessionEnd, PermissionRequest and Notification."""
        self.permissions = Permissions(room, trusted=trusted, allowed=run.allowed_tools,
                                       disallowed=run.disallowed_tools)
        approver = self.front.approver
        self.gate = CallGate(room, self.secrets, self, permissions=self.permissions,
                             approver=None if approver is None else self.lifecycle.asking(approver))
        """Whether each call may run, the subagents' too: the rules, the mode, the user."""
        self.files = FileIndex(self.workspace)
        """The workspace's files for the ``@`` picker; a front end starts its first scan."""
        self.restore = Restorer(room, self.files, self)
        """Checkpoints, /undo, /rewind's files and /diff."""

    def _extensions(self, room: Workspace, mcp_configs: Configs | None, built_in_commands: Iterable[str],
                    trusted: bool, profiles: Profiles | None) -> None:
        """What the user, the folder and the session add to the built-in tools and prompts:
        subagents, the task list, MCP servers, custom commands, what a prompt expands into."""
        self.agents = load_agents(self.workspace)
        """The subagents ``task`` may run, as the session started (the tool's definition
        stays the same bytes all session)."""
        self.subagents = Subagents(
            self, self.agents, count=self._count_child, stop_hook=self.hooks.subagent_stopped,
            provider_for=AgentProviders(profiles, self.secrets, provider=lambda: self.provider,
                                        notice=self.notice),
            record=partial(self._write, SessionStore.append_subagent),
        )
        self.child_transcripts: dict[str, list[Message]] = {}
        """The subagents' transcripts of the session last resumed, by ``task`` call id."""
        self.own_tools = SessionTools(
            self, scrub=self.secrets, store=partial(self._write, SessionStore.append_todos),
            plan_approver=self.front.plan_review,
            on_ask=lambda: self.lifecycle.notify("NeoCode has a plan for you to review"),
        )
        """The task list and the plan hand-off."""
        # MCP servers: from the config files unless given; started by the front end or
        # the first prompt, their tools offered at each request once connected.
        self.mcp = McpManager(
            self.workspace, configs=mcp_configs, trusted=trusted, secrets=self.secrets,
            report=partial(self.notice, "warning"), inform=partial(self.notice, "info"),
            on_change=lambda: self.emit(CommandsChanged(turn=self.turn)),
            elicitor=self.front.elicitor, open_url=self.front.open_url,
        )
        servers = load_server_configs(self.workspace, trusted=trusted)
        self.language: LanguageServers = LanguageServers(
            self.workspace, servers, self.sandbox, self.secrets.keys, trusted=trusted)
        """The language servers: the ``lsp`` tool's, and each edit's diagnostics."""
        self._built_in_commands = (*COMMANDS, *built_in_commands)
        self.skill_folders = SkillFolders()
        """The skills in use: read_file reads their files, the sandbox shows their folders."""
        self.commands: CustomCommands = self.reload_commands()
        shell = ShellLines(room, self.secrets, self.gate, bash=lambda: self.loop.tools.get("bash"),
                           turn=lambda: self.turn, emit=self.emit)
        self.expansion = PromptExpansion(room, self.secrets, self.mcp, self, self.skill_folders, shell,
                                         trusted=trusted or is_trusted(self.workspace))
        """Commands, MCP prompts and resources, and mentions: what a typed prompt becomes."""

    def _tools(self, settings: Settings) -> ToolRegistry:
        """The built-in tools as this session runs them, ``task``, then the tool sources."""
        bash = Bash(sandbox=self.sandbox, secrets=self.secrets.keys, jobs=self.jobs, skills=self.skill_folders)
        web_fetch = WebFetch(AllowList.parse(settings.web_fetch_allow), self.secrets, self.gate)
        ask = AskUser(self.front.questions, self.secrets,
                      on_ask=lambda: self.lifecycle.notify("NeoCode has a question for you"))
        return default_tools(bash, web_fetch, more=[TaskTool(self.subagents), ask, LspTool(self.language)],
                             sources=[self.own_tools, self.mcp])

    def _context(self, clock: Callable[[], float]) -> None:
        """What the window holds and costs: the meter, the budget, the small model's side
        work, titles, compaction and the goal the session keeps at."""
        self.meter = Meter(self, system_prompt=self.loop.current_system_prompt, tool_specs=self.loop.tools.specs)
        """The context's fill and the session's cost."""
        self.budget = Budget(self.meter, lambda: self.settings.max_budget_usd, self.notice, ask=self.front.ask)
        """``max_budget_usd``, over every request of the session (its subagents' and side
        work too)."""
        self.rate_limits = Headroom()
        """The rate limits the provider's replies reported last."""
        self.side = SideWork(self, self.meter, self.secrets, self.budget)
        """The small model's work (titles, summaries); ``side.provider()`` for subagents."""
        self.titling = Titling(self.side, told=self._titled, save=partial(self._write, SessionStore.append_title))
        self.compaction = Compactor(
            self, self.meter, self.budget, self.side, self.secrets, run=self.loop.run,
            pre_compact=self.hooks.pre_compact, counted=self._count_usage, replaced=self._compacted,
            told=self._told_compaction, notice=self.notice, ended=self._ended,
        )
        self.undo_compaction = Uncompact()
        """The history before the last compaction, for ``/uncompact``."""
        self._extensions_told = False
        self.steers = Steers(lambda text: self.secrets(clean_text(text)))
        """What the user sent to the running turn (``steer``), until a request reads it."""
        self.goal = Pursuit(
            self, lambda condition, evidence: ask_judge(self.side, self.budget, self.meter, self.secrets,
                                                    condition, evidence),
            lambda: Limits(self.settings.goal_max_turns, self.settings.goal_max_minutes), clock)
        """``/goal``: judged after each prompt's run, which goes on until it holds."""

    # -- the loop's host (``LoopHost``) -----------------------------------------------------

    def sent_from(self) -> int:
        return self.meter.sent_from

    async def before_request(self) -> ErrorInfo | None:
        return await self.budget.before_request()

    async def between_turns(self) -> None:
        await self.compaction.between_turns()

    def pending_notes(self) -> list[str]:
        return self.jobs.take_notes()

    def steering(self) -> bool:
        return bool(self.steers.waiting)

    def take_steers(self) -> list[str]:
        return self.steers.take()

    # -- what the front ends show ---------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return self.loop.messages

    @property
    def title(self) -> str:
        """The first prompt's first line, or the small model's title for it."""
        return self.titling.title

    @property
    def turn(self) -> int:
        """The last turn's number (it keeps growing across prompts)."""
        return self.loop.turn

    @property
    def usage(self) -> Usage:
        """Token totals for the whole session, resumed history included."""
        return self.loop.usage

    @property
    def id(self) -> str | None:
        """The saved session's id, once there is a file (from the first prompt on)."""
        return self.file.id

    @property
    def transcript(self) -> Path | None:
        """The session file, once there is one (hooks are told it)."""
        store = self.file.store
        return store.path if store is not None else None

    @property
    def saving(self) -> bool:
        """The conversation is written to its session file (it can be resumed), or was up to
        ``aclose``."""
        return self.file.saving

    @property
    def running(self) -> bool:
        """A prompt or a compaction is in progress."""
        return self.loop.running or self.compaction.running or self.goal.judging

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
        """Takes effect at the next request; the session file keeps it for a resume."""
        if name != self.provider.model:
            self.file.write(lambda store: store.append_model(self.provider.name, name))
        self.provider.model = name

    @property
    def effort(self) -> Effort | None:
        return self.settings.effort

    @effort.setter
    def effort(self, effort: Effort | None) -> None:
        """Takes effect at the next request (the provider reads it as it builds one); the
        session file keeps it for a resume."""
        if effort != self.settings.effort:
            self.file.write(lambda store: store.append_effort(effort))
        self._use_effort(effort)

    def _use_effort(self, effort: Effort | None) -> None:
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
        self.file.write(SessionStore.append_usage, usage)

    def _write(self, what: Callable[..., object], *args: Any) -> None:
        """``what(store, *args)`` on the session file: for the parts made before it."""
        self.file.write(what, *args)

    # -- context and cost (``self.meter``) ---------------------------------------------------

    def saved_sessions(self) -> list[SessionInfo]:
        """This folder's other saved sessions, the most recently used first."""
        return [info for info in list_sessions(self.workspace) if info.id != self.id]

    # -- running --------------------------------------------------------------------------

    def prompt_commands(self) -> list[PromptCommand]:
        """Every command that stands for a prompt: the custom ones, then the MCP servers'."""
        return [*self.commands.listed(), *self.mcp.prompts()]

    def reload_commands(self) -> CustomCommands:
        """Read the command and skill folders again: a file added since shows up."""
        self.commands = commands_and_skills(self.workspace, self._built_in_commands,
                                            self.gate.workspace.hidden)
        return self.commands

    async def prompt(self, text: str, images: Sequence[Image] = ()) -> RunFinished:
        """Run ``text`` (and ``images``, pasted or sent by an editor) to the end; ``cancel()``
        ends it early (``reason="cancelled"``). ``/name args`` of a custom command sends the
        command's prompt. A secret the run knows, pasted by mistake, goes no further: the
        model, the session file and the screen get ``[redacted]``."""
        if self.running:
            raise WorkInProgress("the agent is still working on the last prompt")
        finished = await self._prompt_once(text, images)
        while (more := await self.goal.after(finished)) is not None:  # a goal still to reach
            finished = await self._prompt_once(more, ())
        return finished

    async def _prompt_once(self, text: str, images: Sequence[Image]) -> RunFinished:
        turn = self.turn
        self.goal.turn_starts()
        finished = await self._prompt(self.secrets(clean_text(text)), list(images))
        await self.titling.settle()  # it ran alongside; a short wait, if any
        return await self._stop_hooks(finished, turn)

    async def _stop_hooks(self, finished: RunFinished, turn: int) -> RunFinished:
        """The Stop hooks, when a turn ran and stopped: one that blocks the stop sends the
        agent on with its reason, up to ``MAX_STOP_RETURNS`` times a prompt."""
        returns = 0
        while finished.reason != "cancelled" and self.turn != turn:
            turn, again = self.turn, await self.hooks.stopped(finished.reason, returns > 0)
            if again is None or finished.reason != "done" or returns == MAX_STOP_RETURNS:
                break
            returns += 1
            self.notice("info", self.secrets(f"a Stop hook sends the agent on: {again}"))
            finished = await self.compaction.run(self.secrets(f"{STOP_HOOK_SAYS}\n{again}"), [])
        return finished

    async def _prompt(self, text: str, images: list[Image]) -> RunFinished:
        await self.restore.repository()  # before any command can change what git would find
        self.mcp.start()
        self.ensure_saved()
        self._say_once(text)
        try:
            prompt = await self.expansion.expand(text, images)
        except (ToolError, mcp_prompts.PromptArgumentsMissing) as exc:
            return self._ended("error", ErrorInfo(kind="bad_request", message=self.secrets(str(exc))))
        if mentioned := prompt.images[len(images):]:  # after the ones the front end sent
            self.emit(PromptImages(turn=self.turn, images=mentioned))
        not_sent = await self.compaction.before_prompt(prompt.text)
        if not_sent is not None:
            return not_sent
        started = await self.lifecycle.start_context(self.model)
        submitted = await self.hooks.prompt_submitted(prompt.submitted)
        if submitted.blocked is not None:
            message = f"the prompt was blocked by a UserPromptSubmit hook: {submitted.blocked}"
            return self._ended("error", ErrorInfo(kind="bad_request", message=self.secrets(message)))
        self.file.write(SessionStore.append_prompt, text)
        if self.telemetry is not None:
            self.telemetry.prompted(text)
        try:
            await asyncio.to_thread(self.restore.checkpoints.begin, text, len(self.messages))
        except OSError as exc:
            self.notice("warning", f"could not save a checkpoint: {exc.strerror or exc}")
        sent = self.expansion.with_context(self.restore.take_note() + prompt.text, (
            ("session-start-hook", started), ("user-prompt-submit-hook", submitted.context)))
        return await self.compaction.run(sent, prompt.images, prompt.ran)

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
        finished = RunFinished(turn=self.turn, reason=reason, usage=self.usage, error=error)
        self.emit(finished)
        return finished

    def ensure_saved(self, fork: tuple[str, int] | None = None) -> str | None:
        """Create the session file now, if it is saved at all (made from session
        ``fork[0]`` at its prompt ``fork[1]``, for a rewind); returns its id."""
        if self.file.ensure(fork):
            self.titling.save_again()  # a title given before the file was made
            self.file.write(lambda store: store.append_mode(self.approval))
        return self.id

    def steer(self, text: str) -> str | None:
        """Send ``text`` to the work in progress: the running turn reads it at its next
        model request (a turn about to end goes on to read it); returns it as it is sent,
        None when nothing runs (send it as a prompt). What no request read when the work
        ended stays in ``steers.waiting`` for the front end to give back or send."""
        if not self.running:
            return None
        return self.steers.add(text)

    def cancel(self) -> bool:
        """Stop the prompt or compaction in progress; False when nothing was running."""
        return self.compaction.cancel() or self.loop.cancel() or self.goal.cancel()

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
        await self.language.aclose()
        await self.side.aclose()
        await self.provider.aclose()
        if self.telemetry is not None:  # what is left goes out; off the event loop, it blocks
            await asyncio.to_thread(self.telemetry.shutdown)

    # -- inside ---------------------------------------------------------------------------

    def require_idle(self, what: str) -> None:
        if self.running:
            raise WorkInProgress(f"{what} waits for the current answer (interrupt it first)")

    def _job_ended(self, job: Job) -> None:
        self.notice("info", f"background command {job.id} ({job.summary}) ended: {job.status}, "
                    f"after {seconds(job.elapsed())} · /ps shows its last lines", calls_back=True)

    def _titled(self, title: str) -> None:
        self.emit(SessionTitled(turn=self.turn, session_id=self.id or "", title=title))

    def _store_problem(self, problem: str) -> None:
        self.notice("warning", problem)

    def _told_compaction(self, what: Compaction) -> None:
        self.undo_compaction.told(what)
        shown = what.model_copy(update={"summary": self.secrets(what.summary)})
        self.notice("info", compaction_words(shown), compaction=shown)

    def uncompact(self) -> bool:
        """The history from before the last compaction, back on screen, in the window and in
        the session file, when nothing was said since; False (and why, said) otherwise."""
        self.require_idle("/uncompact")
        before = self.undo_compaction.history(self.messages)
        if isinstance(before, str):
            self.notice("info", before)
            return False
        words = self.undo_compaction.restored_words()
        self.undo_compaction.restored()
        self.loop.messages[:] = before
        self.meter.history_replaced(costs=False)
        self.file.write(SessionStore.append_compaction, before)
        self.emit(TranscriptReplaced(turn=self.turn, reason="resumed", messages=list(before),
                                     session_id=self.id, title=self.title))
        self.notice("info", words)
        return True

    def notice(self, level: NoticeLevel, message: str, *, calls_back: bool = False,
               call_id: str | None = None, compaction: Compaction | None = None) -> None:
        """The session's own word to the user (a compaction, a restart, a hook), through the
        listener; scrubbed, since it may carry a hook's words, a summary, a server's error.
        ``calls_back``: news worth a notification when the user looks elsewhere; ``call_id``:
        the tool call it is about."""
        self.emit(Notice(turn=self.turn, level=level, message=self.secrets(message),
                         calls_back=calls_back, call_id=call_id, compaction=compaction))

    @property
    def stop_key(self) -> str:
        return self.front.stop_key()

    def emit(self, event: LoopEvent) -> None:
        """Tell the front end what happened: the loop's events and the session's own, which
        the parts made before the loop report through here too."""
        self.own_tools.seen(event)
        if self.telemetry is not None:
            self.telemetry.observe(event)
        if isinstance(event, TurnFinished):
            self.meter.turn_finished(event.usage, event.model)
            self.budget.counted(event.usage is not None)
        if isinstance(event, TranscriptReplaced):
            self.loop.history_replaced(event.reason)
        if isinstance(event, Streamed) and isinstance(event.event, RateLimits):
            self.rate_limits.seen(event.event)
        if self.front.listener is not None:
            self.front.listener(event)


def _addition(added: list[Path], appended: str) -> str:
    """What the system prompt says after the built one: the folders added to the
    workspace, then the user's words (``--append-system-prompt``)."""
    folders = ("Besides the workspace you may read and write these folders (use their absolute "
               "paths): " + ", ".join(map(str, added))) if added else ""
    return "\n\n".join(filter(None, [folders, appended]))
