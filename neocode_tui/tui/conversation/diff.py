"""Unified diffs drawn the one way the app draws them: in the conversation and in the
approval dialog alike."""

from __future__ import annotations

from rich.text import Text

from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.palette import Palette


def diff_of(diff: str, palette: Palette) -> Text:
    """A whole diff drawn: shown escaped before it is split, so a CRLF stays a line end."""
    return diff_text(visible(diff).splitlines(), palette)


def diff_text(lines: list[str], palette: Palette) -> Text:
    """Each line coloured by its kind: file headers, hunk headers, added, removed, context."""
    text = Text()
    for number, line in enumerate(lines):
        if line.startswith(("+++", "---")):
            style = f"bold {palette.muted}"
        elif line.startswith("+"):
            style = palette.success
        elif line.startswith("-"):
            style = palette.error
        elif line.startswith("@@"):
            style = palette.primary
        else:
            style = palette.foreground
        text.append(visible(line), style=style)
        if number < len(lines) - 1:
            text.append("\n")
    return text
