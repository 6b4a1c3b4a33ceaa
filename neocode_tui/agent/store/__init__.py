"""Saved sessions: the append-only JSONL store, listings of what is saved, and the images kept
beside them; the prompts sent in each folder, for the prompt's history."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.store.images import images_dir
    from neocode_tui.agent.store.listing import TitleSource, title_of
    from neocode_tui.agent.store.prompt_history import PromptLog
    from neocode_tui.agent.store.session_store import (
        LoadedSession,
        SessionInfo,
        SessionStore,
        delete_session,
        find_session,
        list_sessions,
        load_session,
        session_records,
    )
    from neocode_tui.agent.store.words import FORK_MARK, age, fork_note, listing_text, messages_count

__all__ = [
    "FORK_MARK",
    "LoadedSession",
    "PromptLog",
    "SessionInfo",
    "SessionStore",
    "TitleSource",
    "age",
    "delete_session",
    "find_session",
    "fork_note",
    "list_sessions",
    "listing_text",
    "images_dir",
    "load_session",
    "messages_count",
    "session_records",
    "title_of",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "listing": ("TitleSource", "title_of",),
        "prompt_history": ("PromptLog",),
        "session_store": ("LoadedSession", "SessionInfo", "SessionStore", "delete_session", "find_session",
                          "list_sessions",
                          "load_session", "session_records",),
        "images": ("images_dir",),
        "words": ("FORK_MARK", "age", "fork_note", "listing_text", "messages_count",),
    })
