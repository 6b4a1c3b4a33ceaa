"""The model's ``ask_user`` questions, put to the editor as permission requests.

A permission request is a list of options the user picks one of, so each question is one
request on the ``ask_user`` call, its options the question's, and "Skip" to leave it. A
multi-select question takes one pick here, and a free answer cannot be typed: the model is
told both. An editor that cannot answer is said to the model as the reason nobody was asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from acp import text_block, tool_content
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from neocode_tui.agent.tools import AskQuestion, Reply, ToolError, UserQuestions
from neocode_tui.cli.acp.commands import Ask

SKIP = "skip"
CANNOT_ASK = (
    "not asked: the editor did not answer the question (it may not show permission "
    "requests). Decide yourself with the most sensible choice and say which you took, or "
    "ask in your answer."
)
ONE_PICK = " (the editor lets the user pick one option only, and type no answer of their own)"


async def ask_editor(asked: UserQuestions, shown_id: Callable[[], str], ask: Ask) -> Sequence[Reply] | None:
    """Each question in turn; None when the user skipped every one."""
    call_id = shown_id()
    replies: list[Reply] = []
    for question in asked.questions:
        answer = await ask(_question_call(call_id, question), _options(question))
        if answer is None:
            raise ToolError(CANNOT_ASK)
        outcome = answer.outcome
        picked = outcome.option_id if isinstance(outcome, AllowedOutcome) else SKIP
        labels = [option.label for option in question.options]
        chosen = labels[int(picked)] if picked.isdigit() and int(picked) < len(labels) else ""
        replies.append(Reply((chosen + (ONE_PICK if question.multiSelect else ""),) if chosen else ()))
    return None if not any(reply.picked for reply in replies) else replies


def _question_call(call_id: str, question: AskQuestion) -> ToolCallUpdate:
    about = "\n".join(f"- **{option.label}**: {option.description}" if option.description else f"- **{option.label}**"
                      for option in question.options)
    return ToolCallUpdate(tool_call_id=call_id, title=question.question, kind="think", status="pending",
                          content=[tool_content(text_block(f"{question.question}\n\n{about}"))])


def _options(question: AskQuestion) -> list[PermissionOption]:
    picks = [PermissionOption(option_id=str(number), name=option.label, kind="allow_once")
             for number, option in enumerate(question.options)]
    return [*picks, PermissionOption(option_id=SKIP, name="Skip", kind="reject_once")]
