"""The agent's task list: what it means to do, item by item, as it last said with ``todo_write``.

The model replaces the whole list at each call (it never edits one item), so the list is
always exactly what it last sent: the screen pins it, stream-json and ACP send it whole,
and the session file keeps each version, so a resumed session shows the last one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TodoStatus = Literal["pending", "in_progress", "completed"]
MAX_TODOS = 100
"""Items in one list: enough for any plan, few enough to send whole at every change."""
MAX_CONTENT = 500
"""Characters of one item."""


class Todo(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    content: str = Field(min_length=1, max_length=MAX_CONTENT)
    status: TodoStatus


def todo_counts(todos: list[Todo]) -> str:
    """The list in a few words: "2 of 5 done, 1 in progress"."""
    done = sum(todo.status == "completed" for todo in todos)
    running = sum(todo.status == "in_progress" for todo in todos)
    return f"{done} of {len(todos)} done" + (f", {running} in progress" if running else "")


def current_todo(todos: list[Todo]) -> int | None:
    """The index of the item being worked on: the first in progress, else the first pending."""
    for wanted in ("in_progress", "pending"):
        for index, todo in enumerate(todos):
            if todo.status == wanted:
                return index
    return None
