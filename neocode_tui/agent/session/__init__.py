"""One conversation with the agent, whichever front end drives it: the session, its file, title,
side work and the tools whose state is its own."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.session.agent_session import AgentSession
    from neocode_tui.agent.session.front_end import FrontEnd
    from neocode_tui.agent.session.side_work import SideWork
    from neocode_tui.agent.session.status_json import status_data
    from neocode_tui.agent.session.system_prompt import PLAN_LEFT, PLAN_MODE, build_system_prompt
    from neocode_tui.agent.session.todos import MAX_TODOS, Todo, current_todo, todo_counts

__all__ = [
    "current_todo",
    "AgentSession",
    "FrontEnd",
    "MAX_TODOS",
    "PLAN_LEFT",
    "PLAN_MODE",
    "SideWork",
    "Todo",
    "build_system_prompt",
    "status_data",
    "todo_counts",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "agent_session": ("AgentSession",),
        "front_end": ("FrontEnd",),
        "side_work": ("SideWork",),
        "status_json": ("status_data",),
        "system_prompt": ("PLAN_LEFT", "PLAN_MODE", "build_system_prompt",),
        "todos": ("MAX_TODOS", "Todo", "current_todo", "todo_counts"),
    })
