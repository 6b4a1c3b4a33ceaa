"""``neocode -p PROMPT``: one prompt through the agent session without a screen, then exit.

Three output formats: ``text`` (the answer on stdout, tool activity on stderr, so
``neocode -p ... > answer.md`` keeps just the answer), ``json`` (one object at the end)
and ``stream-json`` (a ``session`` line, then one line per event as it happens). Exit
codes: 0 success (the turn limit included: there is a final answer), 1 the run ended in an
error, 2 bad usage, 3 stopped by ``--max-budget-usd``, 4 the answer still does not match
``--json-schema``, 5 ``--goal`` stopped before it was met, 130 Ctrl+C, 143 SIGTERM, 129
SIGHUP. Nobody can approve anything here, so calls that would ask are refused with a result
telling the model (and the user) why.

This module must not import Textual: a headless run should start fast.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from neocode_tui.agent import (
    LoopEvent,
    LoopEventAdapter,
    Notice,
    PlanProposed,
    RunFinished,
    Streamed,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    refuse_too_wide,
)
from neocode_tui.agent.commands import COMMANDS, TextOutcome, parse_command, run_as_text
from neocode_tui.agent.context import unpriced
from neocode_tui.agent.permissions import RunOptions
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.agent.tools import ToolNamed
from neocode_tui.cli.options import load_from_args, run_options
from neocode_tui.cli.structured import EXIT_SCHEMA, AnswerSchema, Checked
from neocode_tui.deferred import resume_collections
from neocode_tui.errors import NeoCodeError, NoModel
from neocode_tui.events import StreamRetry, TextDelta
from neocode_tui.terminal_text import VisibleChunks, for_stream, is_terminal, visible, visible_json

if TYPE_CHECKING:
    from neocode_tui.settings import Settings

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_BUDGET, EXIT_GOAL = 0, 1, 2, 3, 5
EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
ABOUT_SERVERS = frozenset({"mcp", "context"})
"""The built-in commands that report on the MCP servers (``/context`` counts their tools'
definitions): the only ones a headless run starts the servers for."""


class UsageError(NeoCodeError):
    """Bad flags or input: reported in one line, exit code 2."""

    exit_code = EXIT_USAGE


Conversation = Callable[[argparse.Namespace, "Settings", RunOptions], Coroutine[Any, Any, int]]
"""A run that reads its prompts itself (``--input-format stream-json``: ``two_way``)."""


def run_headless(args: argparse.Namespace, conversation: Conversation | None = None) -> int:
    """One prompt, or with ``conversation`` the messages it reads, each answered in turn."""
    if sys.stdout is None or sys.stderr is None:
        return EXIT_ERROR  # nowhere to write the answer or say why
    two_way = conversation is not None
    try:
        refuse_too_wide(Path.cwd())
        if args.input_format == "stream-json":
            _check_two_way(args)
        prompt = "" if two_way else _read_prompt(args.prompt)
        loaded = load_from_args(args, Path.cwd())
        settings = loaded.settings
        options = run_options(args)
        schema = AnswerSchema(Path(args.json_schema)) if getattr(args, "json_schema", None) else None
        command = None if two_way else built_in(prompt)
        needs_model = command is None or COMMANDS[command[0]].talks(command[1])
        if needs_model and settings.fell_back_offline:
            raise NoModel("; the offline model runs only in the app")
    except NeoCodeError as exc:
        say(f"neocode: {exc}")
        return exc.exit_code
    for line in loaded.ignored:
        say(f"neocode: warning: {line}")
    try:
        if conversation is not None:
            return asyncio.run(conversation(args, loaded.settings, options))
        return asyncio.run(_run(args, prompt, loaded.settings, command, options, schema))
    except KeyboardInterrupt:
        return EXIT_SIGNAL[signal.SIGINT]
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR


def _check_two_way(args: argparse.Namespace) -> None:
    """``--input-format stream-json`` reads its prompts from stdin and answers in stream-json."""
    if args.output_format != "stream-json":
        raise UsageError("--input-format stream-json needs --output-format stream-json")
    if args.prompt not in (None, "-"):
        raise UsageError("with --input-format stream-json the prompts come on stdin: give -p alone")
    if getattr(args, "json_schema", None):
        raise UsageError("--json-schema works with one prompt, not with --input-format stream-json")


def built_in(prompt: str) -> tuple[str, str] | None:
    """The built-in command the prompt is (``/cost``), by name and argument."""
    parsed = parse_command(prompt)
    return parsed if parsed is not None and parsed[0] in COMMANDS else None
def say(line: str) -> None:
    """A line on stderr; it may quote a server or a file, so a terminal sees it escaped."""
    print(for_stream(line, sys.stderr), file=sys.stderr)


def _read_prompt(flag: str | None) -> str:
    """The ``-p`` text; stdin when it is ``-`` or absent (piped input)."""
    if flag in (None, "-"):
        if sys.stdin is None or sys.stdin.closed:
            raise UsageError("no prompt: stdin is closed (give -p PROMPT)")
        try:
            prompt = sys.stdin.buffer.read().decode("utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"no prompt: stdin cannot be read ({exc.strerror})") from None
    else:
        prompt = flag
    if not prompt.strip():
        raise UsageError("the prompt is empty (give -p PROMPT, or pipe it in with -p -)")
    return prompt


async def _run(
    args: argparse.Namespace, prompt: str, settings: Any, command: tuple[str, str] | None,
    options: RunOptions, schema: AnswerSchema | None,
) -> int:
    printer = _printer(args.output_format, lambda name: session.loop.tools.get(name))
    if schema is not None:
        addition = "\n\n".join(filter(None, [options.append_system_prompt, schema.instructions]))
        options = dataclasses.replace(options, append_system_prompt=addition)
    session = AgentSession(
        settings, Path.cwd(), FrontEnd(listener=printer.event), trusted=args.trust, run=options
    )
    stopped_by: list[int] = []
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        stopped_by.append(signum)
        session.cancel()
        if schema is not None:
            schema.stop()

    for signum in EXIT_SIGNAL:
        loop.add_signal_handler(signum, stop, signum)
    try:
        await open_session(session, args, settings, command)
        resume_collections()  # what lives as long as the run is built
        printer.start(session)
        if command is not None:
            shown = await run_as_text(session, *command, answer=settings.approval == "full-auto")
            printer.command(command[0], shown, session)
            return EXIT_OK if shown.level == "info" else EXIT_ERROR
        if args.goal:
            session.goal.set(args.goal)
        finished, checked = await _answer(session, prompt, schema)
        if checked is not None:
            printer.structured = checked.value if not checked.problem else None
        printer.finish(finished, session)
        if checked is not None and checked.problem:
            if stopped_by:
                name = signal.Signals(stopped_by[0]).name
                say(f"neocode: stopped by {name} while the answer was checked against --json-schema")
            else:
                say(f"neocode: the final answer does not match --json-schema: {checked.problem}")
                return EXIT_SCHEMA
    except NeoCodeError as exc:
        say(f"neocode: {exc}")
        return exc.exit_code
    finally:
        for signum in EXIT_SIGNAL:
            loop.remove_signal_handler(signum)
        await session.aclose()
        if args.trajectory and session.id:  # the file is whole once the session is closed
            from neocode_tui.cli.trajectories import write_trajectory

            await asyncio.to_thread(write_trajectory, session.id, Path(args.trajectory))
    code = exit_code(finished, stopped_by)
    unmet = args.goal and session.goal.goal is not None and session.goal.goal.state != "met"
    return EXIT_GOAL if code == EXIT_OK and unmet else code


async def open_session(
    session: AgentSession, args: argparse.Namespace, settings: Any, command: tuple[str, str] | None,
) -> None:
    """What comes before the prompt: the session resumed or created, the MCP servers up."""
    if args.resume is not None or args.continue_:
        session.resume(args.resume or None)
    if command is None:
        session.ensure_saved()  # a command alone leaves no new session behind
    for notice in session.mcp.notices():
        say(f"neocode: warning: {notice}")
    # Nobody can wait for a server later here: its tools are there from the first
    # request. A built-in command needs none, unless it reports on them.
    if command is None or command[0] in ABOUT_SERVERS:
        session.mcp.start(sign_in=True)  # a server's sign-in page is told on stderr
        await session.mcp.wait_ready()
    if command is None and settings.max_budget_usd is not None:
        refused = unpriced(session.model, settings.resolved_base_url)
        if refused:
            raise UsageError(refused)
    for status in session.mcp.status():
        if status.state == "failed":
            say(f"neocode: warning: the MCP server {status.name} failed: "
                 + status.error.replace("\n", "\n    "))


async def _answer(
    session: AgentSession, prompt: str, schema: AnswerSchema | None,
) -> tuple[RunFinished, Checked | None]:
    """The run, and with ``--json-schema`` the answer checked (asked again once, with the
    validator's words, when it does not match)."""
    finished = await session.prompt(prompt)
    if schema is None or finished.reason not in ("done", "turn_limit"):
        return finished, None
    checked = await schema.check(finished.final_text)
    if checked.problem and not checked.final:
        finished = await session.prompt(schema.again(checked.problem))
        if finished.reason not in ("done", "turn_limit"):
            return finished, None
        checked = await schema.check(finished.final_text)
    return finished, checked


def exit_code(finished: RunFinished, stopped_by: list[int]) -> int:
    if stopped_by:
        return EXIT_SIGNAL.get(signal.Signals(stopped_by[0]), EXIT_ERROR)
    if finished.reason == "error":
        return EXIT_BUDGET if finished.error and finished.error.kind == "budget" else EXIT_ERROR
    return EXIT_SIGNAL[signal.SIGINT] if finished.reason == "cancelled" else EXIT_OK


class _Printer:
    """Writes a run's events in one output format; the base class records nothing."""

    def __init__(self, tool_named: ToolNamed) -> None:
        """``tool_named``: the session's tool of that name (its registry, read as events come)."""
        self.tool_named = tool_named
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr
        self.live = is_terminal(self.out)
        """stdout is a terminal: a person reads it, so what the model or a tool wrote is
        shown escaped there (a pipe or a file gets it exactly)."""
        self.err_live = is_terminal(self.err)
        self.structured: Any = None
        """The final answer as parsed JSON, when ``--json-schema`` asked for it and it matched."""

    def start(self, session: AgentSession) -> None:
        pass

    def event(self, event: LoopEvent) -> None:
        pass

    def finish(self, finished: RunFinished, session: AgentSession) -> None:
        pass

    def command(self, name: str, shown: TextOutcome, session: AgentSession) -> None:
        """A built-in command's answer (``-p "/cost"``): its text is the result."""
        print(for_stream(shown.text, self.out), file=self.out, flush=True)

    def json(self, line: dict[str, Any]) -> None:
        """A line of the run's own (an answer to a control request, a bad input line)."""
        self._json_line(json.dumps(line, ensure_ascii=False))

    def _json_line(self, document: str) -> None:
        print(visible_json(document) if self.live else document, file=self.out, flush=True)


def _command_json(name: str, shown: TextOutcome, session: AgentSession) -> dict[str, Any]:
    return {"command": name, "result": shown.text, "level": shown.level,
            "choices": [choice.id for choice in shown.choices], "session_id": session.id}


class _TextPrinter(_Printer):
    """The answer on stdout, exactly: a retried attempt's text never reaches it.

    On a terminal the answer streams as it comes (a retry is announced on stderr); into a
    file or a pipe each turn's text is written once its message is complete, so what was
    discarded by a retry was never written.
    """

    def __init__(self, tool_named: ToolNamed) -> None:
        super().__init__(tool_named)
        self.shown = VisibleChunks()
        self.pending: list[str] = []
        self.mid_line = False
        self.wrote_text = False
        self.new_turn = False
        self.status_shown = False

    def event(self, event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            self.new_turn = True
        elif isinstance(event, Streamed):
            if isinstance(event.event, TextDelta):
                self._text(event.event.text)
            elif isinstance(event.event, StreamRetry):
                self.pending.clear()
                retry = event.event
                self._status(retry.status_line())
        elif isinstance(event, TurnFinished):
            self._flush()
        elif isinstance(event, ToolStarted):
            tool = self.tool_named(event.name)
            arguments = event.arguments if isinstance(event.arguments, dict) else {}
            self._note(f"→ {tool.summary(arguments) if tool else event.name}")
        elif isinstance(event, ToolFinished) and event.is_error:
            first = event.result.strip().splitlines()[0] if event.result.strip() else ""
            self._note(f"  ✗ {event.name} {event.status}: {first}")
        elif isinstance(event, Notice):
            self._note(event.message)
        elif isinstance(event, SubagentEvent) and isinstance(event.event, ToolStarted):
            tool = self.tool_named(event.event.name)
            arguments = event.event.arguments if isinstance(event.event.arguments, dict) else {}
            self._note(f"  → {event.agent}: {tool.summary(arguments) if tool else event.event.name}")
        elif isinstance(event, PlanProposed):  # nobody here to decide: the plan is the answer
            self.new_turn = True
            self._text(event.plan)
            self._flush()

    def _text(self, text: str) -> None:
        if self.new_turn and self.wrote_text and not self.pending:
            self.pending.append("\n\n" if self.mid_line else "\n")  # a paragraph per turn
        self.new_turn = False
        self.pending.append(text)
        if self.live:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        text = "".join(self.pending)
        self.pending.clear()
        if self.live:
            text = self.shown(text)
        self._clear_status()
        self.out.write(text)
        self.out.flush()
        self.wrote_text = True
        self.mid_line = not text.endswith("\n")

    def finish(self, finished: RunFinished, session: AgentSession) -> None:
        self._flush()
        self._clear_status()
        held = self.shown.end()
        if held:
            self.out.write(held)
            self.mid_line = True
        if self.mid_line:
            self.out.write("\n")
            self.out.flush()
        if finished.error:
            self._note(f"neocode: {finished.error.message}")
        elif finished.reason == "turn_limit":
            self._note("neocode: stopped at the turn limit (--max-turns)")
        elif finished.reason == "cancelled" and session.saving:
            self._note(f"neocode: interrupted (continue with: neocode --resume {session.id})")

    def _status(self, line: str) -> None:
        """One line that updates in place on a terminal, one line per update elsewhere."""
        if self.err_live:
            self.err.write(f"\r\x1b[K{visible(line)}")
            self.err.flush()
            self.status_shown = True
        else:
            self._note(line)

    def _clear_status(self) -> None:
        if self.status_shown:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self.status_shown = False

    def _note(self, line: str) -> None:
        self._clear_status()
        if self.mid_line and self.live:
            self.out.write("\n")
            self.out.flush()
            self.mid_line = False
        print(visible(line) if self.err_live else line, file=self.err, flush=True)


class _JsonPrinter(_Printer):
    def __init__(self, tool_named: ToolNamed) -> None:
        super().__init__(tool_named)
        self.turns = 0
        self.results: list[ToolFinished] = []

    def event(self, event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            self.turns += 1
        elif isinstance(event, ToolFinished):
            self.results.append(event)

    def finish(self, finished: RunFinished, session: AgentSession) -> None:
        sent = {call.id: call.arguments for m in session.messages for call in m.tool_calls}
        output = {
            "result": finished.final_text,
            "tool_calls": [
                {
                    "id": result.call_id,
                    "name": result.name,
                    "arguments": _arguments(sent.get(result.call_id, "")),
                    "result": result.result,
                    "is_error": result.is_error,
                }
                for result in self.results
            ],
            "usage": finished.usage.model_dump(),
            "cost_usd": float(session.meter.cost) if session.meter.cost is not None else None,
            "cache_hit_rate": session.meter.cache_hit_rate,
            "side_cost_usd": _side_cost(session),
            "effort": session.effort,
            "context": session.meter.context.as_json(),
            "turns": self.turns,
            "session_id": session.id,
            "title": session.title,
            "stop_reason": finished.reason,
            "error": finished.error.model_dump() if finished.error else None,
            "sandbox": session.sandbox.describe(),
            "structured_output": self.structured,
            "todos": [todo.model_dump() for todo in session.own_tools.todos],
            "goal": _goal_json(session),
        }
        self._json_line(json.dumps(output, ensure_ascii=False))

    def command(self, name: str, shown: TextOutcome, session: AgentSession) -> None:
        self._json_line(json.dumps(_command_json(name, shown, session), ensure_ascii=False))


class StreamJsonPrinter(_Printer):
    def start(self, session: AgentSession) -> None:
        header = {
            "type": "session", "session_id": session.id, "provider": session.provider.name,
            "model": session.model,
        }
        print(json.dumps(header), file=self.out, flush=True)

    def event(self, event: LoopEvent) -> None:
        if isinstance(event, SubagentEvent):
            # A child's own event, as a line of its own marked with the parent's call (the
            # way Claude Code marks a subagent's messages).
            line = LoopEventAdapter.dump_python(event.event, mode="json")
            line.update(parent_tool_use_id=event.call_id, agent=event.agent)
            self._json_line(json.dumps(line, ensure_ascii=False))
            return
        self._json_line(LoopEventAdapter.dump_json(event).decode())

    def command(self, name: str, shown: TextOutcome, session: AgentSession) -> None:
        line = {"type": "command_result", **_command_json(name, shown, session)}
        self._json_line(json.dumps(line, ensure_ascii=False))


def _goal_json(session: AgentSession) -> dict[str, Any] | None:
    goal = session.goal.goal
    if goal is None:
        return None
    return {"condition": goal.condition, "state": goal.state, "turns": goal.turns, "reason": goal.reason}


def _side_cost(session: AgentSession) -> float | None:
    """What the small model's side work cost, apart (None: none done, or unpriced)."""
    costs = [entry.cost for entry in session.meter.costs if entry.side and entry.cost is not None]
    return float(sum(costs)) if costs else None


def _printer(output_format: str, tools: ToolNamed) -> _Printer:
    kind = {"json": _JsonPrinter, "stream-json": StreamJsonPrinter}.get(output_format)
    return (kind or _TextPrinter)(tools)


def _arguments(raw: str) -> Any:
    """Parsed when the model sent valid JSON, else the raw text it sent."""
    try:
        return json.loads(raw, strict=False)
    except ValueError:
        return raw

