"""The ``lsp`` tool's questions to a server, and its answers in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from neocode_tui.agent.lsp.server import LanguageServer
from neocode_tui.agent.lsp.words import diagnostics_lines, hover_text, locations_lines, symbols_lines, utf16_column
from neocode_tui.agent.tools import ToolError


async def answer(server: LanguageServer, path: Path, text: str, operation: str, place: tuple[int, int],
                 root: Path, shown: str) -> str:
    """What ``server`` says about ``path`` (its content ``text``) for ``operation`` at the
    1-based (line, column) ``place``; ``shown``: how the file is named to the model."""
    server.show(path, text)
    if operation == "diagnostics":
        lines = diagnostics_lines(await server.diagnostics(path), shown)
        return "\n".join(lines) or f"{shown}: no problems found by {server.name}"
    document = types.TextDocumentIdentifier(uri=path.as_uri())
    if operation == "symbols":
        symbols = await server.request(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
                                       types.DocumentSymbolParams(text_document=document))
        return "\n".join(symbols_lines(symbols)) or f"{shown}: no symbols"
    position = _position(text, *place)
    where = f"{shown}:{place[0]}:{place[1]}"
    if operation == "hover":
        hover = await server.request(types.TEXT_DOCUMENT_HOVER,
                                     types.HoverParams(text_document=document, position=position))
        return hover_text(hover) or f"nothing known at {where}"
    params: Any
    if operation == "references":
        method = types.TEXT_DOCUMENT_REFERENCES
        params = types.ReferenceParams(context=types.ReferenceContext(include_declaration=True),
                                       text_document=document, position=position)
    else:
        method = types.TEXT_DOCUMENT_DEFINITION
        params = types.DefinitionParams(text_document=document, position=position)
    return "\n".join(locations_lines(await server.request(method, params), root)) or f"no {operation} found at {where}"


def _position(text: str, line: int, column: int) -> types.Position:
    lines = text.splitlines()
    if line > max(len(lines), 1):
        raise ToolError(f"line {line} is past the end of the file ({len(lines)} lines)")
    content = lines[line - 1] if lines else ""
    return types.Position(line=line - 1, character=utf16_column(content, column))
