"""Saved sessions in words, the same for every front end: how long ago one was used, what it
was made from, and the text listing of ``/sessions``, ``neocode sessions`` and ``-p``.

The words are the user's language whatever the locale (month names too), so listings and
their tests read the same everywhere. The text is the session files' and may be anything:
whoever shows it scrubs it for their screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neocode_tui.agent.store.listing import SessionInfo

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
FORK_MARK = "↳"
"""Before the title of a session forked from another: in every common monospace font."""
SHOWN = 20
"""Sessions a text listing shows, the most recently used first."""


def age(when: datetime, now: datetime) -> str:
    """``just now``, ``3 min ago``, ``5 h ago`` (today), ``yesterday``, ``Nov 28`` (this
    year), ``Nov 28 2025``. A time ahead of ``now`` (a clock set back) is ``just now``."""
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    days = (now.date() - when.date()).days
    if days == 0:
        return f"{int(seconds // 3600)} h ago"
    if days == 1:
        return "yesterday"
    day = f"{MONTHS[when.month - 1]} {when.day}"
    return day if when.year == now.year else f"{day} {when.year}"


def fork_note(info: SessionInfo) -> str:
    """``forked from "Parent" at prompt 3`` for a session made from another (by its id
    when that one is gone or has no title), "" for one that was not."""
    if not info.forked_from:
        return ""
    named = f'"{info.parent_title}"' if info.parent_title else info.forked_from
    at = f" at prompt {info.fork_prompt}" if info.fork_prompt is not None else ""
    return f"forked from {named}{at}"


def messages_count(info: SessionInfo) -> str:
    return f"{info.messages} msg" if info.messages == 1 else f"{info.messages} msgs"


def listing_text(sessions: Sequence[SessionInfo], limit: int | None = SHOWN) -> list[str]:
    """Each session as a line ``ID  WHEN  TITLE``, with its latest prompt and what it was
    forked from indented below; the first ``limit`` (None: all)."""
    lines = []
    shown = sessions if limit is None else sessions[:limit]
    for info in shown:
        mark = f"{FORK_MARK} " if info.forked_from else ""
        lines.append(f"{info.id}  {info.updated:%Y-%m-%d %H:%M}  {mark}{info.title or '(no prompt)'}")
        if info.latest_prompt and info.latest_prompt != info.title:
            lines.append(f"    › {info.latest_prompt}")
        if note := fork_note(info):
            lines.append(f"    {note}")
    if len(sessions) > len(shown):
        lines.append(f"… and {len(sessions) - len(shown)} older (neocode sessions lists them all)")
    return lines
