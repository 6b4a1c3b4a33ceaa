"""``ask_user`` in the core and headless: a real session (or a real ``neocode -p``) against the
loopback model, the answers coming from the front end's asker."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.agent.tools import Asker, Reply, UserQuestions
from neocode_tui.settings.model import Settings
from tests.support.calls import QUESTIONS, ask_call
from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import neocode


def session_for(dialect: Dialect, workspace: Path, asker: Asker | None, approval: str = "ask") -> AgentSession:
    settings = Settings(provider=dialect.name, approval=approval, sandbox="off", openai_api_key=API_KEY)
    return AgentSession(settings, workspace, FrontEnd(questions=asker), provider=dialect.provider())


async def test_the_users_picks_and_own_answer_reach_the_model_in_plan_mode_too(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [ask_call()])
    dialect.reply("Going with SQLite.")
    asked: list[UserQuestions] = []

    async def answer(questions: UserQuestions) -> Sequence[Reply]:
        asked.append(questions)
        return [Reply(("SQLite",)), Reply(("Sign-in", "Export"), "an audit log")]

    session = session_for(dialect, workspace, answer, approval="plan")
    finished = await session.prompt("build the app")

    assert finished.final_text == "Going with SQLite."
    [shown] = asked
    assert shown.call_id == "q1" and [q.question for q in shown.questions] == [q["question"] for q in QUESTIONS]
    assert shown.questions[1].multiSelect and shown.questions[0].options[1].label == "SQLite"
    result = dialect.tool_results(2)["q1"]
    assert '"Which database should the app use?" → SQLite' in result
    assert '"Which parts should come first?" → Sign-in; Export; their own answer: an audit log' in result
    await session.aclose()


async def test_bad_questions_get_a_reason_the_model_can_fix_and_nobody_is_asked(
    openai_only: Dialect, workspace: Path
) -> None:
    one_option = [{"question": "Which?", "options": [{"label": "A"}]}]
    other = [{"question": "Which?", "options": [{"label": "A"}, {"label": "Other"}]}]
    five = [{"question": f"Q{n}?", "options": [{"label": "A"}, {"label": "B"}]} for n in range(5)]
    openai_only.reply("", [ask_call("few", one_option), ask_call("other", other), ask_call("many", five),
                           ("junk", "ask_user", json.dumps({"question": "Which?"}))])
    openai_only.reply("I will decide myself.")
    asked: list[UserQuestions] = []

    async def answer(questions: UserQuestions) -> Sequence[Reply]:
        asked.append(questions)
        return []

    session = session_for(openai_only, workspace, answer)
    await session.prompt("build the app")

    results = openai_only.tool_results(2)
    assert "questions.0.options: List should have at least 2 items" in results["few"]
    assert "leave out an 'Other' option" in results["other"]
    assert "questions: List should have at most 4 items" in results["many"]
    assert "questions: Field required" in results["junk"] and "question: Extra inputs" in results["junk"]
    assert asked == []
    await session.aclose()


async def test_closing_the_questions_tells_the_model_to_go_on_and_a_resume_shows_both(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [ask_call()])
    openai_only.reply("", [ask_call("q2", QUESTIONS[:1])])
    openai_only.reply("Done.")
    answers: list[Sequence[Reply] | None] = [None, [Reply((), "MariaDB, we run it already")]]

    async def answer(_: UserQuestions) -> Sequence[Reply] | None:
        return answers.pop(0)

    session = session_for(openai_only, workspace, answer)
    await session.prompt("build the app")
    assert "closed the questions without answering" in openai_only.tool_results(2)["q1"]
    assert "→ their own answer: MariaDB, we run it already" in openai_only.tool_results(3)["q2"]
    session_id = session.id
    await session.aclose()

    again = session_for(openai_only, workspace, None)
    again.resume(session_id)
    calls = [call for m in again.messages for call in m.tool_calls]
    results = {m.tool_call_id: m.content for m in again.messages if m.role == "tool"}
    assert [c.name for c in calls] == ["ask_user", "ask_user"]
    assert "Which database should the app use?" in calls[1].arguments
    assert "MariaDB, we run it already" in results["q2"]
    await again.aclose()


async def test_headless_refuses_with_a_reason_the_model_acts_on(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("", [ask_call()])
    dialect.reply("I picked SQLite: nobody was there to ask.")
    result = await neocode(dialect, workspace, "-p", "build the app", "--output-format", "stream-json")

    assert result.code == 0, result.err
    refusal = dialect.tool_results(2)["q1"]
    assert refusal.startswith("not asked: nobody is here to answer questions in this run (neocode -p)")
    assert "say which you took" in refusal
    lines = [json.loads(line) for line in result.out.splitlines()]
    ended = [line for line in lines if line.get("type") == "tool_finished" and line.get("name") == "ask_user"]
    assert ended and ended[0]["is_error"] and ended[0]["result"] == refusal
