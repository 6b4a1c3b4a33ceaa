"""The agent's tools, and the registry the loop looks them up in by name."""

from __future__ import annotations

from collections.abc import Iterable

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
from neocode_tui.agent.tools.search import Glob, Grep
from neocode_tui.chat import ToolSpec

__all__ = [
    "Confinement", "FileTool", "OutputCallback", "Tool", "ToolError", "ToolKind", "ToolOutput", "ToolRegistry",
    "default_tools",
]


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._specs = [tool.spec() for tool in self._tools.values()]  # sent every turn

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return list(self._specs)


def default_tools() -> ToolRegistry:
    return ToolRegistry(
        [ReadFile(), ListDir(), Glob(), Grep(), WriteFile(), EditFile(), Bash()]
    )
