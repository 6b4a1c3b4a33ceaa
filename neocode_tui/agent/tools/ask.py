"""``ask_user``: the model puts one to four multiple-choice questions to the user.

The arguments follow Claude Code's ``AskUserQuestion`` (``questions``, each with
``question``, ``header``, ``options`` of ``label`` and ``description``, ``multiSelect``), so
a model used to it calls this one right the first time; every question also takes a free
answer ("other"). Who asks is the front end's (``Asker``): a dialog, an editor's permission
request, or nobody, which the model is told plainly so it can decide for itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from neocode_tui.agent.call_context import CURRENT_CALL
from neocode_tui.agent.tools.base import OutputCallback, Tool, ToolError, ToolOutput
from neocode_tui.agent.workspace import Workspace

MAX_QUESTIONS, MIN_OPTIONS, MAX_OPTIONS = 4, 2, 6
MAX_OTHER = 2_000
"""Characters of a free answer the model is sent."""
NOBODY_TO_ASK = (
    "not asked: nobody is here to answer questions in this run (neocode -p). Decide yourself "
    "with the most sensible choice and say which you took in your answer, or, if you cannot "
    "go on without the user, stop and list your questions in your final answer."
)
DISMISSED = (
    "The user closed the questions without answering. Do not ask the same again: go on with "
    "the most sensible choice and say which you took, or ask in your answer."
)


class AskOption(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1, max_length=60, description="What the user picks: 1-5 words.")
    description: str = Field("", max_length=300, description="What picking it means.")


class AskQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=1_000, description="The whole question, ending with '?'.")
    header: str = Field("", max_length=12, description="A very short tag for it: 'Database', 'Auth'.")
    options: list[AskOption] = Field(min_length=MIN_OPTIONS, max_length=MAX_OPTIONS)
    multiSelect: bool = Field(False, description="True: the user may pick several.")  # noqa: N815 (Claude Code's name)

    @model_validator(mode="after")
    def _distinct(self) -> AskQuestion:
        labels = [option.label.strip().casefold() for option in self.options]
        if len(set(labels)) != len(labels):
            raise ValueError("two options have the same label; give each a different one")
        if "other" in labels:
            raise ValueError("leave out an 'Other' option: the user can always type their own answer")
        return self


class AskArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    questions: list[AskQuestion] = Field(min_length=1, max_length=MAX_QUESTIONS)

    @model_validator(mode="after")
    def _distinct(self) -> AskArgs:
        asked = [question.question.strip().casefold() for question in self.questions]
        if len(set(asked)) != len(asked):
            raise ValueError("the same question is asked twice")
        return self


@dataclass(frozen=True)
class Reply:
    """The user's answer to one question: the labels picked, and what they typed."""

    picked: tuple[str, ...] = ()
    other: str = ""


@dataclass(frozen=True)
class UserQuestions:
    """The questions of one call, as the front end shows them (scrubbed)."""

    call_id: str
    questions: tuple[AskQuestion, ...]
    turn: int = 0
    index: int = 0
    """The call's place in its assistant message (front ends key their panels by it)."""


Asker = Callable[[UserQuestions], Awaitable[Sequence[Reply] | None]]
"""Asks the user; the replies in the questions' order, or None when they closed the questions.
Raises ``ToolError`` with the reason when the user cannot be asked there."""


class AskUser(Tool[AskArgs]):
    """Reads nothing and changes nothing: it runs in plan mode and never asks for approval."""

    name = "ask_user"
    description = (
        "Ask the user one to four multiple-choice questions when a decision is theirs (which "
        "approach, which library, what a requirement means) and you cannot find the answer "
        "yourself. Each question has 2-6 options with a short label and a description; put "
        "the option you recommend first and add '(Recommended)' to its label. The user may "
        "always type their own answer instead, so do not add an 'Other' option. "
        "multiSelect: true when several options may be picked together."
    )
    kind = "read"
    args_model = AskArgs

    def __init__(self, asker: Asker | None, scrub: Callable[[str], str], on_ask: Callable[[], None]) -> None:
        """``asker``: the front end's (None: nobody can answer); ``scrub``: what the model
        wrote may quote a key it read, so the screen gets it scrubbed; ``on_ask``: told as
        the user is asked (Notification hooks)."""
        self._asker, self._scrub, self._on_ask = asker, scrub, on_ask

    def summary(self, args: Mapping[str, Any]) -> str:
        questions = args.get("questions")
        if not isinstance(questions, list) or not questions or not isinstance(questions[0], Mapping):
            return "asking you"
        first = questions[0].get("question")
        more = f" (+{len(questions) - 1} more)" if len(questions) > 1 else ""
        return f"{first}{more}" if isinstance(first, str) else "asking you"

    async def run(self, args: AskArgs, workspace: Workspace, on_output: OutputCallback | None = None) -> ToolOutput:
        if self._asker is None:
            return ToolOutput(NOBODY_TO_ASK, is_error=True)
        call = CURRENT_CALL.get()
        questions = tuple(self._scrubbed(q) for q in args.questions)
        shown = (UserQuestions(call.call_id, questions, call.turn, call.index) if call
                 else UserQuestions("", questions))
        self._on_ask()
        replies = await self._asker(shown)
        if replies is None:
            return ToolOutput(DISMISSED)
        if len(replies) != len(args.questions):
            raise ToolError("the questions were not all answered; ask again")
        return ToolOutput(answers_text(args.questions, replies))

    def _scrubbed(self, question: AskQuestion) -> AskQuestion:
        scrub = self._scrub
        return question.model_copy(update={
            "question": scrub(question.question), "header": scrub(question.header),
            "options": [AskOption(label=scrub(o.label), description=scrub(o.description))
                        for o in question.options],
        })


def reply_of(question: AskQuestion, given: str | Sequence[str]) -> Reply:
    """An answer given by a program: a label, several labels (a multi-select question), or
    anything else as the user's own words."""
    said = [given] if isinstance(given, str) else [str(part) for part in given]
    said = [part.strip() for part in said if part.strip()]
    labels = {option.label for option in question.options}
    if said and all(part in labels for part in said) and (question.multiSelect or len(said) == 1):
        return Reply(tuple(said))
    return Reply(other=", ".join(said))


def answers_text(questions: Sequence[AskQuestion], replies: Sequence[Reply]) -> str:
    """What the model is sent: each question with the user's answer, in order."""
    lines = ["The user answered your questions:"]
    for question, reply in zip(questions, replies, strict=True):
        said = [*reply.picked]
        if reply.other.strip():
            said.append(f"their own answer: {reply.other.strip()[:MAX_OTHER]}")
        lines.append(f'- "{question.question}" → {"; ".join(said) if said else "(no answer)"}')
    lines.append("Go on with these answers in mind.")
    return "\n".join(lines)
