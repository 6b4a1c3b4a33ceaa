"""Rich's ``Syntax`` for code in answers, drawing each highlighted line once.

An open code fence is highlighted again every frame as it grows, and a chunk of it again when
it settles, yet almost every line it draws is one already drawn: the same text in the same
colours at the same width. Laying such a line out (wrapping, padding, cutting it into
segments) was about half a code chunk's cost. The whole code is still lexed and coloured every
time, so a later line that recolours earlier ones (an unclosed string, a block comment) is
drawn as Rich draws it; only the layout of a line whose text, colours and layout options are
all unchanged is reused. What is drawn is exactly what Rich draws.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.syntax import Syntax

DRAWN_LINES = 4_096
"""Laid-out lines kept (least recently used go first): a few screens of code."""

drawn_lines: dict[tuple[object, ...], list[list[Segment]]] = {}
"""Each line's layout by everything it depends on, least recently used first."""
_NEW_LINE = Segment("\n")


class CodeSyntax(Syntax):
    """``Syntax`` with word wrap, without line numbers, indent guides or a line range."""

    def _get_syntax(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        if self.line_numbers or self.indent_guides or self.line_range or not self.word_wrap:
            yield from super()._get_syntax(console, options)
            return
        pad = not self._get_base_style().transparent_background
        _, pad_right, _, pad_left = self.padding
        code_width = max(0, options.max_width - pad_left - pad_right)
        ends_on_nl, code = self._process_code(self.code)
        text = self.highlight(code)
        background = self._get_number_styles(console)[0]
        line_options = options.update(width=code_width).update(height=None, justify="left")
        # Every input of the layout below: the options, the pad style, the line's own attributes.
        shared = (id(console), pad, background, *vars(line_options).values())
        for line in text.split("\n", allow_blank=ends_on_nl):
            key = (
                line.plain, tuple(line.spans), line.style, line.justify, line.overflow,
                line.no_wrap, line.end, line.tab_size, *shared,
            )
            wrapped = drawn_lines.pop(key, None)
            if wrapped is None:
                wrapped = console.render_lines(line, line_options, style=background, pad=pad)
                if len(drawn_lines) >= DRAWN_LINES:
                    del drawn_lines[next(iter(drawn_lines))]
            drawn_lines[key] = wrapped
            for wrapped_line in wrapped:
                yield from wrapped_line
                yield _NEW_LINE
