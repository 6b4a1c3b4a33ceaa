"""The built-in slash commands, defined once for every front end.

Each command has its name, a help line, the choices its argument takes (for completion) and
a handler on the session. A handler returns what a front end must present, never draws it:
a report to show, a question with a preview to ask before anything is written, a list to
pick from, a diff. The app, ``neocode -p "/cost"`` and ACP editors all run the same table
through ``run_command``, so a command added here reaches the three with no code of theirs.
Commands about the screen itself (``/theme``, ``/quit``, ``/help``) belong to the app.

The table imports nothing heavy: the app builds its completion from it before the first
frame, and the reports' modules load when a report is asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from neocode_tui.agent.commands.outcomes import (
    Choice,
    Confirm,
    Outcome,
    PickPrompt,
    PickSession,
    Report,
    ShowDiff,
    ShowJobs,
)
from neocode_tui.errors import NeoCodeError
from neocode_tui.vocabulary import APPROVAL_MODES, EFFORTS, NoticeLevel, mode_notice

if TYPE_CHECKING:
    from neocode_tui.agent.commands.host import CommandHost

Handler = Callable[["CommandHost", str], Awaitable[Outcome]]


def _no_choices(_: CommandHost) -> list[str]:
    return []


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Handler
    argument: str = ""
    """The argument's placeholder in help ("NAME"); empty when the command takes none."""
    choices: Callable[[CommandHost], list[str]] = _no_choices
    """What the argument may be, for completion (session ids, profiles, modes)."""
    idle: bool = False
    """Waits for the current answer: it changes the conversation or the files."""
    long: bool = False
    """Talks to the model: a front end runs it as work that Esc / cancel interrupts."""
    long_with: Callable[[str], bool] | None = None
    """Talks to the model with some arguments only (``/goal CONDITION``, not ``/goal``)."""

    def talks(self, argument: str) -> bool:
        """Whether ``/name argument`` is long work (see ``long``)."""
        return self.long if self.long_with is None else self.long_with(argument)

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.argument}".rstrip()


COMMANDS: dict[str, Command] = {}
"""Every built-in command by name, in the order help lists them."""


def _command(name: str, help: str, argument: str = "", *,
             choices: Callable[[CommandHost], list[str]] = _no_choices,
             idle: bool = False, long: bool = False,
             long_with: Callable[[str], bool] | None = None) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = Command(name, help, handler, argument, choices, idle, long, long_with)
        return handler
    return register


def parse_command(text: str) -> tuple[str, str] | None:
    """``"/model gpt-4o"`` -> ``("model", "gpt-4o")``; None when the text is not a command line."""
    stripped = text.strip()
    if not stripped.startswith("/") or "\n" in stripped:
        return None
    name, _, argument = stripped[1:].partition(" ")
    return name.lower(), argument.strip()


async def run_command(session: CommandHost, name: str, argument: str = "") -> Outcome:
    """Run built-in command ``name``; what went wrong is a warning report, never a raise."""
    command = COMMANDS[name]

    async def run() -> Outcome:
        if command.idle:
            session.require_idle(f"/{name}")
        return await command.run(session, argument)

    return await _reported(run(), name)


async def respond(outcome: Confirm | PickSession | PickPrompt, choice: str | None) -> Outcome:
    """Act on the user's answer to a question or a list (None: they cancelled)."""
    return await _reported(outcome.answer(choice), outcome.command)


async def _reported(work: Awaitable[Outcome], name: str) -> Outcome:
    try:
        return await work
    except NeoCodeError as exc:
        return Report(str(exc), "warning")
    except OSError as exc:
        return Report(f"/{name} failed: {exc.strerror or exc}", "error")


# -- the conversation -------------------------------------------------------------------


@_command("clear", "start a fresh conversation", idle=True)
async def _clear(session: CommandHost, _: str) -> Outcome:
    running = session.clear()
    kept = (f"; {len(running)} background command{'s' * (len(running) != 1)} keep{'s' * (len(running) == 1)} "
            "running (/ps lists them, /ps kill ID stops one)") if running else ""
    return Report("a fresh conversation: the model no longer sees the earlier messages "
                  f"(the old session stays saved; /resume brings it back){kept}")


def _profiles(session: CommandHost) -> list[str]:
    return list(session.profiles.names) if session.profiles is not None else []


@_command("model", "switch the model (no name: show the current one)", "NAME", choices=_profiles)
async def _model(session: CommandHost, argument: str) -> Outcome:
    profiles = _profiles(session)
    if not argument:
        listed = f"; profiles: {', '.join(profiles)}" if profiles else ""
        return Report(f"model: {session.model} ({session.provider.name}){listed}")
    if session.profiles is not None and argument in profiles:
        session.require_idle("switching profiles")
        settings = session.profiles.load(argument)
        await session.use_settings(settings)
        from neocode_tui.redact import redact_url

        where = f" · {redact_url(settings.resolved_base_url)}" if settings.resolved_base_url else ""
        return Report(f"profile {argument}: {settings.resolved_provider} · {settings.resolved_model}{where}")
    session.model = argument
    return Report(f"model switched to {argument}")


def _efforts(_: CommandHost) -> list[str]:
    return [*EFFORTS, "off"]


@_command("effort", "how hard the model thinks: low, medium, high, off", "LEVEL", choices=_efforts)
async def _effort(session: CommandHost, argument: str) -> Outcome:
    from neocode_tui.providers.effort import effort_note

    if argument in ("off", *EFFORTS):
        session.effort = next((effort for effort in EFFORTS if effort == argument), None)
        return Report(effort_note(session.provider, session.effort))
    shown = effort_note(session.provider, session.effort)
    return Report(f"{shown}; choose one of: {', '.join(_efforts(session))}",
                  "warning" if argument else "info")


def _modes(_: CommandHost) -> list[str]:
    return list(APPROVAL_MODES)


@_command("approval", "what needs your yes: ask, auto-edit, full-auto, plan", "MODE", choices=_modes)
async def _approval(session: CommandHost, argument: str) -> Outcome:
    for mode in APPROVAL_MODES:
        if argument == mode:
            session.approval = mode
            return Report(mode_notice(mode))
    return Report(f"approval is {session.approval}; choose one of: {', '.join(APPROVAL_MODES)}",
                  "warning" if argument else "info")


@_command("sessions", "list the saved sessions of this folder")
async def _sessions(session: CommandHost, _: str) -> Outcome:
    from neocode_tui.agent.store import listing_text

    sessions = session.saved_sessions()
    if not sessions:
        return Report("no saved sessions for this folder yet")
    return Report("\n".join([*listing_text(sessions), "", "/resume ID loads one"]))


def _session_ids(session: CommandHost) -> list[str]:
    return [info.id for info in session.saved_sessions()]


@_command("resume", "load a saved session (no ID: pick one from a list)", "ID",
          choices=_session_ids, idle=True)
async def _resume(session: CommandHost, argument: str) -> Outcome:
    async def resume(session_id: str | None) -> Outcome:
        if session_id is None:
            return Report("")
        info = session.resume(session_id)
        return Report(f"resumed session {info.id}: {info.title}")

    if argument:
        return await resume(argument)
    sessions = session.saved_sessions()
    if not sessions:
        return Report("no saved sessions for this folder yet")
    return PickSession(sessions, resume)


@_command("rename", "name this session (no title: show its name)", "TITLE")
async def _rename(session: CommandHost, argument: str) -> Outcome:
    if not argument:
        named = f'this session is "{session.title}"' if session.title else "this session has no title yet"
        return Report(f"{named}; /rename NEW TITLE renames it")
    title = session.titling.rename(argument)
    if session.saving:
        return Report(f'renamed this session "{title}"')
    if not session.file.save:
        return Report(f'this session is "{title}" (it is not saved)')
    return Report(f'this session is "{title}"; the name is saved with its first prompt')


def _sets_goal(argument: str) -> bool:
    from neocode_tui.agent.commands.goal_command import sets_goal

    return sets_goal(argument)


@_command("goal", "keep working turn after turn until CONDITION holds (judged after each turn); "
          "no condition: show the goal; clear drops it", "[CONDITION|clear]",
          choices=lambda _: ["clear"], long_with=_sets_goal)
async def _goal(session: CommandHost, argument: str) -> Outcome:
    from neocode_tui.agent.commands.goal_command import goal

    return await goal(session, argument)


# -- the context ------------------------------------------------------------------------


@_command("compact", "summarise the older history to free the context (FOCUS: what to keep)",
          "[FOCUS]", idle=True, long=True)
async def _compact(session: CommandHost, argument: str) -> Outcome:
    if not session.messages:
        return Report("nothing to compact yet")
    session.notice("info", "compacting: asking the model for a summary…")
    await session.compact(argument)
    return Report("")  # the session's own notices say how it went


@_command("uncompact", "bring back the history from before the last compaction, if nothing was said since",
          idle=True)
async def _uncompact(session: CommandHost, _: str) -> Outcome:
    session.uncompact()
    return Report("")  # the session's notice says what came back, or why nothing did


@_command("context", "what fills the model's context window")
async def _context(session: CommandHost, _: str) -> Outcome:
    from neocode_tui.agent.commands.reports import context_report

    return Report(context_report(session))


@_command("cost", "the session's tokens and cost per model")
async def _cost(session: CommandHost, _: str) -> Outcome:
    from neocode_tui.agent.commands.reports import cost_report

    return Report(cost_report(session))


@_command("export", "write the conversation to a Markdown file (never over an existing one)", "[FILE]")
async def _export(session: CommandHost, argument: str) -> Outcome:
    from neocode_tui.agent.commands.export import export

    return await export(session, argument)


# -- taking back what the agent did -----------------------------------------------------


@_command("undo", "put back the files the last prompt changed (shows the diff first)", idle=True)
async def _undo(session: CommandHost, _: str) -> Outcome:
    preview = await session.restore.undo_preview()
    if preview is None:
        return Report("nothing to undo: the file tools changed no files in this conversation")

    async def answer(choice: str | None) -> Outcome:
        if choice != "files":
            return Report("")
        result = await session.restore.undo(preview)
        done = ", ".join(result.paths) or "nothing (the files were already as they were)"
        return _with_refused(f"undone: {done}", result.refused)

    return Confirm("undo", f"Undo the file changes of {_first_line(preview.checkpoint.prompt)!r}?",
                   preview, (Choice("files", "write these files back"),), answer)


def _prompt_numbers(session: CommandHost) -> list[str]:
    return [str(point.number) for point in session.restore.rewind_points()]


@_command("rewind", "go back to an earlier prompt, with or without its file changes", "[N]",
          choices=_prompt_numbers, idle=True)
async def _rewind(session: CommandHost, argument: str) -> Outcome:
    points = session.restore.rewind_points()
    if not points:
        return Report("nothing to rewind to yet")

    async def picked(number: str | None) -> Outcome:
        if number is None:
            return Report("")
        if not number.isdigit():
            return Report(f"/rewind takes a prompt's number: {', '.join(map(str, (p.number for p in points)))}",
                          "warning")
        return await _rewind_to(session, int(number))

    if argument:
        return await picked(argument)
    return PickPrompt(points, await session.restore.git_status(), picked)


async def _rewind_to(session: CommandHost, number: int) -> Outcome:
    preview = await session.restore.rewind_preview(number)

    async def answer(choice: str | None) -> Outcome:
        if choice not in ("conversation", "both"):
            return Report("")
        prompt, result = await session.rewind(preview, files=choice == "both")
        files = "and the files " if choice == "both" else "(the files as they are) "
        said = f"rewound the conversation {files}to before this prompt; it is in the input to edit"
        return _with_refused(said, result.refused, prefill=prompt)

    choices = [Choice("conversation", "rewind the conversation only")]
    if preview.restores:
        choices.append(Choice("both", "rewind the conversation and the files"))
    return Confirm("rewind", f"Rewind to before {_first_line(preview.checkpoint.prompt)!r}?",
                   preview, tuple(choices), answer)


def _with_refused(text: str, refused: list[str], prefill: str = "") -> Report:
    """What was done, then each file left as it was and why (a warning, then)."""
    return Report("\n".join([text, *refused]), "warning" if refused else "info", prefill)


@_command("diff", "what changed in the workspace this session (git diff in a repository)")
async def _diff(session: CommandHost, _: str) -> Outcome:
    diff = await session.restore.diff()
    if not diff.text.strip():
        where = "in the repository" if diff.source == "git" else "by the file tools in this conversation"
        return Report(f"no changes {where}")
    title = ("git diff HEAD: everything not committed, commands' changes included" if diff.source == "git"
             else "What the file tools changed in this conversation (bash changes are not tracked)")
    return ShowDiff(title, diff.text)


@_command("worktree", "the git worktree this session works in (neocode --worktree) and what it holds")
async def _worktree(session: CommandHost, _: str) -> Outcome:
    from neocode_tui.agent.worktrees import worktree_report

    return Report(await worktree_report(session.workspace))


# -- tool servers -----------------------------------------------------------------------


def _restartable(session: CommandHost) -> list[str]:
    return [f"{verb} {server}" for verb in ("restart", "login", "logout") for server in session.mcp.names]


@_command("mcp", "the MCP servers, their state and tools; restart NAME reconnects one, "
          "login NAME / logout NAME signs in to one or forgets it", "[restart|login|logout NAME]",
          choices=_restartable)
async def _mcp(session: CommandHost, argument: str) -> Outcome:
    from neocode_tui.agent.mcp import status_text

    verb, _, name = argument.partition(" ")
    mcp = session.mcp
    name = name.strip()
    if not verb:
        return Report(status_text(mcp.status(), mcp.problems))
    if verb not in ("restart", "login", "logout") or not name:
        return Report("usage: /mcp, /mcp restart NAME, /mcp login NAME, /mcp logout NAME", "warning")
    if verb == "restart":
        session.notice("info", f"restarting MCP server {name}…")
        status = await mcp.restart(name)
    elif verb == "login":
        status = await mcp.login(name)
        if status.state == "connecting":
            return Report(f"waiting for the sign-in to {name} in the browser")
    else:
        status = await mcp.logout(name)
        session.notice("info", f"forgot the sign-in to the MCP server {name}")
    return Report(status_text([status], []), "info" if status.state == "connected" else "warning")


# -- permission rules -------------------------------------------------------------------


def _rule_numbers(session: CommandHost) -> list[str]:
    from neocode_tui.agent.commands.permission_words import listed

    return [f"rm {number}" for number in range(1, len(listed(session)) + 1)]


@_command("permissions", "the allow, ask and deny rules, where each is from, and this session's yeses; "
          "rm N or rm TEXT takes one out", "[rm N|TEXT]", choices=_rule_numbers)
async def _permissions(session: CommandHost, argument: str) -> Outcome:
    from neocode_tui.agent.commands import permission_words

    verb, _, wanted = argument.partition(" ")
    if verb in ("rm", "remove") and wanted.strip():
        return await permission_words.remove(session, wanted.strip())
    if verb:
        return Report(permission_words.USAGE, "warning")
    return permission_words.listing(session)


@_command("agents", "the subagents the task tool can run: where each comes from, its tools")
async def _agents(session: CommandHost, _: str) -> Outcome:
    from neocode_tui.agent.delegation import agents_text

    return Report(agents_text(session.agents))


# -- background commands ----------------------------------------------------------------


def _running_jobs(session: CommandHost) -> list[str]:
    return [f"kill {job.id}" for job in session.jobs.running]


@_command("ps", "background commands, live: state, time, latest lines; kill ID stops one",
          "[kill ID]", choices=_running_jobs)
async def _ps(session: CommandHost, argument: str) -> Outcome:
    verb, _, job_id = argument.partition(" ")
    if not verb:
        return ShowJobs(session.jobs) if session.jobs.jobs else Report(session.jobs.listing())
    if verb != "kill" or not job_id.strip():
        return Report("usage: /ps (list the background commands) or /ps kill ID", "warning")
    job = await session.jobs.kill(job_id.strip(), "the user")
    if job.killed_by != "the user":
        return Report(f"{job.id} had already ended ({job.status})")
    return Report(f"stopped {job.id} ({job.summary}) and everything it started")
# -- what the agent knows ---------------------------------------------------------------


@_command("skills", "the skills the model can load, and where each came from")
async def _skills(session: CommandHost, _: str) -> Outcome:
    from neocode_tui.agent.commands.knowledge_reports import skills_report

    return Report(await skills_report(session))


@_command("memory", "the instruction files loaded (AGENTS.md...); N opens one in $EDITOR", "[N]")
async def _memory(session: CommandHost, argument: str) -> Outcome:
    from neocode_tui.agent.commands.knowledge_reports import loaded_memory, memory_report

    files = await loaded_memory(session)
    if not argument:
        return Report(memory_report(files))
    if not argument.isdigit() or not 1 <= int(argument) <= len(files):
        return Report(f"/memory N takes a number from the list (1 to {len(files)})", "warning")
    session.require_idle("editing an instruction file")
    session.loop.system_prompt = None  # the next request reads the file as edited
    path = files[int(argument) - 1].path
    return Report(f"instruction file {argument}: {path}; the model reads it as it is then "
                  "from the next request", edit=path)


# -- for front ends that show text ------------------------------------------------------


def _first_line(text: str, width: int = 70) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass
class TextOutcome:
    """An outcome as plain text, for a front end without dialogs (ACP, ``-p``)."""

    text: str
    level: NoticeLevel = "info"
    choices: tuple[Choice, ...] = ()


async def run_as_text(session: CommandHost, name: str, argument: str, *, answer: bool) -> TextOutcome:
    """Run a command where nobody can be asked: a question is answered with its first
    choice when ``answer`` (full-auto), otherwise shown and left undone; a list to pick
    from is shown with how to pick by argument."""
    outcome = await run_command(session, name, argument)
    while isinstance(outcome, Confirm) and answer:
        outcome = await respond(outcome, outcome.choices[0].id)
    shown = as_text(outcome)
    if isinstance(outcome, Confirm):
        shown.text += ("\n\nNot done: nobody here can say yes to it "
                       "(--approval full-auto answers it with the first choice).")
        shown.level = "warning"
    return shown


def as_text(outcome: Outcome) -> TextOutcome:
    if isinstance(outcome, Report):
        return TextOutcome(outcome.text, outcome.level)
    if isinstance(outcome, ShowJobs):
        return TextOutcome(outcome.jobs.listing())
    if isinstance(outcome, ShowDiff):
        return TextOutcome(f"{outcome.title}\n\n```diff\n{outcome.diff.rstrip()}\n```")
    if isinstance(outcome, PickSession):
        from neocode_tui.agent.store import listing_text

        return TextOutcome("\n".join([*listing_text(outcome.sessions), "", "/resume ID loads one"]))
    if isinstance(outcome, PickPrompt):
        lines = [f"{point.number:>3}  {_first_line(point.prompt, 60)}" for point in reversed(outcome.points)]
        return TextOutcome("\n".join(["The prompts to rewind to, latest first:", *lines, "",
                                      "/rewind N goes back to before prompt N"]))
    diff = outcome.preview.diff.rstrip()
    shown = f"\n\n```diff\n{diff}\n```" if diff else "\n\nThe files are already as they were."
    return TextOutcome(outcome.question + shown, choices=outcome.choices)
