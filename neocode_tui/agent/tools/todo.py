"""``todo_write``: the model sets its task list, which the user sees pinned above the input."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from neocode_tui.agent.session import MAX_TODOS, Todo, todo_counts
from neocode_tui.agent.tools.base import OutputCallback, Tool, ToolOutput
from neocode_tui.agent.workspace import Workspace

Changed = Callable[[list[Todo]], None]


class TodoArgs(BaseModel):
    todos: list[Todo] = Field(max_length=MAX_TODOS)


class TodoWrite(Tool[TodoArgs]):
    """Reads and writes nothing on disk, so it runs in every mode without asking."""

    name = "todo_write"
    description = (
        "Replace your task list, which the user sees while you work: every item with its "
        "status (pending, in_progress, completed). Use it for tasks of three steps or more; "
        "keep one item in_progress and mark each completed as soon as it is done."
    )
    kind = "read"
    args_model = TodoArgs

    def __init__(self, changed: Changed) -> None:
        self.changed = changed

    def summary(self, args: Mapping[str, Any]) -> str:
        todos = args.get("todos")
        return f"task list ({len(todos)} items)" if isinstance(todos, list) else "task list"

    async def run(
        self, args: TodoArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        self.changed(list(args.todos))
        return ToolOutput(f"The task list is updated: {todo_counts(args.todos)}.")
