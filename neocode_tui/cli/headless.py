"""``neocode -p PROMPT``: one run of the agent loop without a screen, then exit.

Three output formats: ``text`` (the answer streamed to stdout, tool activity to stderr, so
``neocode -p ... > answer.md`` keeps just the answer), ``json`` (one object at the end)
and ``stream-json`` (a ``session`` line, then one line per loop or provider event as it
happens). Exit codes: 0 success (the turn limit included: there is a final answer), 1 the
run ended in an error, 2 bad usage, 130 interrupted. Nobody can approve anything here, so
calls that would ask are refused with a result telling the model (and the user) why.

This module must not import Textual: a headless run should start fast.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.loop_events import (
    LoopEvent,
    LoopEventAdapter,
    Notice,
    RunFinished,
    Streamed,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from neocode_tui.agent.store import (
    SessionNotFound,
    LoadedSession,
    SessionStore,
    find_session,
    load_session,
)
from neocode_tui.agent.tools import ToolRegistry, default_tools
from neocode_tui.config import Settings
from neocode_tui.chat import Message
from neocode_tui.events import StreamRetry, TextDelta
from neocode_tui.providers import make_provider

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad flags or input: reported in one line, exit code 2."""


def run_headless(args: argparse.Namespace) -> int:
    try:
        prompt = _read_prompt(args.prompt)
        settings = _settings(args)
        max_turns = args.max_turns if args.max_turns is not None else settings.max_turns
        if max_turns < 1:
            raise UsageError("--max-turns must be at least 1")
        resumed = _resumed_session(args)
    except UsageError as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return asyncio.run(_run(args, prompt, settings, max_turns, resumed))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR


def _read_prompt(flag: str | None) -> str:
    """The ``-p`` text; stdin when it is ``-`` or absent (piped input)."""
    prompt = sys.stdin.read() if flag in (None, "-") else flag
    if not prompt.strip():
        raise UsageError("the prompt is empty (give -p PROMPT, or pipe it in with -p -)")
    return prompt


def _settings(args: argparse.Namespace) -> Settings:
    try:
        settings = Settings()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise UsageError(f"bad setting in the environment or .env: {problems}") from None
    flags = {"provider": args.provider, "base_url": args.base_url, "model": args.model}
    return settings.model_copy(update={k: v for k, v in flags.items() if v})


def _resumed_session(args: argparse.Namespace) -> LoadedSession | None:
    if args.resume is None and not args.continue_:
        return None
    try:
        return load_session(find_session(Path.cwd(), args.resume or None))
    except SessionNotFound as exc:
        raise UsageError(str(exc)) from None


async def _run(
    args: argparse.Namespace,
    prompt: str,
    settings: Settings,
    max_turns: int,
    resumed: LoadedSession | None,
) -> int:
    workspace = Path.cwd()
    provider = make_provider(settings)
    if resumed is None:
        session = SessionStore.create(workspace, provider=provider.name, model=provider.model)
        messages: list[Message] = []
    else:
        session, messages = SessionStore.resume(resumed)
    tools = default_tools()
    printer = _printer(args.output_format, tools)
    loop = AgentLoop(
        provider,
        workspace,
        sink=printer.event,
        approval=args.approval or settings.approval or "ask",
        max_turns=max_turns,
        session=session,
        tools=tools,
        messages=messages,
        usage=resumed.usage if resumed else None,
        secrets=settings.secrets,
    )
    printer.start(session.id, provider.name, provider.model)
    try:
        finished = await loop.run(prompt)
    finally:
        session.close()
        await provider.aclose()
    printer.finish(finished, session.id, loop.messages)
    if finished.reason == "error":
        return EXIT_ERROR
    return EXIT_INTERRUPTED if finished.reason == "cancelled" else EXIT_OK


class _Printer:
    """Writes a run's events in one output format; the base class records nothing."""

    def __init__(self, tools: ToolRegistry) -> None:
        self.tools = tools
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr

    def start(self, session_id: str, provider: str, model: str) -> None:
        pass

    def event(self, event: LoopEvent) -> None:
        pass

    def finish(self, finished: RunFinished, session_id: str, messages: list[Message]) -> None:
        pass


class _TextPrinter(_Printer):
    def __init__(self, tools: ToolRegistry) -> None:
        super().__init__(tools)
        self.mid_line = False
        self.wrote_text = False
        self.new_turn = False

    def event(self, event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            self.new_turn = True
        elif isinstance(event, Streamed):
            if isinstance(event.event, TextDelta):
                if self.new_turn and self.wrote_text:
                    self.out.write("\n\n" if self.mid_line else "\n")  # a paragraph per turn
                self.new_turn = False
                self.wrote_text = True
                self.out.write(event.event.text)
                self.out.flush()
                self.mid_line = not event.event.text.endswith("\n")
            elif isinstance(event.event, StreamRetry):
                self._note(f"[retrying ({event.event.attempt}/{event.event.max_attempts}): "
                           f"{event.event.reason}]")
        elif isinstance(event, ToolStarted):
            tool = self.tools.get(event.name)
            arguments = event.arguments if isinstance(event.arguments, dict) else {}
            self._note(f"→ {tool.summary(arguments) if tool else event.name}")
        elif isinstance(event, ToolFinished) and event.is_error:
            first = event.result.strip().splitlines()[0] if event.result.strip() else ""
            self._note(f"  ✗ {event.name} {event.status}: {first}")
        elif isinstance(event, Notice):
            self._note(event.message)

    def finish(self, finished: RunFinished, session_id: str, messages: list[Message]) -> None:
        if self.mid_line:
            self.out.write("\n")
            self.out.flush()
        if finished.error:
            self._note(f"neocode: {finished.error['message']}")
        elif finished.reason == "turn_limit":
            self._note("neocode: stopped at the turn limit (--max-turns)")
        elif finished.reason == "cancelled":
            self._note(f"neocode: interrupted (continue with: neocode --resume {session_id})")

    def _note(self, line: str) -> None:
        if self.mid_line:
            self.out.write("\n")
            self.out.flush()
            self.mid_line = False
        print(line, file=self.err, flush=True)


class _JsonPrinter(_Printer):
    def __init__(self, tools: ToolRegistry) -> None:
        super().__init__(tools)
        self.turns = 0
        self.results: list[ToolFinished] = []

    def event(self, event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            self.turns += 1
        elif isinstance(event, ToolFinished):
            self.results.append(event)

    def finish(self, finished: RunFinished, session_id: str, messages: list[Message]) -> None:
        sent = {call.id: call.arguments for m in messages for call in m.tool_calls}
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
            "turns": self.turns,
            "session_id": session_id,
            "stop_reason": finished.reason,
            "error": finished.error,
        }
        print(json.dumps(output, ensure_ascii=False), file=self.out, flush=True)


class _StreamJsonPrinter(_Printer):
    def start(self, session_id: str, provider: str, model: str) -> None:
        header = {"type": "session", "session_id": session_id, "provider": provider, "model": model}
        print(json.dumps(header), file=self.out, flush=True)

    def event(self, event: LoopEvent) -> None:
        print(LoopEventAdapter.dump_json(event).decode(), file=self.out, flush=True)


def _printer(output_format: str, tools: ToolRegistry) -> _Printer:
    kind = {"json": _JsonPrinter, "stream-json": _StreamJsonPrinter}.get(output_format)
    return (kind or _TextPrinter)(tools)


def _arguments(raw: str) -> Any:
    """Parsed when the model sent valid JSON, else the raw text it sent."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw
