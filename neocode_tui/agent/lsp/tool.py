"""``lsp``: what the language server knows about a place in a file: its diagnostics, where a
name is defined, where it is used, what it is (hover), and the file's symbols."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.lsp.servers import LanguageServers
from neocode_tui.agent.tools import Tool, ToolError, ToolOutput
from neocode_tui.agent.tools.base import Deadline, OutputCallback, capped, in_thread
from neocode_tui.agent.tools.text import read_text
from neocode_tui.agent.workspace import Workspace
from neocode_tui.deferred import lazy

if TYPE_CHECKING:
    from neocode_tui.agent.lsp import questions
else:  # lsprotocol's types load with the first question
    questions = lazy("neocode_tui.agent.lsp.questions")

Operation = Literal["diagnostics", "definition", "references", "hover", "symbols"]
AT_PLACE = ("definition", "references", "hover")


class LspArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    operation: Operation = Field(description="diagnostics (the file's errors and warnings), definition, "
                                 "references, hover (type and docs), or symbols (the file's outline).")
    path: str = Field(description="File path, relative to the workspace root.")
    line: int = Field(1, ge=1, description="1-based line (definition, references, hover).")
    column: int = Field(1, ge=1, description="1-based column of a character of the name.")


class LspTool(Tool[LspArgs]):
    name = "lsp"
    kind = "read"
    args_model = LspArgs
    description = (
        "Ask the language server about a file: diagnostics, or at path:line:column the definition, "
        "references or hover of the name there, or the file's symbols. Places are 1-based."
    )

    def __init__(self, servers: LanguageServers) -> None:
        self.servers = servers

    def summary(self, args: Mapping[str, Any]) -> str:
        at_place = args.get("operation") in AT_PLACE and "line" in args
        place = f":{args['line']}:{args.get('column', 1)}" if at_place else ""
        return f"{args.get('operation', '')} {args.get('path', '')}{place}".strip()

    def touches(self, args: LspArgs, workspace: Workspace) -> list[Path]:
        return [workspace.resolve(args.path)]

    async def run(self, args: LspArgs, workspace: Workspace, on_output: OutputCallback | None = None) -> ToolOutput:
        path, text = await in_thread(_read, args, workspace)
        server = await self.servers.for_file(path)
        said = await questions.answer(server, path, text, args.operation, (args.line, args.column),
                                      self.servers.root, workspace.relative(path))
        return capped(ToolOutput(said))


def _read(args: LspArgs, workspace: Workspace, deadline: Deadline) -> tuple[Path, str]:
    path = workspace.resolve(args.path)
    shown = workspace.relative(path)
    if not path.is_file():
        raise ToolError(f"{shown} is not a file")
    return path, read_text(workspace, path, shown, deadline)
