"""What a language server answers, as the plain lines the model reads: 1-based
``path:line:col``, errors first, everything bounded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types

MAX_DIAGNOSTICS = 20
MAX_LOCATIONS = 50
MAX_MESSAGE = 300
MAX_HOVER = 4000
SEVERITIES = {types.DiagnosticSeverity.Error: "error", types.DiagnosticSeverity.Warning: "warning",
              types.DiagnosticSeverity.Information: "info", types.DiagnosticSeverity.Hint: "hint"}


def utf16_column(line: str, column: int) -> int:
    """LSP's character offset (UTF-16 code units) of the 1-based ``column`` in ``line``."""
    return len(line[: max(column - 1, 0)].encode("utf-16-le")) // 2


def shown_path(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def diagnostics_lines(diagnostics: Sequence[types.Diagnostic], shown: str, *, errors_only: bool = False) -> list[str]:
    """One line per diagnostic, errors first, at most ``MAX_DIAGNOSTICS`` (and how many more)."""
    chosen = [item for item in diagnostics
              if not errors_only or (item.severity or types.DiagnosticSeverity.Error) == types.DiagnosticSeverity.Error]
    chosen.sort(key=lambda item: (item.severity or 1, item.range.start.line, item.range.start.character))
    lines = []
    for item in chosen[:MAX_DIAGNOSTICS]:
        severity = SEVERITIES.get(item.severity or types.DiagnosticSeverity.Error, "error")
        source = f" [{item.source}]" if item.source else ""
        message = " ".join(item.message.split())[:MAX_MESSAGE]
        start = item.range.start
        lines.append(f"{shown}:{start.line + 1}:{start.character + 1}: {severity}: {message}{source}")
    if len(chosen) > MAX_DIAGNOSTICS:
        lines.append(f"... and {len(chosen) - MAX_DIAGNOSTICS} more")
    return lines


def locations_lines(answer: Any, root: Path) -> list[str]:
    """``Location``, ``LocationLink`` or a list of them, one ``path:line:col`` each."""
    items = list(answer) if isinstance(answer, (list, tuple)) else [answer] if answer is not None else []
    lines = []
    for item in items[:MAX_LOCATIONS]:
        uri, start = (item.target_uri, item.target_selection_range.start) if isinstance(item, types.LocationLink) \
            else (item.uri, item.range.start)
        lines.append(f"{_uri_path(uri, root)}:{start.line + 1}:{start.character + 1}")
    if len(items) > MAX_LOCATIONS:
        lines.append(f"... and {len(items) - MAX_LOCATIONS} more")
    return lines


def hover_text(answer: types.Hover | None) -> str:
    if answer is None:
        return ""
    contents = answer.contents
    parts: list[Any] = list(contents) if isinstance(contents, (list, tuple)) else [contents]
    texts = [part if isinstance(part, str) else str(getattr(part, "value", "")) for part in parts]
    return "\n".join(text.strip() for text in texts if text.strip())[:MAX_HOVER]


def symbols_lines(answer: Any, depth: int = 0) -> list[str]:
    """``DocumentSymbol`` trees (indented) or ``SymbolInformation`` lists."""
    lines: list[str] = []
    for item in answer or []:
        kind = types.SymbolKind(item.kind).name.lower() if item.kind else "symbol"
        start = item.selection_range.start if isinstance(item, types.DocumentSymbol) else item.location.range.start
        lines.append(f"{'  ' * depth}{kind} {item.name} (line {start.line + 1})")
        if isinstance(item, types.DocumentSymbol) and item.children:
            lines += symbols_lines(item.children, depth + 1)
    return lines[:MAX_LOCATIONS * 4]


def _uri_path(uri: str, root: Path) -> str:
    if not uri.startswith("file://"):
        return uri
    return shown_path(Path(unquote(urlparse(uri).path)), root)
