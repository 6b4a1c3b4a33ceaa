"""The model's ``ask_user`` questions over stream-json, as Claude Code's SDK hosts answer them.

A host that answers ``can_use_tool`` gets the questions as a call of ``AskUserQuestion``
with Claude Code's input (``questions``), and answers ``allow`` with ``updatedInput`` whose
``answers`` maps each question's text to the label picked (several joined by ``", "``) or to
what the user typed; ``deny`` closes the questions unanswered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from neocode_tui.agent.tools import AskQuestion, Reply, ToolError, UserQuestions, reply_of
from neocode_tui.cli.stream_lines import Decision

TOOL_NAME = "AskUserQuestion"
NOT_ANSWERED = "not asked: the program driving NeoCode could not answer the questions ({why}). " \
    "Decide yourself with the most sensible choice and say which you took."


def question_input(asked: UserQuestions) -> dict[str, Any]:
    """The call's input in Claude Code's words (our arguments are its, field for field)."""
    return {"questions": [question.model_dump() for question in asked.questions]}


def replies_of(asked: UserQuestions, answer: Decision | str) -> Sequence[Reply] | None:
    """The host's answer as the replies in the questions' order; None when it closed them."""
    if isinstance(answer, str):
        raise ToolError(NOT_ANSWERED.format(why=answer))
    if answer.behavior == "deny":
        return None
    answers = (answer.updatedInput or {}).get("answers")
    if not isinstance(answers, Mapping):
        raise ToolError(NOT_ANSWERED.format(why="its answer held no updatedInput.answers"))
    replies = [_reply(question, answers.get(question.question)) for question in asked.questions]
    return replies if any(reply.picked or reply.other for reply in replies) else None


def _reply(question: AskQuestion, given: object) -> Reply:
    if not isinstance(given, str):
        return Reply()
    labels = [part.strip() for part in given.split(",")] if question.multiSelect else [given]
    reply = reply_of(question, labels)
    return Reply(other=given.strip()) if reply.other else reply
