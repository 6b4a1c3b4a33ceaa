"""``neocode -p --input-format stream-json --output-format stream-json``: one session that
another program talks to, message after message, the way Claude Code's Agent SDK drives
``claude``.

stdin carries Claude Code's input lines (``stream_lines``): each ``user`` message is a
prompt, run to its end (``run_finished``) before the next; messages that come meanwhile
wait their turn, unless their ``priority`` says ``next`` (they join the running turn at its
next model request, a ``steered`` line says so) or ``now`` (the run stops, they go first).
stdout carries the stream-json events of ``-p``, plus the answers to
control requests and, with ``--permission-prompt-tool stdio``, a ``can_use_tool``
question for each call that needs a yes (without it, those calls are refused as in any
headless run). A line that is not a message gets an ``input_error`` line and the
conversation goes on. The run ends when stdin does, once the messages read are answered.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import itertools
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from neocode_tui.agent import ApprovalDecision, ApprovalRequested
from neocode_tui.agent.commands import run_as_text
from neocode_tui.agent.images import ImageError, prepare
from neocode_tui.agent.permissions import RunOptions
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.agent.tools import Reply, UserQuestions
from neocode_tui.chat import Image
from neocode_tui.cli.headless import (
    EXIT_OK,
    EXIT_SIGNAL,
    StreamJsonPrinter,
    built_in,
    exit_code,
    open_session,
)
from neocode_tui.cli.lines import BoundedLines, LineTooLong, stdin_lines
from neocode_tui.cli.stream_lines import (
    MAX_LINE_BYTES,
    PERMISSION_MODES,
    BadLine,
    ControlRequest,
    ControlResponse,
    Decision,
    UserLine,
    UserMessage,
    parse_line,
)
from neocode_tui.cli.stream_questions import TOOL_NAME, question_input, replies_of
from neocode_tui.deferred import resume_collections
from neocode_tui.errors import NeoCodeError
from neocode_tui.settings import Settings
from neocode_tui.vocabulary import ApprovalMode


async def run_two_way(args: argparse.Namespace, settings: Settings, options: RunOptions) -> int:
    """The conversation on stdin and stdout; its exit code is the last answer's."""
    conversation = TwoWay(args, settings, options)
    return await conversation.run()


class TwoWay:
    def __init__(self, args: argparse.Namespace, settings: Settings, options: RunOptions) -> None:
        self.args = args
        self.printer = StreamJsonPrinter(lambda name: self.session.loop.tools.get(name))
        asks = getattr(args, "permission_prompt_tool", None) == "stdio"
        front = FrontEnd(listener=self.printer.event, approver=self.ask if asks else None,
                         questions=self.ask_user if asks else None)
        self.session = AgentSession(settings, Path.cwd(), front, trusted=args.trust, run=options)
        self.settings = settings
        self.prompts: asyncio.PriorityQueue[tuple[int, int, UserLine | None]] = asyncio.PriorityQueue()
        """Messages to answer by rank (``_FIRST`` to ``_LAST``), in order of arrival within one."""
        self.arrivals = itertools.count()
        self.questions: dict[str, asyncio.Future[Decision | str]] = {}
        """Open ``can_use_tool`` questions by request id: the answer, or an error's words."""
        self.ids = (f"neocode-{number}" for number in itertools.count(1))
        self.stopped_by: list[int] = []
        self.last = EXIT_OK
        self.line_number = 0

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        for signum in EXIT_SIGNAL:
            loop.add_signal_handler(signum, self.stop, signum)
        reading = asyncio.create_task(self.read(await stdin_lines(MAX_LINE_BYTES)))
        try:
            await open_session(self.session, self.args, self.settings, None)
            resume_collections()  # what lives as long as the run is built
            self.printer.start(self.session)
            await self.converse()
        except NeoCodeError as exc:
            self.printer.json({"type": "error", "message": str(exc)})
            return exc.exit_code
        finally:
            reading.cancel()
            for signum in EXIT_SIGNAL:
                loop.remove_signal_handler(signum)
            await self.session.aclose()
        if self.stopped_by:
            return EXIT_SIGNAL.get(signal.Signals(self.stopped_by[0]), self.last)
        return self.last

    def stop(self, signum: int) -> None:
        self.stopped_by.append(signum)
        self.session.cancel()
        self.queue(_STOP, None)

    def queue(self, rank: int, line: UserLine | None) -> None:
        self.prompts.put_nowait((rank, next(self.arrivals), line))

    async def converse(self) -> None:
        """Each message in turn, until input ends (or a signal stops the run)."""
        while (line := (await self.prompts.get())[2]) is not None and not self.stopped_by:
            await self.answer(line)

    async def answer(self, line: UserLine) -> None:
        text = line.message.text
        command = built_in(text)
        if command is not None:
            shown = await run_as_text(self.session, *command, answer=self.settings.approval == "full-auto")
            self.printer.command(command[0], shown, self.session)
            self.last = EXIT_OK if shown.level == "info" else 1
            return
        try:
            images = await asyncio.to_thread(_images, line)
        except ValueError as exc:
            self.bad_line(str(exc))
            return
        finished = await self.session.prompt(text, images)
        self.last = exit_code(finished, [])
        # Words sent to a run that stopped before a request read them are a message of their own.
        if left := self.session.take_steers():
            self.queue(_FIRST, UserLine(type="user", message=UserMessage(role="user", content="\n\n".join(left))))

    # -- input ----------------------------------------------------------------------------

    async def read(self, lines: BoundedLines) -> None:
        """Every line of stdin: messages queued, answers and control requests handled at
        once (an interrupt reaches the run it stops)."""
        while True:
            try:
                raw = await lines.next()
            except LineTooLong as exc:
                self.line_number += 1
                self.bad_line(str(exc))
                continue
            except OSError as exc:
                self.bad_line(f"stdin cannot be read ({exc.strerror or exc})")
                break
            if raw is None:
                break
            self.line_number += 1
            if raw.strip():
                self.take(raw)
        self.queue(_LAST, None)
        for question in self.questions.values():  # nobody is left to answer
            if not question.done():
                question.set_result("stdin ended before an answer came")

    def take(self, raw: bytes) -> None:
        try:
            line = parse_line(raw)
        except BadLine as exc:
            self.bad_line(str(exc))
            return
        if isinstance(line, UserLine):
            self.user(line)
        elif isinstance(line, ControlResponse):
            self.answered(line)
        else:
            self.control(line)

    def user(self, line: UserLine) -> None:
        """A message in its place: joined to the running turn, first, or in turn."""
        text = line.message.text
        plain = not line.message.images and built_in(text) is None
        if line.priority == "next" and plain and self.session.steer(text) is not None:
            return
        if line.priority == "now":
            self.session.cancel()
            self.queue(_FIRST, line)
            return
        self.queue(_IN_TURN, line)

    def bad_line(self, problem: str) -> None:
        self.printer.json({"type": "input_error", "line": self.line_number, "message": problem})

    def answered(self, line: ControlResponse) -> None:
        body = line.response
        question = self.questions.get(body.request_id)
        if question is None or question.done():
            self.bad_line(f"no open question {body.request_id!r} to answer")
        elif body.subtype == "error" or body.response is None:
            question.set_result(body.error or "the answer held no decision")
        else:
            question.set_result(body.response)

    def control(self, line: ControlRequest) -> None:
        """``interrupt``, ``set_permission_mode``, ``set_model``, ``initialize``: answered
        with a ``control_response`` of the same id."""
        request = line.request
        problem = ""
        if request.subtype == "interrupt":
            self.session.cancel()
        elif request.subtype == "set_permission_mode":
            problem = self.set_mode(request.mode or "")
        elif request.subtype == "set_model":
            if request.model:
                self.session.model = request.model
            else:
                problem = "set_model needs a model"
        body: dict[str, Any] = {"subtype": "success", "request_id": line.request_id, "response": {}}
        if problem:
            body = {"subtype": "error", "request_id": line.request_id, "error": problem}
        self.printer.json({"type": "control_response", "response": body})

    def set_mode(self, mode: str) -> str:
        """The approval mode by Claude Code's name (or NeoCode's); why not, when it cannot be."""
        chosen = PERMISSION_MODES.get(mode, mode)
        if chosen not in PERMISSION_MODES.values():
            return f"no permission mode {mode!r}: the modes are {', '.join(PERMISSION_MODES)}"
        approval: ApprovalMode = chosen  # type: ignore[assignment]
        self.session.approval = approval
        return ""

    # -- questions ------------------------------------------------------------------------

    async def ask(self, request: ApprovalRequested) -> ApprovalDecision:
        """A ``can_use_tool`` control request on stdout, answered by a ``control_response``."""
        body: dict[str, Any] = {
            "subtype": "can_use_tool", "tool_name": request.name, "input": request.arguments,
            "tool_use_id": request.call_id, "summary": request.summary,
        }
        if request.agent:
            body["agent_id"] = request.agent
        answer = await self._request(body)
        if isinstance(answer, str):
            return ApprovalDecision(verdict="no", reason=answer)
        if answer.behavior == "allow":
            return ApprovalDecision(verdict="yes")
        if answer.interrupt:
            self.session.cancel()
        return ApprovalDecision(verdict="no", reason=answer.message)

    async def ask_user(self, asked: UserQuestions) -> Sequence[Reply] | None:
        """The model's questions as Claude Code's hosts get them: ``can_use_tool`` for
        ``AskUserQuestion``, the answers in ``updatedInput``."""
        answer = await self._request({
            "subtype": "can_use_tool", "tool_name": TOOL_NAME, "input": question_input(asked),
            "tool_use_id": asked.call_id,
        })
        if not isinstance(answer, str) and answer.interrupt:
            self.session.cancel()
        return replies_of(asked, answer)

    async def _request(self, body: dict[str, Any]) -> Decision | str:
        request_id = next(self.ids)
        question: asyncio.Future[Decision | str] = asyncio.get_running_loop().create_future()
        self.questions[request_id] = question
        self.printer.json({"type": "control_request", "request_id": request_id, "request": body})
        try:
            return await question
        finally:
            del self.questions[request_id]


_STOP, _FIRST, _IN_TURN, _LAST = range(4)
"""Ranks in the queue: a signal's stop, a message sent ``now`` (or words no request read),
one that waits its turn, the end of input."""


def _images(line: UserLine) -> list[Image]:
    """The message's images, decoded and scaled like every other one (in a thread)."""
    images: list[Image] = []
    for number, block in enumerate(line.message.images, 1):
        try:
            images.append(prepare(base64.b64decode(block.source.data, validate=True), f"image {number}"))
        except binascii.Error:
            raise ValueError(f"image {number} is not base64 data") from None
        except ImageError as exc:
            raise ValueError(str(exc)) from None
    return images
