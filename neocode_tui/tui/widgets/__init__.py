"""The app's own widgets (the conversation lives in ``neocode_tui.tui.conversation``)."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.tui.widgets.completion import SlashCompletion
    from neocode_tui.tui.widgets.history import SearchBar, load_earlier
    from neocode_tui.tui.widgets.image_chip import ImageChips, attachment_lines
    from neocode_tui.tui.widgets.mention_picker import MentionPicker
    from neocode_tui.tui.widgets.prompt import PromptInput
    from neocode_tui.tui.widgets.queue import QueuedPrompts
    from neocode_tui.tui.widgets.status import StatusBar
    from neocode_tui.tui.widgets.todo_list import TodoList
    from neocode_tui.tui.widgets.transcript_search import TranscriptSearchBar
    from neocode_tui.tui.widgets.vi_keys import ViTextArea

__all__ = [
    "ImageChips",
    "MentionPicker",
    "PromptInput",
    "QueuedPrompts",
    "SearchBar",
    "SlashCompletion",
    "StatusBar",
    "TodoList",
    "TranscriptSearchBar",
    "ViTextArea",
    "attachment_lines",
    "load_earlier",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "completion": ("SlashCompletion",),
        "history": ("SearchBar", "load_earlier",),
        "image_chip": ("ImageChips", "attachment_lines",),
        "mention_picker": ("MentionPicker",),
        "prompt": ("PromptInput",),
        "queue": ("QueuedPrompts",),
        "status": ("StatusBar",),
        "todo_list": ("TodoList",),
        "transcript_search": ("TranscriptSearchBar",),
        "vi_keys": ("ViTextArea",),
    })
