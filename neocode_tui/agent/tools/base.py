"""What every tool is: a pydantic argument model, a kind, a one-line summary and a run.

The kind decides approval (reads never ask; edits and commands may). ``summary`` takes the
raw argument mapping, not the validated model, so the screen can label a call while its
arguments are still streaming in.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import ToolSpec

ToolKind = Literal["read", "edit", "command"]
ArgsT = TypeVar("ArgsT", bound=BaseModel)
OutputCallback = Callable[[str], None]
"""Receives a running tool's output as it arrives (decoded text, in arrival order)."""


class ToolError(Exception):
    """A failure the model should read and act on: the message becomes the tool result."""


@dataclass(frozen=True)
class ToolOutput:
    text: str
    """Exactly what the model is sent."""
    diff: str | None = None
    is_error: bool = False


class Tool(ABC, Generic[ArgsT]):
    name: str
    description: str
    kind: ToolKind
    args_model: type[ArgsT]

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=_without_titles(self.args_model.model_json_schema()),
        )

    @abstractmethod
    def summary(self, args: Mapping[str, Any]) -> str:
        """One line for the screen, tolerant of missing keys (arguments may be partial)."""

    def command(self, args: ArgsT) -> str | None:
        """The shell command to show in full when asking for approval, if any."""
        return None

    async def preview(self, args: ArgsT, workspace: Workspace) -> str | None:
        """The diff a run would make, computed before asking; ``ToolError`` if it would fail."""
        return None

    @abstractmethod
    async def run(
        self, args: ArgsT, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput: ...


class FileTool(Tool[ArgsT]):
    """A tool whose work is plain file IO, done in a thread so a large file never stalls
    the event loop (and the screen with it). It is quick: no live output."""

    @abstractmethod
    def run_sync(self, args: ArgsT, workspace: Workspace) -> ToolOutput: ...

    async def run(
        self, args: ArgsT, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        work = asyncio.ensure_future(asyncio.to_thread(self.run_sync, args, workspace))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            # A thread cannot be stopped: let the (short) file work land before the cancel
            # goes on, so nothing is still writing once the run reports it stopped.
            await asyncio.wait({work})
            raise


def _without_titles(schema: Any) -> Any:
    """Pydantic's generated ``title`` strings cost tokens and tell the model nothing."""
    if isinstance(schema, dict):
        return {
            key: _without_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema
