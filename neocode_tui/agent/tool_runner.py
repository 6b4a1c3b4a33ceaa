"""Running a turn's tool calls: validate, hook, ask the gate, run, and hand back results.

The loop gives it the calls of one answer; every failure becomes a result for the model
(a tool bug never ends the session), results reach the transcript in the calls' order
through ``add``, and every text a tool produces is scrubbed before anyone sees it. It knows
the loop only through narrow callbacks: ``emit`` for events, ``add`` for the transcript,
``turn`` for the turn number and ``approve`` (the gate) for the yes.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from neocode_tui.agent.call_context import CURRENT_CALL, RunningCall
from neocode_tui.agent.extensions import Hooks, MemoryFiles, Permission, ToolVerdict
from neocode_tui.agent.loop_events import (
    FileChange,
    LoopEvent,
    Notice,
    ToolFinished,
    ToolOutputDelta,
    ToolStarted,
    ToolStatus,
)
from neocode_tui.agent.permissions import scrubbed_change
from neocode_tui.agent.tools import Tool, ToolError, ToolOutput, ToolRegistry
from neocode_tui.agent.transcript import tool_result
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace
from neocode_tui.chat import Image, Message, PrintedOutput, ToolCall
from neocode_tui.collector import CollectedToolCall
from neocode_tui.known_secrets import Secrets
from neocode_tui.live_output import KEPT_OUTPUT_LINES, LineCap, LiveTail

BeforeTool = Callable[[Tool[Any], list[Path]], Awaitable[None]]
"""Told each approved call's tool and the paths it will write, just before it runs."""
AfterChange = Callable[[str, str], Awaitable[str]]
"""Told a changed file's path and new content; words to add to the call's result ("": none)."""
Approve = Callable[[Tool[Any], object, CollectedToolCall, Permission | None, str], Awaitable[str | None]]
"""None when the call may run, else the refusal the model is sent; told what the PreToolUse
hooks said (their permission and its reason)."""



@dataclass(frozen=True)
class AroundCalls:
    """What a session runs around every call, its subagents' too."""

    hooks: Hooks | None = None
    """The user's PreToolUse and PostToolUse hooks, run around each call."""
    before_tool: BeforeTool | None = None
    """Checkpoints hook in here, to save what a call is about to change."""
    after_change: AfterChange | None = None
    """The language servers hook in here: what they find wrong in a file a call changed
    goes to the model with its result."""


CONCURRENT_CALLS = 4
"""Calls of a concurrent tool (``task``) running at once; the rest of the batch waits."""


class ToolRunner:
    def __init__(
        self, tools: ToolRegistry, workspace: Workspace, secrets: Secrets, memory: MemoryFiles, *,
        approve: Approve, emit: Callable[[LoopEvent], None], add: Callable[[Message], None],
        turn: Callable[[], int], live: Callable[[], bool], around: AroundCalls | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``clock``: what tool durations are measured with."""
        self.tools = tools
        self.workspace = workspace
        self.secrets = secrets
        self.memory = memory
        self.around = around or AroundCalls()
        self.clock = clock
        self.final: str | None = None
        """The answer a tool ended the run with (``ToolOutput.final``)."""
        self._approve = approve
        self._emit = emit
        self._add = add
        self._turn = turn
        self._live = live
        self._running: dict[str, LiveTail] = {}
        """The calls whose tools are running, by id, with the last lines each has printed:
        a cancel stops them part way, and what they printed stays in the transcript."""

    def take_running(self) -> dict[str, PrintedOutput | None]:
        """The calls whose tools were running (a cancel stopped them), forgotten here, with
        what each had printed (None: nothing)."""
        running, self._running = self._running, {}
        return {call_id: _printed(tail) for call_id, tail in running.items()}

    async def run(self, calls: list[CollectedToolCall]) -> None:
        for batch in self._batches(calls):
            await self._run_batch(batch)

    def _batches(self, calls: list[CollectedToolCall]) -> list[list[CollectedToolCall]]:
        """The calls in order, those of a concurrent tool next to each other in one batch."""
        batches: list[list[CollectedToolCall]] = []
        for call in calls:
            tool = self.tools.get(call.name)
            together = tool is not None and tool.concurrent
            if together and batches and batches[-1][-1].name == call.name:
                batches[-1].append(call)
            else:
                batches.append([call])
        return batches

    async def _run_batch(self, calls: list[CollectedToolCall]) -> None:
        """One call, or a batch of concurrent ones, ``CONCURRENT_CALLS`` at a time; each is
        shown finished when it is, and the results go to the transcript in the calls' order
        (those finished before a cancel too: the others get "interrupted")."""
        if len(calls) == 1:
            self._answer(calls[0], await self._finished_call(calls[0]))
            return
        gate = asyncio.Semaphore(CONCURRENT_CALLS)
        results: dict[str, ToolFinished] = {}

        async def one(call: CollectedToolCall) -> None:
            async with gate:
                finished = results[call.id] = await self._finished_call(call)
            self._emit(finished)

        try:
            await asyncio.gather(*(one(call) for call in calls))
        finally:
            for call in calls:
                if call.id in results:
                    self._answer(call, results[call.id], emit=False)

    async def _finished_call(self, call: CollectedToolCall) -> ToolFinished:
        """Validate, approve and run one call; every failure becomes a result for the model."""
        result = _Results(call, self._turn(), self.secrets, self.clock)
        cleared = await self._cleared(call, result)
        if isinstance(cleared, ToolFinished):
            return cleared
        finished = await self._execute(cleared, result)
        if finished.status in ("ok", "error"):
            finished = await self._post_tool_hooks(cleared.call, finished)
        return finished

    def _answer(self, call: CollectedToolCall, finished: ToolFinished, *, emit: bool = True) -> None:
        self._add(tool_result(as_tool_call(call), finished.result, finished.is_error,
                              finished.duration, finished.images, finished.status, job=finished.job))
        if emit:
            self._emit(finished)

    async def _cleared(self, call: CollectedToolCall, result: _Results) -> _Cleared | ToolFinished:
        """The call as it may run (a hook's ``updatedInput`` applied), or why it may not."""
        tool = self.tools.get(call.name)
        if tool is None:
            return result(
                f"not run: there is no tool named {call.name!r}; "
                f"the tools are {', '.join(self.tools.names)}"
            )
        if call.parse_error is not None:
            return result(
                f"not run: the {call.parse_error}; send the call again with a JSON object"
            )
        try:
            args = tool.args_model.model_validate(call.arguments_json)
        except ValidationError as exc:
            return result(f"not run: invalid arguments for {tool.name}: {_describe(exc)}")
        verdict = await self._pre_tool_hooks(call)
        if verdict.stop is not None:
            self.halt(f"a PreToolUse hook stopped the run: {verdict.stop}")
            return result(f"not run: a PreToolUse hook stopped the run: {verdict.stop}", "denied")
        if verdict.permission == "deny":
            return result(f"not run: blocked by a PreToolUse hook: {verdict.reason}", "denied")
        if verdict.updated is not None:
            call, args = self._updated(call, verdict.updated)
            if args is None:
                return result(f"not run: a PreToolUse hook's updatedInput is not valid for {tool.name}: "
                              f"{call.parse_error}")
        # Asked outside the tool's error handling: an approval that cannot be answered
        # (the program closing) is a cancel, never a failed call followed by a new request.
        try:
            denial = await self._approve(tool, args, call, verdict.permission, verdict.reason)
        except (ToolError, PathOutsideWorkspace) as exc:
            return result(str(exc))
        except OSError as exc:
            return result(f"{tool.name} failed: {exc.strerror or exc}")
        if denial is not None:
            return result(denial, "denied")
        return _Cleared(tool, args, call, verdict.context)

    async def _execute(self, cleared: _Cleared, result: _Results) -> ToolFinished:
        tool, args, call = cleared.tool, cleared.args, cleared.call
        try:
            if self.around.before_tool is not None:
                await self.around.before_tool(tool, tool.writes(args, self.workspace))
            self._emit(
                ToolStarted(
                    turn=result.turn, index=call.index, call_id=call.id, name=call.name,
                    arguments=call.arguments_json,
                )
            )
            printed = self._running[call.id] = LiveTail(keep=KEPT_OUTPUT_LINES)
            CURRENT_CALL.set(RunningCall(result.turn, call.index, call.id))
            result.started = self.clock()
            output = await tool.run(args, self.workspace, self._live_output(call, printed))
            self._running.pop(call.id, None)
            output = await self._with_instructions(tool.touches(args, self.workspace), output)
            output = await self._with_diagnostics(output)
        except (ToolError, PathOutsideWorkspace) as exc:
            return result(str(exc))
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return result(f"{tool.name} failed: {exc.strerror or exc}{where}")
        except Exception as exc:  # a tool bug must not end the session
            return result(f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        if output.final is not None:
            self.final = self.secrets(output.final)
        added = cleared.context
        return result(
            f"{output.text}\n\n[PreToolUse hook: {added}]" if added else output.text,
            "error" if output.is_error else "ok", diff=output.diff,
            change=output.change, images=output.images, job=output.job,
        )

    def halt(self, why: str) -> None:
        """A hook ended the run (``continue: false``): the user is told why, the model not."""
        self._emit(Notice(turn=self._turn(), level="warning", message=self.secrets(why)))
        if self.final is None:
            self.final = ""

    def _updated(self, call: CollectedToolCall, updated: dict[str, Any]) -> tuple[CollectedToolCall, Any]:
        """The call with a hook's ``updatedInput`` over its arguments, and those validated
        (None, with the problem as the call's ``parse_error``, when they are not valid)."""
        arguments = {**(call.arguments_json or {}), **updated}
        call = call.model_copy(update={"arguments_json": arguments, "arguments": json.dumps(arguments)})
        tool = self.tools.get(call.name)
        assert tool is not None
        try:
            return call, tool.args_model.model_validate(arguments)
        except ValidationError as exc:
            return call.model_copy(update={"parse_error": _describe(exc)}), None

    async def _with_instructions(self, paths: list[Path], output: ToolOutput) -> ToolOutput:
        """The instructions of a folder reached for the first time come with the result
        (once, and said on screen)."""
        if output.is_error or not paths:
            return output
        arrived = await asyncio.to_thread(self.memory.reached, paths)
        for line in self.memory.take_withheld():
            self._emit(Notice(turn=self._turn(), level="warning", message=line))
        for entry in arrived:
            self._emit(Notice(turn=self._turn(), level="info", message=(
                f"{entry.file.shown} joins the context ({entry.file.size} bytes): "
                f"the instructions of {entry.folder}/")))
        notes = "".join(
            f"\n\n<instructions file=\"{entry.file.shown}\">\nInstructions for the files under "
            f"{entry.folder}/ (they apply from now on):\n\n{entry.text}\n</instructions>"
            for entry in arrived
        )
        return replace(output, text=output.text + notes) if notes else output

    async def _with_diagnostics(self, output: ToolOutput) -> ToolOutput:
        """A changed file's errors, as its language server sees them now, join the result."""
        if output.is_error or output.change is None or self.around.after_change is None:
            return output
        words = await self.around.after_change(output.change.path, output.change.after)
        return replace(output, text=f"{output.text}\n\n{words}") if words else output

    async def _pre_tool_hooks(self, call: CollectedToolCall) -> ToolVerdict:
        if self.around.hooks is None:
            return ToolVerdict()
        verdict = await self.around.hooks.pre_tool(call.name, call.arguments_json, call.id)
        return replace(verdict, reason=self.secrets(verdict.reason), context=self.secrets(verdict.context))

    async def _post_tool_hooks(self, call: CollectedToolCall, finished: ToolFinished) -> ToolFinished:
        """What a PostToolUse (or, for a call that failed, PostToolUseFailure) hook has to say
        about the result goes to the model with it."""
        if self.around.hooks is None:
            return finished
        hooks, failed = self.around.hooks, finished.status == "error"
        event = "PostToolUseFailure" if failed else "PostToolUse"
        said = await (hooks.tool_failed if failed else hooks.post_tool)(
            call.name, call.arguments_json, call.id, finished.result)
        if said.stop is not None:
            self.halt(f"a {event} hook stopped the run: {said.stop}")
        if not said.note:
            return finished
        return finished.model_copy(
            update={"result": f"{finished.result}\n\n[{event} hook: {self.secrets(said.note)}]"}
        )

    def _live_output(self, call: CollectedToolCall, printed: LiveTail) -> Callable[[str], None] | None:
        """Passes output on line by line: a key never spans two lines, so each line can
        be redacted whole. Each line is cut (``LineCap``), so one endless line costs no
        more than many short ones. A last line without an end shows up in the final result.
        ``printed`` keeps the last lines shown, for a stop part way."""
        if not self._live():
            return None
        turn = self._turn()
        lines = LineCap()
        emit = self._emit

        def feed(text: str) -> None:
            if ended := lines.feed(text):
                shown = self.secrets(ended)
                printed.feed(shown)
                emit(ToolOutputDelta(turn=turn, index=call.index, call_id=call.id, text=shown))

        return feed


@dataclass(frozen=True)
class _Cleared:
    """A call that may run, with what it runs with."""

    tool: Tool[Any]
    args: Any
    call: CollectedToolCall
    context: str
    """What the PreToolUse hooks add for the model to the result."""


class _Results:
    """Makes one call's result, scrubbed, timed from when its tool started."""

    def __init__(self, call: CollectedToolCall, turn: int, secrets: Secrets, clock: Callable[[], float]) -> None:
        self.call, self.turn, self.secrets, self.clock = call, turn, secrets, clock
        self.started: float | None = None

    def __call__(
        self, text: str, status: ToolStatus = "error", *, diff: str | None = None,
        change: FileChange | None = None, images: Sequence[Image] = (), job: str = "",
    ) -> ToolFinished:
        call = self.call
        duration = None if self.started is None else round(self.clock() - self.started, 3)
        return ToolFinished(
            turn=self.turn, index=call.index, call_id=call.id, name=call.name,
            result=self.secrets(text), is_error=status != "ok", status=status,
            diff=self.secrets.optional(diff), change=scrubbed_change(self.secrets, change),
            duration=duration, images=list(images), job=job,
        )


def _printed(tail: LiveTail) -> PrintedOutput | None:
    return PrintedOutput(lines=tail.lines, hidden=tail.hidden) if tail.total_lines else None


def as_tool_call(call: CollectedToolCall) -> ToolCall:
    return ToolCall(id=call.id, name=call.name, arguments=call.arguments)


def _describe(error: ValidationError) -> str:
    """Pydantic's errors in one line: "path: Field required; timeout: ..."."""
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
