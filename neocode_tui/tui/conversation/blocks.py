"""The items a conversation is made of, each able to describe itself as a Rich renderable.

A block knows its content and how it looks; the view decides when to render it into lines
and caches those lines. A block that can still change (the open Markdown tail, a tool call
whose arguments are streaming) bumps ``version`` so the view redraws it; every other block is
drawn once per width and theme.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.segment import Segment
from rich.text import Text

from neocode_tui.agent import Call, CallStatus
from neocode_tui.agent.processes import seconds
from neocode_tui.live_output import LiveTail
from neocode_tui.partial_json import GrowingText, PartialField, PartialJSON
from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.background import Backgrounded, output_so_far
from neocode_tui.tui.conversation.diff import diff_text
from neocode_tui.tui.conversation.markdown_split import CodeChunk, Piece
from neocode_tui.tui.conversation.palette import Palette
from neocode_tui.tui.widgets import attachment_lines
from neocode_tui.vocabulary import NoticeLevel

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.syntax import Syntax

    from neocode_tui.tui.attachments import Attachment
    from neocode_tui.tui.keys import KeyNames


COLLAPSED_LINES = 8
"""How many lines of a long tool output or thought stay visible while it is collapsed."""
COMMAND_HEAD_LINES = 2
"""Of those, how many a command's output shows from its start; the rest are its last lines,
where an error usually is."""
LIVE_TAIL_LINES = 6
"""How many of the latest lines a growing argument or thought shows while it streams."""
_LONG_LINE = 200
SHOWN_AFTER = 1.0
"""Seconds after which a running command or a thought shows how long it has taken."""


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _indent(renderable: RenderableType) -> Padding:
    return Padding(renderable, (0, 0, 0, 2))


def _shown_value(value: object) -> str:
    """An argument as the model wrote it (JSON: ``true``, ``[1, 2]``), never a Python repr."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _took(seconds_so_far: float | None) -> str:
    """`` · 3.1 s`` once something has taken a while, else ""."""
    if seconds_so_far is None or seconds_so_far < SHOWN_AFTER:
        return ""
    return f" · {seconds(seconds_so_far)}"


class Block:
    """One item of the conversation."""

    collapsible: ClassVar[bool] = False
    indent: ClassVar[int] = 0
    """Cells of blank margin on the left. The view renders the block that much narrower and
    puts the margin in front of each line: what a Rich ``Padding`` draws, without one more
    pass over every segment of the block (answers are drawn a frame at a time)."""

    def __init__(self) -> None:
        self.gap_after = True
        """A blank line follows the block (not between the chunks of one code block)."""
        self.version = 0
        self.collapsed = False
        self.lines: list[list[Segment]] | None = None
        """Lines from the last render while the view holds them (None once let go, or before
        the first). Plain segment lists: a ``Strip`` is made only for a line that is drawn."""
        self.height = 0
        """How many lines the last render made (kept when the lines are let go)."""
        self.render_key: tuple[object, ...] | None = None
        self.attempt: object | None = None
        """The stream attempt that produced this block, so a retry can take it back."""

    def changed(self) -> None:
        self.version += 1

    @property
    def trim_top(self) -> bool:
        """Drop the blank lines its rendering starts with."""
        return False

    def toggle(self) -> bool:
        """Flip collapsed state; False when this block cannot collapse."""
        if not self.can_collapse:
            return False
        self.collapsed = not self.collapsed
        self.changed()
        return True

    @property
    def can_collapse(self) -> bool:
        return self.collapsible

    def renderable(self, palette: Palette) -> RenderableType | None:
        raise NotImplementedError

    def estimate(self, width: int) -> int:
        """Lines this block will probably take, before it has been rendered (resumed sessions)."""
        return 1


def _estimate_text(text: str, width: int) -> int:
    return text.count("\n") + 1 + len(text) // max(width - 4, 10)


class UserBlock(Block):
    def __init__(self, text: str, attachments: list[Attachment] | None = None) -> None:
        super().__init__()
        self.text = text
        self.attachments = attachments or []
        """The images sent with it, each a chip (and a thumbnail, where one was made)."""

    def renderable(self, palette: Palette) -> RenderableType:
        text = Text.assemble(("› ", f"bold {palette.primary}"), (visible(self.text), "bold"))
        if self.attachments:
            text.append("\n" if self.text else "")
            text.append_text(attachment_lines(self.attachments, f"bold {palette.primary}"))
        return Padding(text, (0, 1), style=f"on {palette.panel}", expand=True)

    def estimate(self, width: int) -> int:
        thumbs = sum(max(1, len(attachment.thumbnail)) for attachment in self.attachments)
        return _estimate_text(self.text, width) + thumbs


class MarkdownBlock(Block):
    """A settled piece of an answer (a top-level Markdown block or a chunk of a fenced code
    block), or the open tail of a streaming answer."""

    indent = 2

    @property
    def trim_top(self) -> bool:
        """Rich's Markdown opens a list (drawn alone, as a settled block) with a blank line,
        which doubled the gap after a paragraph; a code chunk's top padding must stay."""
        return isinstance(self.piece, str)

    def __init__(self, piece: Piece = "") -> None:
        super().__init__()
        self.piece: Piece = piece
        self.gap_after = not isinstance(piece, CodeChunk) or piece.last

    def renderable(self, palette: Palette) -> RenderableType | None:
        piece = self.piece
        if isinstance(piece, CodeChunk):
            return _code_chunk(piece, palette)
        if not piece.strip():
            return None
        # markdown-it and Pygments load with the first answer, not at start-up.
        from neocode_tui.tui.conversation.markdown import MarkdownText

        return MarkdownText(visible(piece), palette.code_theme)

    def estimate(self, width: int) -> int:
        piece = self.piece
        return _estimate_text(piece if isinstance(piece, str) else piece.code, width)


def _code_chunk(chunk: CodeChunk, palette: Palette) -> Syntax:
    """Drawn as Rich's Markdown draws a code block; chunks of one fence join without a seam."""
    # Pygments: loaded with the first code shown
    from neocode_tui.tui.conversation.code_syntax import CodeSyntax
    from neocode_tui.tui.conversation.markdown import lexer_named

    code = chunk.code.rstrip() if chunk.last else chunk.code.removesuffix("\n")
    padding = (1 if chunk.first else 0, 1, 1 if chunk.last else 0, 1)
    return CodeSyntax(
        visible(code), lexer_named(chunk.language), theme=palette.code_theme, word_wrap=True,
        padding=padding,
    )


class ReasoningBlock(Block):
    """The model's thinking: dimmed, apart from the answer, collapsed once it is over."""

    collapsible = True

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = GrowingText()
        self.text.append(text)
        self.live = not text
        self.collapsed = bool(text)
        self.started_at: float | None = None
        self.took: float | None = None
        """Seconds it has been thinking (so far, while live), where the clock was seen."""

    def finish(self) -> None:
        self.live = False
        self.collapsed = True
        self.changed()

    @property
    def can_collapse(self) -> bool:
        return not self.live

    def renderable(self, palette: Palette) -> RenderableType:
        lines = self.text.line_count
        style = f"italic {palette.muted}"
        took = _took(self.took)
        if self.live:
            header = Text(f"∴ Thinking… ({_lines(lines)}){took}", style=style)
            return Group(header, _indent(Text(visible(self.text.tail(LIVE_TAIL_LINES)), style=style)))
        if self.collapsed:
            return Text(f"∴ Thought for {_lines(lines)}{took} · {palette.keys.fold_hint} to expand", style=style)
        header = Text(f"∴ Thought{took} · {palette.keys.fold_hint} to collapse", style=style)
        return Group(header, _indent(Text(visible(self.text.text.strip()), style=style)))

    def estimate(self, width: int) -> int:
        return 1 if self.collapsed else 1 + _estimate_text(self.text.text, width - 2)


class RefusalBlock(Block):
    def __init__(self) -> None:
        super().__init__()
        self.text = GrowingText()

    def renderable(self, palette: Palette) -> RenderableType:
        return Text.assemble(
            ("⊘ The model declined: ", f"bold {palette.warning}"),
            (visible(self.text.text), palette.warning),
        )


class NoticeBlock(Block):
    _ICONS: ClassVar[dict[str, str]] = {"info": "ℹ", "warning": "⚠", "error": "✖"}

    def __init__(self, level: NoticeLevel, message: str,
                 keyed: Callable[[KeyNames], str] | None = None) -> None:
        """``keyed``: the words from the keys in use, for a notice that names keys and may
        be drawn before the user's keys are read (``message``: its words meanwhile)."""
        super().__init__()
        self.level = level
        self.message = message
        self.keyed = keyed

    def renderable(self, palette: Palette) -> RenderableType:
        color = {"info": palette.primary, "warning": palette.warning, "error": palette.error}[
            self.level
        ]
        icon = (f"{self._ICONS[self.level]} ", f"bold {color}")
        message = self.keyed(palette.keys) if self.keyed is not None else self.message
        return Text.assemble(icon, (visible(message), color))

    def estimate(self, width: int) -> int:
        return _estimate_text(self.message, width)


_STATUS: dict[str, tuple[str, str, str]] = {
    # status: (icon, words, palette colour name)
    "streaming": ("…", "writing arguments", "muted"),
    "ready": ("◌", "ready", "muted"),
    "approval": ("?", "awaiting your approval", "warning"),
    "running": ("◐", "running", "primary"),
    "ok": ("✓", "done", "success"),
    "error": ("✗", "failed", "error"),
    "denied": ("⊘", "denied", "warning"),
    "interrupted": ("⏹", "interrupted", "warning"),
    "skipped": ("–", "not run", "muted"),
    "incomplete": ("✗", "arguments incomplete", "error"),
}
_PATH_KEYS = ("path", "file_path", "filename")
_FLAGS = {"run_in_background": "runs in the background", "unsandboxed": "runs outside the sandbox"}
"""Yes-or-no arguments said in words when set (and not said when not)."""
_COMMAND_KEYS = ("command", "cmd")


class ToolBlock(Block):
    """A tool call: arguments growing live, then its status and result."""

    def __init__(self, call: Call) -> None:
        super().__init__()
        self.call = call
        """The core's view of the call: its name, arguments and status."""
        self.result: str | None = None
        self.diff: str | None = None
        self.output: LiveTail | None = None
        """What a running command has printed so far (its last lines only)."""
        self.started_at: float | None = None
        self.took: float | None = None
        """Seconds it has run so far, while it runs (as of the last tick)."""
        self.duration: float | None = None
        """Seconds it ran, once finished (the tool's own measure, kept in the session)."""
        self.background: Backgrounded | None = None
        """The background command the call went on as, if it did."""

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def status(self) -> CallStatus:
        return self.call.status

    @property
    def finished(self) -> bool:
        return self.call.finished

    @property
    def raw(self) -> GrowingText:
        return self.call.arguments.raw

    @property
    def arguments(self) -> PartialJSON:
        """The arguments as parsed so far (parsing waits until the panel is drawn: most
        panels of a resumed session never are)."""
        return self.call.arguments.parsed

    def add_output(self, text: str) -> None:
        if self.output is None:
            self.output = LiveTail()
        self.output.feed(text)
        self.changed()

    def finish(self, result: str, diff: str | None) -> None:
        """The call ended (``call.status`` says how) with ``result``."""
        self.result = result
        self.diff = diff
        self.collapsed = self._body_lines() > COLLAPSED_LINES + 2
        self.changed()

    def _body_text(self) -> str:
        if self.background is not None and self.result is not None:
            return output_so_far(self.result)
        return self.diff or self.result or ""

    def _body_lines(self) -> int:
        return self._body_text().count("\n") + 1 if self._body_text() else 0

    @property
    def can_collapse(self) -> bool:
        return self.finished and self._body_lines() > COLLAPSED_LINES + 2

    def renderable(self, palette: Palette) -> RenderableType:
        background = self.background
        if background is not None:
            icon, words, colour_name = background.state()
        else:
            icon, words, colour_name = _STATUS[self.status]
            words += self._time_words(palette.keys)
        colour = getattr(palette, colour_name)
        title = Text.assemble((f" {visible(self.name) or 'tool'} ", f"bold {palette.foreground}"))
        subtitle = Text(f" {icon} {words} ", style=colour)
        parts: list[RenderableType] = self._argument_lines(palette)
        live = background.output if background is not None else self.output
        if live is not None and (self.result is None or self.status == "interrupted" or background):
            parts.append(self._live_output(live, palette))
        if self.result is not None and not (background and background.output):
            parts.append(self._result(palette))
        settled = (self.finished and not (background and background.running)) or self.status == "approval"
        return Panel(
            Group(*parts) if parts else Text(""),
            title=title,
            title_align="left",
            subtitle=subtitle,
            subtitle_align="right",
            border_style=colour if settled else palette.muted,
            expand=True,
        )

    def _argument_lines(self, palette: Palette) -> list[RenderableType]:
        """The tolerant preview: paths and commands in full, long texts as a count and a tail;
        once there is a diff, the texts it shows (an edit's old and new) are left to it."""
        if self.arguments.broken:
            return [Text(visible(self.raw.tail(LIVE_TAIL_LINES)), style=palette.muted)]
        lines: list[RenderableType] = []
        live = not self.finished and self.status != "approval"
        path = next((self.arguments.get(key) for key in _PATH_KEYS if key in self.arguments.fields), None)
        for key, field in self.arguments.fields.items():
            if key in _COMMAND_KEYS and field.is_string:
                lines.append(Text.assemble(("$ ", f"bold {palette.accent}"), (visible(field.text), "bold")))
            elif field is path:
                lines.append(Text(visible(field.text), style=f"bold {palette.primary}"))
            elif field.is_string and self.diff:
                continue
            elif field.is_string and (field.newlines or field.length > _LONG_LINE):
                lines.append(Text(f"{visible(key)}: {_lines(field.line_count)}", style=palette.muted))
                if live:
                    lines.append(self._code_tail(field.tail(LIVE_TAIL_LINES), path, palette))
            elif key in _FLAGS and isinstance(field.value(), bool):
                if field.value():
                    lines.append(Text(f"↗ {_FLAGS[key]}", style=f"italic {palette.accent}"))
            else:
                value = visible(_shown_value(field.value()))
                lines.append(Text.assemble((f"{visible(key)}: ", palette.muted), (value, "")))
        return lines

    @staticmethod
    def _code_tail(code: str, path: PartialField | None, palette: Palette) -> RenderableType:
        from rich.syntax import Syntax  # Pygments: loaded with the first code shown

        from neocode_tui.tui.conversation.markdown import lexer_for_path

        lexer = lexer_for_path(path.text if path is not None else "")
        return Syntax(visible(code), lexer, theme=palette.code_theme, background_color="default")

    @staticmethod
    def _live_output(output: LiveTail, palette: Palette) -> Text:
        """The latest lines, one screen line each, so the panel keeps its height as they
        come; what scrolled off is counted above them (until an interrupt, what was printed
        stays as it was)."""
        body = Text(no_wrap=True, overflow="ellipsis", style=palette.foreground)
        if output.hidden:
            body.append(f"… {output.hidden:,} earlier lines\n", style=f"italic {palette.muted}")
        body.append(visible("\n".join(output.lines)))
        return body

    def _time_words(self, keys: KeyNames) -> str:
        """How long a command ran (``ran 8.2 s``), or has run so far while it runs."""
        if not self._is_command:
            return ""
        if self.finished:
            return "" if self.duration is None else f" · ran {seconds(self.duration)}"
        if self.status != "running":
            return ""
        hint = f" · {keys.background} sends it to the background" if self.name == "bash" and keys.background else ""
        return _took(self.took) + hint

    @property
    def _is_command(self) -> bool:
        return any(key in self.arguments.fields for key in _COMMAND_KEYS)

    def _result(self, palette: Palette) -> RenderableType:
        text = visible(self._body_text())
        lines = text.split("\n")
        hidden = 0
        if self.collapsed:
            hidden = len(lines) - COLLAPSED_LINES
            head = COMMAND_HEAD_LINES if self._is_command and not self.diff else COLLAPSED_LINES
            shown, tail = lines[:head], lines[len(lines) - COLLAPSED_LINES + head :]
        else:
            shown, tail = lines, []
        note = f"italic {palette.muted}"
        body = diff_text(shown, palette) if self.diff else Text("\n".join(shown), style=palette.foreground)
        if hidden:
            body.append(f"\n… {hidden} more lines · {palette.keys.fold_hint} to expand", style=note)
            if tail:
                body.append("\n" + "\n".join(tail), style=palette.foreground)
        elif self.can_collapse:
            body.append(f"\n({palette.keys.fold_hint} to collapse)", style=note)
        return body

    def estimate(self, width: int) -> int:
        """Its borders, a line per argument, and the result as folded or not."""
        body = 0
        if self.result is not None:
            body = COLLAPSED_LINES + 1 if self.collapsed else _estimate_text(self._body_text(), width - 4)
        return 2 + max(self.call.arguments.fields_parsed, 1) + body

