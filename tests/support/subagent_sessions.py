"""A session with subagents, as the subagent tests make one: the parent's prompt, a
``task`` call's arguments and an agent file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.recorder import Recorder

PARENT_PROMPT = "plan the work on the greeting"


def make_session(dialect: Dialect, workspace: Path, **options: Any) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    settings = Settings(provider=dialect.name, approval=options.pop("approval", "ask"))
    front = FrontEnd(listener=recorder, approver=options.pop("approver", None))
    session = AgentSession(settings, workspace, front, provider=dialect.provider(), **options)
    return session, recorder


def task(description: str, prompt: str, agent: str | None = None) -> str:
    arguments = {"description": description, "prompt": prompt}
    if agent:
        arguments["agent"] = agent
    return json.dumps(arguments)


def agent_file(folder: Path, name: str, front: str, body: str = "You check things.") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(f"---\nname: {name}\n{front}\n---\n{body}\n")
