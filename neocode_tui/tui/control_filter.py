"""The last line of defence: no widget's line reaches the terminal with a control in it.

What the app draws from the model, tools, files and servers is shown escaped where it is
drawn (``terminal_text.visible``), so it is laid out as it will look. Textual writes every
segment's text to the terminal as it is, though, so anything that slipped past that (a
Textual widget showing text of its own, a path not thought of) would reach the terminal as
a live escape sequence. This filter runs on every line of every widget after layout and
takes any control character out; they take no cell, so nothing moves.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from neocode_tui.terminal_text import has_controls, without_controls


class ControlFilter(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not has_controls("".join([segment.text for segment in segments])):
            return segments
        cleaned = [
            Segment(without_controls(text), style, control) for text, style, control in segments
        ]
        return [segment for segment in cleaned if segment.text or segment.control]
