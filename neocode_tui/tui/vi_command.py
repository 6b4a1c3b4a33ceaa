"""``/vim``: vi keys in the prompt on or off, remembered in the app's own settings file the
way the theme is. ``/vim on`` and ``/vim off`` set it whichever way it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from neocode_tui.tui.user_config import load_user_config, save_user_config
from neocode_tui.tui.widgets import ViTextArea

ON_NOTICE = "vi mode on: Esc for NORMAL, i (a, o…) to type again, Esc in NORMAL interrupts; /vim turns it off"


Say = Callable[[Literal["info", "warning", "error"], str], object]


def toggle_vi(prompt: ViTextArea, say: Say, argument: str) -> None:
    wanted = argument.strip().lower()
    if wanted not in ("", "on", "off"):
        say("warning", f"/vim takes on, off or nothing (to switch), not {argument.strip()!r}")
        return
    on = prompt.vi is None if not wanted else wanted == "on"
    prompt.set_vi(on)
    try:
        config = load_user_config()
        config.vim = on
        save_user_config(config)
    except OSError as exc:
        say("warning", f"vi mode is {'on' if on else 'off'} for this run, not remembered: {exc}")
        return
    say("info", ON_NOTICE if on else "vi mode off")
