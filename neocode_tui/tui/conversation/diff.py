"""Unified diffs drawn the one way the app draws them: in the conversation and in the
approval dialog alike."""

from __future__ import annotations

from rich.text import Text

from neocode_tui.tui.conversation.palette import Palette


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
        text.append(line, style=style)
        if number < len(lines) - 1:
            text.append("\n")
    return text
