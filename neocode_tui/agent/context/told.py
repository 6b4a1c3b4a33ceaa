"""A compaction told in words: the one line a screen folds it under, and the whole notice a
front end without folds (headless, an editor) shows."""

from __future__ import annotations

from neocode_tui.agent.context.figure import about
from neocode_tui.agent.loop_events import Compaction


def compaction_headline(what: Compaction) -> str:
    """"compacted 12 messages (~8,100 → ~1,200 tokens)"."""
    return (f"compacted {what.summarised:,} message{'s' * (what.summarised != 1)} "
            f"({about(what.tokens_before)} → {about(what.tokens_after)} tokens)")


def compaction_words(what: Compaction) -> str:
    kept = f", the last {what.kept} kept as they were" if what.kept else ""
    return (f"── compacted ({what.reason}) ──\n{what.summarised} earlier messages were summarised"
            f"{kept}: {about(what.tokens_before)} → {about(what.tokens_after)} tokens. The session file "
            f"keeps the whole history; the model now reads this summary:\n\n{what.summary}")
