"""The agent's tools, and the registry the loop looks them up in by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from neocode_tui.agent.tools.ask import Asker, AskOption, AskQuestion, AskUser, Reply, UserQuestions, reply_of
from neocode_tui.agent.tools.base import (
    Confinement,
    FileTool,
    OutputCallback,
    Tool,
    ToolError,
    ToolKind,
    ToolOutput,
)
from neocode_tui.agent.tools.bash import Bash
from neocode_tui.agent.tools.edit import EditFile, WriteFile
from neocode_tui.agent.tools.files import ListDir, ReadFile
from neocode_tui.agent.tools.jobs import BashOutput, KillBash
from neocode_tui.agent.tools.search import Glob, Grep
from neocode_tui.agent.tools.skill import SkillFolders, UseSkill
from neocode_tui.agent.tools.web import WebFetch
from neocode_tui.chat import ToolSpec

__all__ = [
    "Confinement", "FileTool", "OutputCallback", "Tool", "ToolError", "ToolKind", "ToolOutput",
    "AskOption", "AskQuestion", "AskUser", "Asker", "Reply", "UserQuestions", "reply_of",
    "MAX_TOOLS", "SkillFolders", "UseSkill", "ToolNamed", "ToolRegistry", "ToolSource", "default_tools",
]

ToolNamed = Callable[[str], "Tool[Any] | None"]
"""A registry's tool by name, as a front end looks one up (None: there is none)."""

MAX_TOOLS = 128
"""Tools in one request, built-in ones included: OpenAI refuses more, and every definition
is sent with every request."""


class ToolSource(Protocol):
    """Tools that come and go while a session runs (an MCP server's)."""

    room: int
    """How many tools it may offer at a request: what the built-in tools (and the sources
    added before it) leave of ``MAX_TOOLS``, set by the registry."""

    def tools(self) -> Iterable[Tool[Any]]:
        """The tools to offer at this request: ``room`` at most."""
        ...

    def find(self, name: str) -> Tool[Any] | None:
        """A tool by name, also one not offered right now, so a call gets its own error."""
        ...


class ToolRegistry:
    """The built-in tools, plus whatever the sources offer at each request."""

    def __init__(self, tools: Iterable[Tool[Any]], sources: Iterable[ToolSource] = ()) -> None:
        """``sources``: in the order they share what the tools leave of the room."""
        self._tools = {tool.name: tool for tool in tools}
        self._specs = [tool.spec() for tool in self._tools.values()]  # sent every turn
        self._sources: list[ToolSource] = []
        for source in sources:
            self.add_source(source)

    def add(self, tool: Tool[Any]) -> None:
        """One more built-in tool (before any source is added: they get what is left)."""
        self._tools[tool.name] = tool
        self._specs = [tool.spec() for tool in self._tools.values()]

    def add_source(self, source: ToolSource) -> None:
        taken = len(self._tools) + sum(earlier.room for earlier in self._sources)
        source.room = max(MAX_TOOLS - taken, 0)
        self._sources.append(source)

    def get(self, name: str) -> Tool[Any] | None:
        tool = self._tools.get(name)
        for source in self._sources:
            if tool is not None:
                break
            tool = source.find(name)
        return tool

    @property
    def names(self) -> list[str]:
        return [*self._tools, *(tool.name for tool in self._offered())]

    def specs(self) -> list[ToolSpec]:
        return [*self._specs, *(tool.spec() for tool in self._offered())]

    def _offered(self) -> list[Tool[Any]]:
        return [tool for source in self._sources for tool in source.tools()]


def default_tools(
    bash: Bash | None = None, web_fetch: WebFetch | None = None, *,
    more: Iterable[Tool[Any]] = (), sources: Iterable[ToolSource] = (),
) -> ToolRegistry:
    """The built-in tools (``bash`` and ``web_fetch`` as the session sets them up), then
    ``more`` of the session's own, then the ``sources``."""
    bash = bash or Bash()  # its background commands are what the two after it read and stop
    skills = bash.skills  # what skill opens, read_file reads and the sandbox shows
    return ToolRegistry(
        [ReadFile(skills), ListDir(), Glob(), Grep(), WriteFile(), EditFile(), bash,
         BashOutput(bash.jobs), KillBash(bash.jobs), web_fetch or WebFetch(), UseSkill(skills), *more],
        sources,
    )
