"""The conversation view: one line-based widget whatever the length of the session.

Textual's layout walks every widget on every refresh, so a view made of one widget per
Markdown block gets slower with every block shown (its layout cost grows with the widget count). Here the whole
conversation is a single ``ScrollView`` drawing pre-rendered lines (the Line API, as ``Log``
does): each block is rendered by Rich into lines when it comes into view, and again only when
its content changes (the open tail of a streaming answer, a live tool panel), when it is
toggled, or when the width or theme changes. Only the blocks near the viewport hold their
lines (``BlockLines``), so a session of any length costs what its screenful costs. Events are
buffered and applied at most 30 times a second, so a model streaming 2,000 tokens a second
costs as many screen updates as one streaming 30.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Offset, Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from neocode_tui.tui.conversation.assembler import Assembler, JobLookup
from neocode_tui.tui.conversation.block_lines import BlockLines, Env
from neocode_tui.tui.conversation.blocks import Block
from neocode_tui.tui.conversation.palette import Palette
from neocode_tui.tui.conversation.search import TranscriptFinder, restyled
from neocode_tui.tui.keys import KeyNames

if TYPE_CHECKING:
    from neocode_tui.agent import Compaction, LoopEvent
    from neocode_tui.chat import Message
    from neocode_tui.tui.attachments import Attachment

_TICK_SECONDS = 0.5
"""How often the times shown of what runs move on."""
_FRAME_SECONDS = 1 / 30
"""The least time between two frames of the conversation. A stream drawn 30 times a second
reads as smoothly as at Textual's 60 (Ink, under Claude Code, draws at most as often), and
a model streaming faster than that costs half as many frames."""
_FALLBACK_SECONDS = 0.1
"""Events reach the screen with the next frame; if no frame comes this soon, without one."""
_DRAWN_LINES = 1_000
_JUMP_BAR = " ↓ more below · End or click here to jump to the latest "


class ConversationView(ScrollView, can_focus=True):
    """The scrolling conversation above the input box."""

    DEFAULT_CSS = """
    ConversationView {
        height: 1fr;
        scrollbar-gutter: stable;
        background: $background;
        color: $foreground;
    }
    """
    BINDINGS = [Binding("end", "scroll_to_latest", "Latest", show=False)]

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None,
        clock: Callable[[], float] = time.monotonic, jobs: JobLookup = lambda job_id: None,
    ) -> None:
        """``jobs``: the session's background commands, by id (a panel whose call went on
        as one follows it)."""
        super().__init__(name=name, id=id, classes=classes)
        self._lines = BlockLines()
        self._pending: list[LoopEvent | Callable[[], None]] = []
        self._flush_scheduled = False
        self._flushed_at = -_FRAME_SECONDS
        self._frame_asked = False
        self._frames = 0
        self._undrawn = False
        self._waiters: list[asyncio.Future[None]] = []
        self._env: Env | None = None
        self._keys = KeyNames()
        self._palette: Palette | None = None
        self._palette_theme = ""
        self._base_style: Style | None = None
        self._changed_from: int | None = None
        """The first line whose content changed since the view last asked for a frame."""
        self._drawn: dict[int, Strip] = {}
        """Finished strips by line, reused while the lines above and at them are unchanged."""
        self._anchored = True
        self._moving = False
        self._assembler = Assembler(self._lines, clock, jobs)
        self._transcript = False
        """Everything unfolded (Ctrl+O)."""
        self.finder = TranscriptFinder(self)
        """The search over the whole conversation (the search bar drives it)."""

    # --- the API the app uses ---------------------------------------------------------

    @property
    def anchored(self) -> bool:
        """True while the view follows the latest output; False once the user scrolled up."""
        return self._anchored

    def add_user_message(self, text: str, attachments: list[Attachment] | None = None) -> None:
        self._enqueue(lambda: self._assembler.user_message(text, attachments))

    def post(self, event: LoopEvent) -> None:
        """Buffer a loop event; it reaches the screen with the next frame, in order."""
        self._enqueue(event)

    def add_notice(self, level: Literal["info", "warning", "error"], message: str) -> None:
        self._enqueue(lambda: self._assembler.notice(level, message))

    def add_compaction(self, what: Compaction) -> None:
        self._enqueue(lambda: self._assembler.compaction(what))

    def add_keyed_notice(self, level: Literal["info", "warning", "error"],
                         words: Callable[[KeyNames], str]) -> None:
        """A notice naming keys, drawn with the keys in use (the user's, once read)."""
        self._enqueue(lambda: self._assembler.notice(level, words(self._keys), words))

    @property
    def keys(self) -> KeyNames:
        """The keys hints name now."""
        return self._keys

    def use_keys(self, keys: KeyNames) -> None:
        """The keys hints name from now on: every block is drawn again with them."""
        self._keys = keys
        self._theme_changed()

    def clear(self) -> None:
        self._enqueue(self._clear_now)

    def load_transcript(
        self, messages: list[Message], children: dict[str, list[Message]] | None = None
    ) -> None:
        """Show a resumed session, settled; blocks are rendered as they come into view, and
        nothing is done for the rest of the history until the reader scrolls to it.
        ``children``: the subagents' transcripts, folded in their ``task`` panels."""
        self._enqueue(lambda: self._assembler.transcript(messages, children))

    def toggle_latest(self) -> bool:
        """Fold or unfold the newest block that folds (tool output, thinking); False if none."""
        for block in reversed(self._lines.blocks):
            if block.toggle():
                self._lines.touch(block)
                self._layout()
                return True
        return False

    def toggle_transcript(self) -> bool:
        """Unfold every block, or fold back those that fold; returns True when unfolded.
        Blocks out of view are redrawn when they come into view."""
        self._transcript = not self._transcript
        lines = self._lines
        for block in lines.blocks:
            if block.can_collapse and block.collapsed == self._transcript:
                block.toggle()
                if block.lines is not None:
                    lines.touch(block)
        lines.invalidate(0)
        self._layout()
        return self._transcript

    # --- what the search sees -----------------------------------------------------------

    @property
    def blocks(self) -> list[Block]:
        return self._lines.blocks

    def plain_lines(self, block: Block) -> list[str]:
        if self._env is None:
            return []
        if self._lines.render(block, self._env, self.app.console):
            self._lines.invalidate(self._lines.index(block))
        return ["".join(segment.text for segment in line) for line in block.lines or ()]

    def unfold(self, block: Block) -> None:
        if block.collapsed and block.toggle():
            self._lines.touch(block)

    def reveal(self, block: Block, line: int) -> None:
        """Scrolls so that ``block``'s line ``line`` is a third of the way down the view."""
        if self._env is None:
            return
        self._lines.render_dirty(self._env, self.app.console)
        self.plain_lines(block)
        self._recompute()
        self._anchored = False
        self._render_visible((block, line - self.scrollable_content_region.height // 3), within=False)

    def marks_changed(self) -> None:
        self._drawn.clear()
        self.refresh()

    def scroll_to_latest(self) -> None:
        self._anchored = True
        self._layout()  # the latest blocks may have let their lines go while the reader was away

    def action_scroll_to_latest(self) -> None:
        self.scroll_to_latest()

    async def settled(self) -> None:
        """Return once everything posted so far has been drawn and sent to the terminal."""
        if not self.is_attached:
            return
        loop = asyncio.get_running_loop()
        while self._pending or self._undrawn:
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, _FALLBACK_SECONDS * 3)
            except TimeoutError:
                if not self._pending:
                    break  # laid out but not drawn: the view is hidden
        done: asyncio.Future[None] = loop.create_future()  # scrollbars and the rest of the screen
        self.call_after_refresh(lambda: None if done.done() else done.set_result(None))
        await done

    # --- frame scheduling ---------------------------------------------------------------

    def _enqueue(self, item: LoopEvent | Callable[[], None]) -> None:
        self._pending.append(item)
        if not self._flush_scheduled and self.is_mounted:
            self._schedule()

    def _schedule(self) -> None:
        """Have the buffer applied, no sooner than ``_FRAME_SECONDS`` after the last time.

        After a pause it is applied as the frame it asks for is drawn (``render_lines``),
        the latest moment before the screen shows it; a timer covers a view that is not drawn
        (another screen on top). While events keep coming (a stream) it is applied by a
        timer, and the frame it asks for shows the lines, the scroll offset and the
        scrollbar together."""
        self._flush_scheduled = True
        wait = self._flushed_at + _FRAME_SECONDS - time.perf_counter()
        if wait > 0:
            self.set_timer(wait, self._apply_buffer, name="conversation-frame")
            return
        self._frame_asked = True
        self.refresh()
        frames = self._frames
        self.set_timer(_FALLBACK_SECONDS, lambda: self._apply_buffer(unless_drawn_since=frames),
                       name="conversation-fallback")

    def _apply_buffer(self, unless_drawn_since: int | None = None) -> None:
        if self._pending and unless_drawn_since in (None, self._frames):
            self._flush()

    def render_lines(self, crop: Region) -> list[Strip]:
        # Only the frame asked for applies the buffer. Textual renders every widget for a
        # frame but sends the terminal only the regions repainted in it: a frame drawn for
        # another widget (the status bar's spinner) renders this view too, and lines changed
        # then would never be sent. The frame asked for is the one that has taken the repaint
        # ``_schedule`` asked for (until then it waits in ``_repaint_regions``). The view is
        # also drawn in part at other times (its scrollbar moved, a menu closed above it).
        taken = not self._repaint_regions
        flushed = taken and self._frame_asked and bool(self._pending)
        if flushed:
            self._flush()
        lines = super().render_lines(crop)
        if flushed and crop.contains_region(self.size.region):
            # The flush asked for a repaint of the view (its lines, its scroll offset), and
            # this frame has just drawn all of it: asked again, the next frame would draw
            # the same lines once more, doubling the cost of a slow stream.
            self._repaint_regions.clear()
            self._repaint_required = False
        if self._repaint_regions:
            return lines  # rendered, not sent: the frame that takes the repaint sends it
        self._undrawn = False
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        return lines

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self.set_interval(_TICK_SECONDS, self._tick, name="conversation-clock")
        if self._pending:
            self._schedule()

    def _tick(self) -> None:
        """A running command's and a thought's time move on; nothing is done otherwise."""
        if self._assembler.timing:
            self._enqueue(self._assembler.tick)

    def _flush(self) -> None:
        """Apply every buffered event, then lay out and draw once."""
        self._flush_scheduled = False
        self._frame_asked = False
        self._frames += 1
        self._flushed_at = time.perf_counter()
        pending, self._pending = self._pending, []
        assembler = self._assembler
        for item in pending:
            if callable(item):
                item()
            else:
                assembler.apply(item)
        assembler.end_of_frame()
        self._layout(changed_only=True)

    def _clear_now(self) -> None:
        self._lines.clear()
        self._drawn.clear()
        self._changed_from = 0
        self._assembler.reset()
        self._anchored = True

    # --- rendering ----------------------------------------------------------------------

    def _current_env(self) -> Env:
        app = self.app
        if self._palette is None or self._palette_theme != app.theme:
            self._palette = Palette.from_variables(app.theme_variables, app.current_theme.dark, self._keys)
            self._palette_theme = app.theme
        return max(self.scrollable_content_region.width, 10), self._palette

    def _theme_changed(self) -> None:
        self._palette = None
        self._base_style = None
        self._drawn.clear()
        self._layout()

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    def _recompute(self) -> None:
        assert self._env is not None
        first_changed = self._lines.recompute(self._env[0])
        if first_changed is not None:
            self._drawn = {line: strip for line, strip in self._drawn.items() if line < first_changed}
            if self._changed_from is None or first_changed < self._changed_from:
                self._changed_from = first_changed

    def _layout(self, *, changed_only: bool = False) -> None:
        """Render what changed, recompute line positions, keep the reader's place, draw.
        ``changed_only`` (a flush): when the view followed the latest output without
        scrolling, repaint only the lines from the first that changed."""
        if not self.is_mounted or self.size.width == 0:
            return
        lines = self._lines
        env = self._current_env()
        top = self._top_anchor()  # where the reader is, in the lines as they were laid out
        scrolled_from = self.scroll_offset.y
        if env != self._env:
            self._env = env
            lines.invalidate(0)
            changed_only = False
        lines.render_dirty(env, self.app.console)
        self._recompute()
        self._render_visible(top)
        self._repaint(changed_only and self._anchored and self.scroll_offset.y == scrolled_from)

    def _repaint(self, changed_only: bool) -> None:
        """Ask for the frame: of the whole view, or (``changed_only``) of the lines on screen
        from the first that changed, down. A stream that adds to its last line without
        scrolling then costs that line, not a screenful, to draw and to send."""
        changed, self._changed_from = self._changed_from, None
        if not changed_only:
            self._undrawn = True
            self.refresh()
            return
        top = self.scroll_offset.y
        bottom = top + self.scrollable_content_region.height
        if changed is None or changed >= bottom:
            return  # nothing on screen changed
        first = max(changed, top)
        self._undrawn = True
        self.refresh_lines(first, bottom - first)

    def _top_anchor(self) -> tuple[Block, float] | None:
        """The block at the top of the viewport and how far into it the reader is."""
        if self._anchored or not self._lines.blocks or self._env is None:
            return None
        self._recompute()
        y = self.scroll_y
        index = self._lines.block_at(int(y))
        return self._lines.blocks[index], y - self._lines.start(index)

    def _restore(self, top: tuple[Block, float] | None, *, within: bool = True) -> None:
        """Scroll so that ``top``'s block is where it was; ``within``: the offset stays
        inside the block (which may have shrunk), else it is a distance from the block's start."""
        assert self._env is not None
        lines = self._lines
        self._set_virtual_size(Size(self._env[0], lines.total))
        if self._anchored:
            self._scroll_end()
            return
        if top is None:
            return
        block, offset = top
        try:
            index = lines.index(block)
        except ValueError:
            return
        if within:
            offset = min(offset, max(lines.height(block, self._env[0]) - 1, 0))
        self._move_to(lines.start(index) + offset)

    def _set_virtual_size(self, size: Size) -> None:
        """The conversation grew: move the scrollbar without a layout of the screen.

        ``virtual_size`` is a layout reactive, so setting it re-lays out and redraws every
        widget on the screen; a streaming answer grows it every frame. Only the scrollbar
        depends on it (the view's own size never does), so it is updated the way Textual
        updates a scrollable widget without a layout; a layout is asked for only when the
        scrollbar appears or goes."""
        if size == self.virtual_size:
            return
        shown = self.show_vertical_scrollbar
        self.set_reactive(ConversationView.virtual_size, size)
        self._scroll_update(size)
        if self.show_vertical_scrollbar != shown:
            self.refresh(layout=True)

    def _visible_range(self) -> range:
        lines = self._lines
        if not lines.blocks:
            return range(0)
        height = self.scrollable_content_region.height
        first = max(lines.total - height, 0) if self._anchored else round(self.scroll_y)
        return range(lines.block_at(max(first - height, 0)), lines.block_at(first + 2 * height) + 1)

    def _render_visible(self, top: tuple[Block, float] | None, *, within: bool = True) -> None:
        """Blocks in (or near) the viewport are drawn at the current width before the frame."""
        assert self._env is not None
        lines, env, console = self._lines, self._env, self.app.console
        for _ in range(3):  # heights settle after a pass or two
            changed = False
            for index in self._visible_range():
                if lines.render(lines.blocks[index], env, console):
                    lines.invalidate(index)
                    changed = True
            if changed:
                self._recompute()
            self._restore(top, within=within)
            if not changed:
                break
        lines.trim(self._visible_range())

    # --- scrolling and anchoring ------------------------------------------------------

    def _move_to(self, y: float) -> None:
        self._moving = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True, force=True)
        finally:
            self._moving = False

    def _scroll_end(self) -> None:
        self._move_to(self.max_scroll_y)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if not self._moving:
            anchored = new >= self.max_scroll_y
            if anchored != self._anchored:
                self._anchored = anchored
                self.refresh()
            self._bring_into_view(old, new)

    def _bring_into_view(self, old: float, new: float) -> None:
        """The reader scrolled: draw the blocks now in view before the frame shows them.
        Their heights were estimates until now, so the distance scrolled is kept from the
        block that was at the top (drawn, so exact): a page up moves by a page of what is
        really there. A long jump (Home, the scrollbar) lands where it was aimed instead."""
        lines = self._lines
        if self._env is None or not lines.blocks or self._pending:
            return  # the next flush lays everything out anyway
        if all(lines.holds(lines.blocks[index], self._env) for index in self._visible_range()):
            return
        self._recompute()
        if abs(new - old) <= 2 * self.scrollable_content_region.height:
            index = lines.block_at(int(old))
            self._render_visible((lines.blocks[index], new - lines.start(index)), within=False)
        else:
            self._render_visible(self._top_anchor())
        self.refresh()

    # --- drawing ----------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None
        self._drawn.clear()

    def render_line(self, y: int) -> Strip:
        scroll_y = self.scroll_offset.y
        width = self._env[0] if self._env else self.scrollable_content_region.width
        if not self._anchored and y == self.scrollable_content_region.height - 1:
            if scroll_y < self.max_scroll_y:
                assert self._env is not None
                return _jump_bar(width, self._env[1])
        line = scroll_y + y
        selection = self.text_selection
        cached = selection is None and not self.finder.active
        if cached and (drawn := self._drawn.get(line)) is not None:
            return drawn
        if self._base_style is None:
            self._base_style = self.rich_style
        segments = self._lines.line(line)
        if segments is None:
            return Strip.blank(width, self._base_style)
        if selection is not None and (span := selection.get_span(line)) is not None:
            start, end = span
            style = self.screen.get_component_rich_style("screen--selection")
            segments = list(restyled(Strip(segments), [(start, end if end != -1 else 10**6)], style))
        if self.finder.active:
            segments = self._marked(segments, line)
        segments = Segment.adjust_line_length(segments, width, pad=True)
        strip = Strip(Segment.apply_style(segments, self._base_style), width).apply_offsets(0, line)
        if cached:
            if len(self._drawn) > _DRAWN_LINES:
                self._drawn.clear()
            self._drawn[line] = strip
        return strip

    def _marked(self, segments: list[Segment], line: int) -> list[Segment]:
        """The search's matches on ``line`` marked, the one landed on apart."""
        assert self._env is not None
        lines, palette = self._lines, self._env[1]
        index = lines.block_at(line)
        current = self.finder.current_line(lines.blocks[index]) == line - lines.start(index)
        return self.finder.mark(segments, current, Style(bold=True, underline=True),
                                Style.parse(f"bold black on {palette.warning}"))

    # --- selection and clicks -----------------------------------------------------------

    @property
    def allow_select(self) -> bool:
        return True

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        if self._env is None:
            return None
        lines = self._lines
        self._recompute()
        start, end = selection
        first = start.y if start is not None else 0
        last = end.y if end is not None else lines.total - 1
        text = lines.text(first, last, self._env, self.app.console)
        within = Selection(
            None if start is None else Offset(start.x, 0), None if end is None else Offset(end.x, end.y - first)
        )
        return within.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        if self.text_selection is not None:
            return  # the end of a drag that selected text, not a click on a block
        if not self._anchored and event.y == self.scrollable_content_region.height - 1:
            if self.scroll_y < self.max_scroll_y:
                self.scroll_to_latest()
                return
        lines = self._lines
        line = round(self.scroll_y) + event.y
        if not lines.blocks or line >= lines.total:
            return
        block = lines.blocks[lines.block_at(line)]
        if block.toggle():
            self._anchored = False if self.max_scroll_y > self.scroll_y else self._anchored
            lines.touch(block)
            self._layout()


def _jump_bar(width: int, palette: Palette) -> Strip:
    style = Style.parse(f"bold {palette.foreground} on {palette.primary}")
    return Strip([Segment(_JUMP_BAR.center(width)[:width], style)], width)
