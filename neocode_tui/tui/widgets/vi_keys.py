"""A ``TextArea`` that answers vi keys once vi mode is on (``/vim``): the thin layer between
Textual's key events and the pure ``ViMachine``. The mode is the border's title.

Esc in INSERT only goes to NORMAL; Esc in NORMAL is left to the app (interrupt the turn,
jump to the latest). A terminal sends Esc and a key typed right after it as one key (Alt+x;
tmux too, within its escape-time): in INSERT it is read as Esc then the key, as typed; in
NORMAL as the key alone.
"""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea
from textual.widgets.text_area import EditResult

from neocode_tui.tui.key_parser import after_escape
from neocode_tui.tui.widgets.vi_mode import Edit, ViMachine, on_character

MODE_TITLES = {"insert": "INSERT", "normal": "NORMAL"}


def _location(text: str, offset: int) -> tuple[int, int]:
    row = text.count("\n", 0, offset)
    return row, offset - (text.rfind("\n", 0, offset) + 1)


class ViTextArea(TextArea):
    """``vi``: the machine while vi mode is on, else None (the keys are the plain editor's)."""

    vi: ViMachine | None = None

    @property
    def vi_text(self) -> str:
        """The text with ``\\n`` between lines, whatever line ends a paste brought."""
        return "\n".join(self.document.lines)

    @property
    def vi_cursor(self) -> int:
        row, column = self.cursor_location
        return sum(len(line) + 1 for line in self.document.lines[:row]) + column

    def set_vi(self, on: bool) -> None:
        self.vi = ViMachine() if on else None
        if self.vi is not None:
            self.vi.reset(self.vi_text)
        self._show_vi_mode()

    def _show_vi_mode(self) -> None:
        vi = self.vi
        self.border_title = None if vi is None else f"{MODE_TITLES[vi.mode]} {vi.pending}".rstrip()

    def vi_key(self, event: events.Key) -> bool:
        """Answer ``event`` as vi does; False leaves it to the prompt's usual keys (Enter,
        arrows, Ctrl keys, and Esc in NORMAL with no command half typed)."""
        vi = self.vi
        if vi is None:
            return False
        typed = after_escape(event)
        character = typed or (event.character if event.is_printable else None)
        if event.key == "escape" or (typed and vi.mode == "insert"):
            edit = vi.escape(self.vi_text, self.vi_cursor)
            if edit is None:
                return False
            self._apply(edit)
            if not typed:
                return self._taken(event)
        if vi.mode == "insert":
            return False
        if event.key == "backspace" and self.vi_text:
            character = "h"  # on an empty prompt it stays the prompt's: drop an attached image
        if event.key == "tab":
            return self._taken(event)  # NORMAL types nothing, an indent neither
        if character is None:
            vi.pending = ""
            self._show_vi_mode()
            return False
        edit = vi.key(character, self.vi_text, self.vi_cursor)
        self._apply(edit)
        if edit.history is not None:
            self.vi_history(edit.history, event)
        return self._taken(event)

    def _taken(self, event: events.Key) -> bool:
        event.stop()
        event.prevent_default()
        return True

    def vi_history(self, direction: str, event: events.Key) -> None:
        """j at the last line or k at the first: the prompt walks its history here."""

    def load_text(self, text: str) -> None:
        """Text put in from outside vi (a recalled prompt, a completion): the mode stays,
        nothing is left to undo into the text it replaced."""
        super().load_text(text)
        if self.vi is not None:
            self.vi.replaced(self.vi_text)

    def vi_settle(self) -> None:
        """In NORMAL the cursor sits on a character, never after the last one."""
        if self.vi is not None and self.vi.mode == "normal":
            text = self.vi_text
            self.move_cursor(_location(text, on_character(text, self.vi_cursor)))

    def _apply(self, edit: Edit) -> None:
        """The edit as the smallest replacement, so the prompt's change handling runs as for
        any typing."""
        old, new = self.vi_text, edit.text
        if old != new:
            prefix = 0
            limit = min(len(old), len(new))
            while prefix < limit and old[prefix] == new[prefix]:
                prefix += 1
            suffix = 0
            while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
                suffix += 1
            self.replace(new[prefix : len(new) - suffix], _location(old, prefix), _location(old, len(old) - suffix))
        self.move_cursor(_location(new, edit.cursor))
        self._show_vi_mode()

    def clear(self) -> EditResult:
        result = super().clear()
        self.vi_start_over()
        return result

    def vi_start_over(self) -> None:
        """An emptied prompt (sent, or Ctrl+C) starts again in INSERT."""
        if self.vi is not None:
            self.vi.reset()
            self._show_vi_mode()
