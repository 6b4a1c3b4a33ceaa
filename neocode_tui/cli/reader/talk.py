"""The plain-line conversation: prompts read a line at a time from the terminal (which
echoes what is typed), what happens said by the ``Announcer``, questions asked in words.

``?`` on a line of its own reads the status bar as one line; Ctrl+C stops a run (when
idle it quits, as Ctrl+D does); a line typed while the agent works waits for the turn's
end, unless a question is open, which it answers.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Sequence
from pathlib import Path

from neocode_tui.agent import ApprovalDecision, ApprovalRequested
from neocode_tui.agent.commands import run_as_text
from neocode_tui.agent.permissions import RunOptions
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.agent.tools import Reply, UserQuestions
from neocode_tui.cli.headless import EXIT_OK, built_in, open_session
from neocode_tui.cli.lines import BoundedLines, LineTooLong, stdin_lines
from neocode_tui.cli.reader.announce import Announcer
from neocode_tui.cli.reader.questions import approval_words, question_words, replies
from neocode_tui.cli.reader.status import status_words
from neocode_tui.deferred import resume_collections
from neocode_tui.errors import NeoCodeError
from neocode_tui.settings import Settings
from neocode_tui.terminal_text import visible

STATUS_KEY = "?"
MAX_LINE = 1 << 20
"""Bytes of one typed line (a paste included)."""
HELLO = ("NeoCode, screen reader mode. Type a message and press Enter. "
         f"Type {STATUS_KEY} and Enter for the status, Control C to stop a run, Control D to quit.")


async def run_reader(args: argparse.Namespace, settings: Settings, options: RunOptions) -> int:
    return await Reader(args, settings, options).run()


class Reader:
    def __init__(self, args: argparse.Namespace, settings: Settings, options: RunOptions) -> None:
        self.args, self.settings = args, settings
        self.announcer = Announcer(lambda name: self.session.loop.tools.get(name), self.say)
        front = FrontEnd(listener=self.announcer.event, approver=self.approve, questions=self.ask,
                         stop_key=lambda: "Control C")
        self.session = AgentSession(settings, Path.cwd(), front, trusted=args.trust, run=options)
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.answer: asyncio.Future[str | None] | None = None
        """The open question's answer, while one is asked."""
        self.running = False
        self.quit = False

    def say(self, text: str) -> None:
        print(text, flush=True)

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self.interrupt)
        reading = asyncio.create_task(self.read(await stdin_lines(MAX_LINE)))
        try:
            await open_session(self.session, self.args, self.settings, None)
            resume_collections()
            self.say(HELLO)
            await self.converse()
        except NeoCodeError as exc:
            self.say(f"Error: {visible(str(exc))}")
            return exc.exit_code
        finally:
            reading.cancel()
            loop.remove_signal_handler(signal.SIGINT)
            await self.session.aclose()
        return EXIT_OK

    def interrupt(self) -> None:
        if self.running:
            self.session.cancel()
        else:
            self.quit = True
            self.lines.put_nowait(None)

    async def read(self, lines: BoundedLines) -> None:
        while True:
            try:
                raw = await lines.next()
            except (LineTooLong, OSError) as exc:
                self.say(f"Error: {exc}")
                continue
            text = None if raw is None else raw.decode("utf-8", errors="replace").rstrip("\r")
            if self.answer is not None and not self.answer.done():
                self.answer.set_result(text)
            elif text is not None and text.strip() == STATUS_KEY:
                self.say(status_words(self.session))
            else:
                if text is not None and self.running:
                    self.say("Queued for after this turn.")
                self.lines.put_nowait(text)
            if raw is None:
                return

    async def converse(self) -> None:
        if self.args.initial_prompt:
            await self.turn(self.args.initial_prompt)
        while not self.quit:
            self.say("Your message:")
            text = await self.lines.get()
            if text is None:
                break
            if text.strip():
                await self.turn(text)

    async def turn(self, text: str) -> None:
        self.running = True
        try:
            command = built_in(text)
            if command is not None:
                shown = await run_as_text(self.session, *command, answer=False)
                self.say(visible(shown.text))
            else:
                await self.session.prompt(text)
        finally:
            self.running = False

    async def hear(self, question: str) -> str | None:
        """One line in answer to ``question``; None when input ended."""
        self.say(question)
        self.answer = asyncio.get_running_loop().create_future()
        try:
            return await self.answer
        finally:
            self.answer = None

    async def approve(self, request: ApprovalRequested) -> ApprovalDecision:
        while True:
            said = await self.hear(approval_words(request))
            word = (said or "n").strip().lower()
            if word in ("y", "yes"):
                return ApprovalDecision(verdict="yes")
            if word in ("a", "always") and request.session_scope:
                return ApprovalDecision(verdict="session")
            if word in ("n", "no"):
                return ApprovalDecision(verdict="no", reason="the user said no")
            self.say(f"Not an answer: {visible(word)}.")

    async def ask(self, asked: UserQuestions) -> Sequence[Reply] | None:
        answers: list[Reply] = []
        for question in asked.questions:
            said = await self.hear(question_words(question))
            if said is None or not said.strip():
                return None
            answers.append(replies(question, said))
        return answers

