"""Agent sessions whose MCP servers are up, and the tools a request offered the model."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.model import Settings
from tests.support.dialects import API_KEY, Dialect
from tests.support.recorder import Recorder
from tests.support.sessions import recorded_session


async def no_questions(request: ApprovalRequested) -> ApprovalDecision:
    raise AssertionError(f"{request.name} asked for approval")


async def open_session(
    dialect: Dialect, workspace: Path, approval: str = "ask", approver=no_questions
) -> tuple[AgentSession, Recorder]:
    """A session whose servers are up, as in the app, which starts them when it opens."""
    settings = Settings(provider=dialect.name, approval=approval, openai_api_key=API_KEY)
    session, recorder = recorded_session(dialect, workspace, settings, approver=approver)
    session.mcp.start()
    await session.mcp.wait_ready()
    return session, recorder


def offered(dialect: Dialect, number: int) -> dict[str, dict]:
    """Tool name -> its parameters, as sent in request ``number``."""
    tools = dialect.request(number).get("tools", [])
    if dialect.name == "openai":
        return {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    return {t["name"]: t["input_schema"] for t in tools}
