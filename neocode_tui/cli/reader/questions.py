"""The questions of a run in words, each naming the keys that answer it: an approval
("press y for yes, n for no") and the model's ``ask_user`` choices by number."""

from __future__ import annotations

from neocode_tui.agent import ApprovalRequested
from neocode_tui.agent.tools import AskQuestion, Reply
from neocode_tui.terminal_text import visible


def approval_words(request: ApprovalRequested) -> str:
    who = f"Subagent {request.agent} asks: " if request.agent else ""
    always = (f", a for yes to {request.session_scope} for the rest of the session"
              if request.session_scope else "")
    return (f"Question: {who}allow {visible(request.name)}: {visible(request.summary)}? "
            f"Press y for yes, n for no{visible(always)}, then Enter.")


def question_words(question: AskQuestion) -> str:
    options = "; ".join(
        f"{number} for {visible(option.label)}" + (f" ({visible(option.description)})" if option.description else "")
        for number, option in enumerate(question.options, 1))
    several = "one or more numbers separated by commas" if question.multiSelect else "a number"
    return (f"Question: {visible(question.question)} Press {options}. Type {several}, or your own "
            "answer, then Enter; an empty line declines.")


def replies(question: AskQuestion, said: str) -> Reply:
    """The options picked by number; anything else is the user's own answer."""
    words = [word.strip() for word in said.split(",")] if question.multiSelect else [said.strip()]
    if all(word.isdigit() and 1 <= int(word) <= len(question.options) for word in words):
        return Reply(picked=tuple(question.options[int(word) - 1].label for word in words))
    return Reply(other=said.strip())
