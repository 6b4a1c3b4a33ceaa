"""The input box: multi-line, Enter sends, Up/Down recall.

A ``TextArea`` rather than an ``Input`` because prompts are often pasted code; the only
keys it takes over are Enter (send), the new-line keys (Shift+Enter where the terminal tells
it apart, Alt+Enter, Ctrl+J, and a backslash then Enter everywhere), Up/Down at the first/last line
(history) and ``?`` on an empty prompt (key help), so everything else behaves like an editor.
Tab indents: it never moves the keyboard away from the prompt; while the agent works it sends
the text for after the running turn instead (as Codex's Tab does). A paste that is only paths of
image files (a file dropped on the terminal) attaches them; Ctrl+V attaches the clipboard's
image, else pastes as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from neocode_tui.deferred import lazy
from neocode_tui.tui.commands import Completion
from neocode_tui.tui.keymap import KeyMap, default_keymap
from neocode_tui.tui.user_config import load_user_config
from neocode_tui.tui.widgets.completion import SlashCompletion
from neocode_tui.tui.widgets.history import PromptHistory, Search, SearchBar
from neocode_tui.tui.widgets.mention_picker import MentionPicker, mention_at
from neocode_tui.tui.widgets.vi_keys import ViTextArea

if TYPE_CHECKING:
    from neocode_tui.agent import extensions
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    extensions = lazy("neocode_tui.agent.extensions")


class PromptInput(ViTextArea):
    """Posts ``PromptInput.Submitted`` on Enter; the text is cleared by the app once taken.
    With vi mode on (``/vim``, remembered) vi's keys edit it first.

    While a slash command is typed, ``completion`` lists the candidates and takes Up/Down
    (move), Tab (take) and Enter (take, or send once the line is complete) and Esc (close).
    While an ``@`` mention is typed, ``mentions`` does the same with the workspace's files.
    """

    keys: KeyMap = default_keymap()
    """Which keys send, break the line and search the history (the app sets the user's).
    They are read here as they arrive rather than as bindings: a binding runs once the key
    has bubbled up to the app, after the characters typed behind it were inserted, so a
    new line typed fast ("a", Alt+Enter, "b") landed after the "b"."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
    }
    """

    class HelpRequested(Message):
        """``?`` on an empty prompt."""

    @dataclass
    class ImagesPasted(Message):
        """A paste that named image files and nothing else."""

        paths: list[Path]

    class ClipboardRequested(Message):
        """Ctrl+V: the app looks for an image on the clipboard, else pastes its text."""

    @dataclass
    class SearchMissed(Message):
        """Ctrl+R found no (further) prompt holding ``query``."""

        query: str

    @dataclass
    class Perform(Message):
        """A prompt action (send, newline, history_search) whose chord the app read: it
        comes in order with the keys typed before it."""

        action: str
        bubble = False

    @dataclass
    class Submitted(Message):
        prompt: PromptInput
        text: str
        later: bool = False
        """Tab while the agent works: for after this turn, not for the running one."""

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(
        self,
        completion: SlashCompletion,
        complete_with: Callable[[str], list[Completion]],
        *,
        unqueue: Callable[[], str | None] = lambda: None,
        mentions: MentionPicker | None = None,
        drop_image: Callable[[], bool] = lambda: False,
        search_bar: SearchBar | None = None,
        id: str | None = None,
    ) -> None:
        """``unqueue``: takes the last queued message back (Up on an empty prompt);
        ``drop_image``: removes the last attached image (Backspace on an empty prompt);
        ``search_bar``: where a Ctrl+R search shows itself."""
        super().__init__(
            id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="indent", compact=True
        )
        self.prompts = PromptHistory()
        self.completion = completion
        self._complete_with = complete_with
        self._unqueue = unqueue
        self._recalled: str | None = None
        """The text Up/Down put in the box: while it is unchanged, Up/Down keep walking the
        history, even when it is a slash command that would open the completion list."""
        self.mentions = mentions
        self._drop_image = drop_image
        self._search: Search | None = None
        """Ctrl+R's search while it goes on: typing edits its query, Ctrl+R looks further
        back, Enter keeps the prompt found, Esc puts back what the box held."""
        self._search_bar = search_bar or SearchBar()
        self.set_vi(load_user_config().vim)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._refresh_completion()
        if self._search is not None and self._recalled is None:
            self._end_search()  # the box was changed otherwise (Ctrl+C cleared it)
        if self._recalled is not None or self.mentions is None:
            return
        typed = self._mention_typed()
        if typed is None:
            self.mentions.close()
        else:
            self.mentions.open(typed[1])

    def _refresh_completion(self) -> None:
        """The list for the text as it is now. Keys typed fast all arrive before the change
        messages they cause, so a key that uses the list refreshes it first too: it never
        acts on the list of an earlier text."""
        text = self.text
        if text != self._recalled:
            self._recalled = None
        if self.completion.shown_for != text:
            # "/theme " lists every theme, none chosen yet: Enter shows the current one.
            self.completion.show(self._complete_with(text), text=text, preselect=not text.endswith(" "))

    def _mention_typed(self) -> tuple[int, str] | None:
        """(column of the ``@``, query) when the cursor ends a mention on its line."""
        row, column = self.cursor_location
        return mention_at(self.document.get_line(row)[:column])

    def _mention_key(self, key: str) -> bool:
        """Handle ``key`` for the open file picker; False when it is not the picker's key."""
        assert self.mentions is not None
        if key in ("up", "down"):
            self.mentions.move(-1 if key == "up" else 1)
        elif key == "escape":
            self.mentions.close()
        elif key in ("tab", "enter"):
            chosen, typed = self.mentions.chosen, self._mention_typed()
            if chosen is None or typed is None or (key == "enter" and typed[1] == chosen.path):
                # Nothing to take, or Enter on a path typed in full: Enter sends the prompt.
                return key == "tab"
            row, column = self.cursor_location
            # A folder stays open for its files; a file ends the mention.
            text = extensions.mention_for(chosen.path) + ("" if chosen.is_dir else " ")
            self.replace(text, (row, typed[0]), (row, column))
        else:
            return False
        return True

    def _completion_key(self, key: str) -> bool:
        """Handle ``key`` for the open completion list; False when it is not the list's key.
        Enter with nothing highlighted sends the line as typed; Tab takes the first item."""
        chosen = self.completion.chosen or (self.completion.completions[0] if key == "tab" else None)
        if key in ("up", "down"):
            self.completion.move(-1 if key == "up" else 1)
        elif key == "escape":
            self.completion.close()
        elif key == "tab" or (key == "enter" and chosen and chosen.replacement.strip() != self.text.strip()):
            assert chosen is not None
            self.load_text(chosen.replacement)
            self.move_cursor(self.document.end)
            if key == "enter" and not chosen.replacement.endswith(" "):
                # A whole command (nothing left to type): Enter runs it, as in Claude Code.
                self.post_message(self.Submitted(self, self.text))
        else:
            return False
        return True

    async def _on_key(self, event: events.Key) -> None:
        if self._search is not None and self._search_key(event):
            event.stop()
            event.prevent_default()
            return
        if self.mentions is not None and self.mentions.is_open and self._mention_key(event.key):
            event.stop()
            event.prevent_default()
            return
        self._refresh_completion()
        if self.completion.is_open and self._completion_key(event.key):
            event.stop()
            event.prevent_default()
            return
        own = self.keys.prompt_action(event.key)
        if own in ("newline", "history_search"):
            event.stop()
            event.prevent_default()
            self.on_prompt_input_perform(self.Perform(own))
            return
        if self.vi_key(event):
            return
        if own == "send":
            event.stop()
            event.prevent_default()
            self._send()
            return
        if own == "later" and self.has_class("-busy"):
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self, self.text, later=True))
            return
        if event.key == "escape":
            # The app's (interrupt); an indenting TextArea would move the focus away.
            event.prevent_default()
            return
        if event.key == "question_mark" and not self.text:
            event.stop()
            event.prevent_default()
            self.post_message(self.HelpRequested())
            return
        if event.key == "backspace" and not self.text and self._drop_image():
            event.stop()
            event.prevent_default()
            return
        if event.key in ("up", "down") and self._walk_history(event.key, event):
            return
        await super()._on_key(event)

    def on_prompt_input_perform(self, message: Perform) -> None:
        if message.action == "send":
            self._send()
        elif message.action == "later" and self.has_class("-busy"):
            self.post_message(self.Submitted(self, self.text, later=True))
        elif message.action == "newline":
            self.action_newline()
        elif message.action == "history_search":
            self.action_search_history()

    def _send(self) -> None:
        if not self._continues_line():
            self.post_message(self.Submitted(self, self.text))

    def _walk_history(self, key: str, event: events.Key) -> bool:
        """Up on an empty prompt takes the last queued message back; Up at the first line
        and Down at the last walk the history. False when ``key`` only moves the cursor."""
        if key == "up" and not self.text:
            queued = self._unqueue()
            if queued is not None:
                self._recall(queued, event)
                return True
        if key == "up" and self.cursor_location[0] == 0:
            self._recall(self.prompts.previous(self.text), event)
            return True
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            self._recall(self.prompts.next(), event)
            return True
        return False

    def vi_history(self, direction: str, event: events.Key) -> None:
        self._walk_history("up" if direction == "previous" else "down", event)

    def _continues_line(self) -> bool:
        """A backslash just before the cursor, then Enter: a new line in any terminal."""
        row, column = self.cursor_location
        if column == 0 or self.document.get_line(row)[column - 1] != "\\":
            return False
        self.replace("\n", (row, column - 1), (row, column))
        return True

    def _recall(self, text: str | None, event: events.Key) -> None:
        if text is None:
            return  # nothing further back or forward: let the key do its usual move
        event.stop()
        event.prevent_default()
        self._show(text)

    async def _on_paste(self, event: events.Paste) -> None:
        from neocode_tui.tui.attachments import pasted_paths

        paths = pasted_paths(event.text)
        if paths is None:
            return  # text: TextArea's own handler (the next in line) types it
        event.stop()
        event.prevent_default()
        self.post_message(self.ImagesPasted(paths))

    def action_paste(self) -> None:
        self.post_message(self.ClipboardRequested())

    def paste_text(self) -> None:
        """The paste Ctrl+V always made: the app's clipboard, as text."""
        super().action_paste()
    def action_search_history(self) -> None:
        """Ctrl+R: the newest sent prompt holding what is typed; again, an older one."""
        search = self._search
        if search is None:
            self._search = Search(self.text, self.text)
            self._recalled = self.text
            self._find(None)
        else:
            self._find(search.found[0] if search.found else None)

    def _search_key(self, event: events.Key) -> bool:
        """Handle ``event`` for the search under way; False when it ends the search and the
        key goes on as usual (an arrow, a key of the app's)."""
        search = self._search
        assert search is not None
        if self.keys.prompt_action(event.key) == "history_search":
            self.action_search_history()
        elif event.key == "escape":
            self._end_search()
            self._show(search.draft)
        elif event.key in ("enter", "tab"):
            self._end_search()
            self.move_cursor(self.document.end)
        elif event.key == "backspace" or (event.is_printable and event.character):
            search.query = search.query[:-1] if event.key == "backspace" else search.query + (event.character or "")
            self._find(None)
        else:
            self._end_search()
            return False
        return True

    def _find(self, before: int | None) -> None:
        """The newest prompt holding the query, before index ``before``: into the box, the
        query marked in it. None found: the box keeps what it shows."""
        search = self._search
        assert search is not None
        found = self.prompts.search(search.query, before)
        if found is None:
            if before is None:
                search.found = None
            self.post_message(self.SearchMissed(search.query))
        else:
            search.found = found
            self._show(found[1])
            marked = re.search(re.escape(search.query), found[1], re.IGNORECASE) if search.query else None
            if marked is not None:
                self.selection = Selection(_location(found[1], marked.start()), _location(found[1], marked.end()))
        self._search_bar.show_search(search)

    def _show(self, text: str) -> None:
        """``text`` in the box, as history: not a command being typed."""
        self._recalled = text
        self.completion.show([], text=text)
        self.load_text(text)
        self.move_cursor(self.document.end)
        self.vi_settle()

    def _end_search(self) -> None:
        self._search = None
        self._search_bar.show_search(None)

    def action_newline(self) -> None:
        self.insert("\n")

    def clear_sent(self, sent: str) -> None:
        """Empties the box of the prompt just sent. Keys typed right after Enter (a burst,
        or keys typed while the app started) may already be in it, after that prompt: they
        stay."""
        if not self.text.startswith(sent):
            self.clear()
            return
        lines = sent.split("\n")
        self.delete((0, 0), (len(lines) - 1, len(lines[-1])), maintain_selection_offset=False)
        self.vi_start_over()

    def remember(self, text: str) -> None:
        self.prompts.add(text)


def _location(text: str, index: int) -> tuple[int, int]:
    """The (row, column) of ``text``'s character ``index``."""
    before = text[:index]
    return before.count("\n"), len(before) - before.rfind("\n") - 1
