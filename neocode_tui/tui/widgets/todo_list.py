"""The agent's task list, pinned above the input: it stays in view however far the
conversation scrolls. While the agent works it lists the items around the current one
(highlighted); once the agent is done, or when all is done, it folds to a one-line count.
A click folds or unfolds it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.content import Content
from textual.widgets import Static

from neocode_tui.deferred import lazy
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.agent import session
    from neocode_tui.agent.session import Todo
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    session = lazy("neocode_tui.agent.session")

MARKS = {"completed": "✔", "in_progress": "▶", "pending": "○"}
STYLES = {"completed": "dim strike", "in_progress": "bold $accent", "pending": ""}


class TodoList(Static):
    DEFAULT_CSS = """
    TodoList {
        display: none;
        height: auto;
        padding: 0 1;
        border-top: hkey $primary 40%;
    }
    TodoList.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.todos: list[Todo] = []
        self.working = False
        self.unfolded: bool | None = None
        """The user's choice by a click; None: folded exactly when the agent is not working."""

    @property
    def folded(self) -> bool:
        if self.unfolded is not None:
            return not self.unfolded
        return not self.working or all(todo.status == "completed" for todo in self.todos)

    def show(self, todos: list[Todo]) -> None:
        self.todos = todos
        self._draw()

    def set_working(self, working: bool) -> None:
        self.working, self.unfolded = working, None
        self._draw()

    def on_click(self, _: events.Click) -> None:
        self.unfolded = self.folded
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        self.set_class(bool(self.todos), "-shown")
        if not self.todos:
            return
        at = session.current_todo(self.todos)
        head = Content.assemble(("Tasks ", "bold $accent"), (session.todo_counts(self.todos), "$text-muted"))
        if self.folded:
            now = f" · now: {_line(self.todos[at].content)}" if at is not None else ""
            self.update(Content.assemble("▸ ", head, (now, "italic")))
            return
        room = max(self.app.size.height // 4 - 1, 3)
        start = min(max((at or 0) - 1, 0), max(len(self.todos) - room, 0))
        shown = self.todos[start : start + room]
        lines = [Content.assemble("▾ ", head)]
        if start:
            lines.append(Content.styled(f"  … {start} above", "dim"))
        lines += [
            Content.assemble(f"  {MARKS[todo.status]} ", (_line(todo.content), STYLES[todo.status]))
            for todo in shown
        ]
        if (below := len(self.todos) - start - len(shown)) > 0:
            lines.append(Content.styled(f"  … {below} more", "dim"))
        self.update(Content("\n").join(lines))


def _line(text: str) -> str:
    """One line of an item: the model's text, escaped, its line breaks as spaces."""
    return " ".join(visible(text).split())
