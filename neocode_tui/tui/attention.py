"""Calling the user back when the agent waits for them and they are looking elsewhere.

A turn that ends or a question that waits is easy to miss in a terminal behind other
windows. The app rings the bell or sends a desktop notification, and only while its
terminal window has no focus (terminals report focus changes; one that does not is always
taken as watched, so nothing is sent). The escape sequences:

- ``bell``: BEL, which most terminals turn into a sound, an urgency hint or a badge;
- ``osc9``: ``ESC ] 9 ; text BEL``, a desktop notification in iTerm2, WezTerm, kitty,
  Ghostty and Windows Terminal;
- ``osc777``: ``ESC ] 777 ; notify ; title ; text BEL``, the same in foot, urxvt and
  VTE-based terminals (GNOME Terminal, Tilix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from neocode_tui.deferred import lazy
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui import agent
    from neocode_tui.agent import LoopEvent
    from neocode_tui.settings import NotifyMode
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    agent = lazy("neocode_tui.agent")

TITLE = "NeoCode"
_MAX_TEXT = 200
RUN_ENDED = {
    "done": "done: your turn",
    "cancelled": "interrupted",
    "error": "stopped on an error",
    "turn_limit": "stopped at the turn limit",
}
"""What the notification says when a run ends, by its reason."""


def _clean(text: str) -> str:
    """On one line, every control shown escaped: one could end the sequence early and
    smuggle in another."""
    return " ".join(visible(text).split())[:_MAX_TEXT]


def notification(mode: NotifyMode, message: str) -> str:
    """The bytes to write to the terminal for ``message`` ("" when ``mode`` is off)."""
    if mode == "off":
        return ""
    if mode == "bell":
        return "\a"
    text = _clean(message)
    if mode == "osc9":
        return f"\x1b]9;{TITLE}: {text}\a"
    return f"\x1b]777;notify;{TITLE};{text}\a"  # the text is all after the title: ';' may stay


def waiting_for_user(event: LoopEvent) -> str | None:
    """What to call the user back with when ``event`` leaves the agent waiting for them (a
    run that ended, a call, the agent's or a subagent's, that waits for approval, the agent's
question) or brings
    news they asked to hear (a background command that ended)."""
    if isinstance(event, agent.RunFinished):
        return RUN_ENDED[event.reason]
    if isinstance(event, agent.Notice) and event.calls_back:
        return event.message
    if isinstance(event, agent.ApprovalRequested):
        return f"approval needed: {event.summary}"
    if isinstance(event, agent.ToolStarted) and event.name == "ask_user":
        return "the agent has a question for you"
    if event.type == "subagent_event" and isinstance(event.event, agent.ApprovalRequested):
        return f"approval needed ({event.agent}): {event.event.summary}"
    return None
