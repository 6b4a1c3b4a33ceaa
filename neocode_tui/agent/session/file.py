"""The conversation's session file, from the first prompt to the end of the session.

No file is made before the first prompt, so opening and closing the app leaves no empty
session behind. ``/clear`` closes it (the next prompt makes another), ``/resume`` swaps in a
saved one, ``/rewind`` goes on in a new one forked from it. Everything written goes through
``write``: a session that does not save (``save=False``) writes nothing, and neither does
one whose file failed (``SessionStore`` said why, once).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec

from neocode_tui.agent.store import LoadedSession, SessionInfo, SessionStore

if TYPE_CHECKING:
    from neocode_tui.agent.loop import AgentLoop
    from neocode_tui.agent.session.todos import Todo
    from neocode_tui.chat import Message

P = ParamSpec("P")


class SessionFile:
    """The open session file (``store``) and the saved session's id, once there is one."""

    def __init__(self, workspace: Path, loop: AgentLoop, *, save: bool, on_problem: Callable[[str], None]) -> None:
        self._workspace = workspace
        self._loop = loop
        self.save = save
        self._on_problem = on_problem
        self.store: SessionStore | None = None
        self._ended: SessionStore | None = None
        """The file the end of the session closed: whether it saved is still asked."""
        self.id: str | None = None

    @property
    def saving(self) -> bool:
        """The conversation is written to its file (it can be resumed), or was up to the end."""
        store = self.store or self._ended
        return store is not None and store.problem is None

    def ensure(self, fork: tuple[str, int] | None = None) -> bool:
        """Make the file now if there is none and the session saves (from session
        ``fork[0]`` at its prompt ``fork[1]``, for a rewind); True if it was made now."""
        if self.store is not None or not self.save:
            return False
        provider = self._loop.provider
        self.store = SessionStore.create(
            self._workspace, provider=provider.name, model=provider.model, on_problem=self._on_problem,
            forked_from=fork[0] if fork else None, fork_prompt=fork[1] if fork else None,
        )
        self._loop.session = self.store
        self.id = self.store.id
        return True

    def write(self, what: Callable[Concatenate[SessionStore, P], object], *args: P.args, **kwargs: P.kwargs) -> None:
        """``what(store, *args)``, when there is a file to write to."""
        if self.store is not None:
            what(self.store, *args, **kwargs)

    def begin_with(self, messages: list[Message], todos: list[Todo]) -> None:
        """A forked file starts with the history kept, and the task list."""
        store = self.store
        if store is None:
            return
        for message in messages:
            store.append_message(message)
        if todos:
            store.append_todos(todos)

    def close(self) -> None:
        """Close the file; the id stays until the conversation changes (``forget``)."""
        if self.store is not None:
            self.store.close()
            self.store = None
            self._loop.session = None

    def forget(self) -> None:
        """A new conversation starts: the next prompt makes a new file."""
        self.close()
        self.id = None

    def end(self) -> None:
        """The session ends: the file is closed for good."""
        self._ended = self.store
        self.close()

    def resume(self, info: SessionInfo) -> LoadedSession:
        """Open ``info``'s file to go on in it; the current one is closed only once that
        worked (a session busy elsewhere leaves the current one as it was)."""
        if info.id == self.id:
            self.close()  # our own lock would keep us out
        store, loaded = SessionStore.resume(info, on_problem=self._on_problem)
        self.close()
        if not self.save:
            store.close()
        self.store = store if self.save else None
        self._loop.session = self.store
        self.id = loaded.info.id
        return loaded
