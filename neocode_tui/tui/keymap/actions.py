"""What the app's keys do, each under the name a user rebinds it by (``[keys]`` in
``config.toml``), with its default keys and what the key overlay says of it.

``where`` says who answers the key: ``prompt`` keys are read by the input box as they
arrive (so a new line typed fast lands where it was typed); ``app`` keys by the app, before
the widget in focus when ``first`` (a modal's own Esc comes before ``interrupt``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Action:
    name: str
    defaults: tuple[str, ...]
    """Key sequences as written in ``config.toml`` (``"ctrl+x ctrl+e"`` is a chord)."""
    meaning: str
    where: Literal["prompt", "app"] = "app"
    method: str = ""
    """The Textual action an ``app`` key runs."""
    first: bool = True


ACTIONS: tuple[Action, ...] = (
    Action("send", ("enter",), "send (while it works: into the running turn)", "prompt"),
    Action("newline", ("alt+enter", "ctrl+j", "shift+enter"),
           "new line (or end the line with \\ and press Enter); Shift+Enter only where the "
           "terminal tells it from Enter (not tmux)", "prompt"),
    Action("history_search", ("ctrl+r",), "search the history (again: older; Esc cancels)", "prompt"),
    Action("later", ("tab",), "while the agent works: send for after this turn", "prompt"),
    Action("interrupt", ("escape",), "interrupt the running turn (or close this help, a list, a dialog)",
           method="interrupt", first=False),
    Action("cycle_mode", ("shift+tab",), "cycle the mode: ask, auto-edit, plan", method="cycle_mode"),
    Action("fold", ("ctrl+t",), "fold or unfold the latest tool output or thinking",
           method="toggle_latest_fold"),
    Action("expand", ("ctrl+o",), "transcript: unfold everything, or fold it back", method="transcript"),
    Action("search", ("ctrl+f",), "search the conversation: prompts, answers, tool output",
           method="search_transcript"),
    Action("background", ("ctrl+b",), "send the running command to the background", method="background"),
    Action("jobs", ("f2",), "see the background commands live (/ps)", method="jobs"),
    Action("copy", (), "copy the latest answer (as /copy does)", method="copy_answer"),
    Action("page_up", ("pageup",), "scroll the conversation up", method="page(-1)"),
    Action("page_down", ("pagedown",), "scroll the conversation down", method="page(1)"),
    Action("latest", ("end",), "jump to the latest (on an empty prompt)", method="latest"),
    Action("command_palette", ("ctrl+p",), "command palette", method="command_palette"),
    Action("key_help", ("f1",), "this list (also ? on an empty prompt)", method="key_help"),
)
BY_NAME = {action.name: action for action in ACTIONS}

RESERVED = {
    "ctrl+c": "Ctrl+C clears the input, interrupts or quits",
    "ctrl+q": "Ctrl+Q quits",
}
"""Keys no binding takes: the way out of the app always works, whatever the file says."""

FIXED: tuple[tuple[str, str, str], ...] = (
    ("newline", "Up / Down", "walk the history, earlier runs' prompts too"),
    ("history_search", "Up on an empty prompt", "take back the last waiting message (edit or drop)"),
    ("interrupt", "Ctrl+C", "clear the input; on an empty one, interrupt the turn; twice when idle: quit"),
    ("key_help", "/", "slash commands, completed as you type (Tab fills in, Enter runs)"),
    ("key_help", "@", "point at a file or folder: a fuzzy picker; its content goes with the prompt"),
)
"""Keys that are not rebound (the prompt's own, or part of what they open), each listed
after the action it goes with."""
