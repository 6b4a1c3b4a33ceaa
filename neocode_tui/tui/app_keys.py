"""The app's keys as the user set them: the bindings Textual dispatches (single keys of the
app's actions), the chords read ahead of them, and what the input box is told to answer.

Until start-up has read the user's ``[keys]`` (in its thread, with the settings) the
defaults apply; keys that need the session are held until then anyway, so a user's key
pressed at start does what the user bound it to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual import events
from textual.app import App
from textual.binding import Binding, BindingsMap

from neocode_tui.tui import keymap

if TYPE_CHECKING:
    from neocode_tui.tui.keymap import KeyMap
    from neocode_tui.tui.widgets.prompt import PromptInput

CHORD_SECONDS = 3.0
"""How long the hint that a chord has started stays up."""


class KeysHost(Protocol):
    _bindings: BindingsMap

    @property
    def prompt(self) -> PromptInput: ...

    @property
    def on_main_screen(self) -> bool: ...

    def notify(self, message: str, *, timeout: float | None = None, markup: bool = True) -> None: ...

    def refresh_bindings(self) -> None: ...

    async def run_action(self, action: str) -> bool: ...

    def call_next(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> None: ...


class AppKeys:
    def __init__(self, app: KeysHost) -> None:
        self._app = app
        self.keymap: KeyMap = keymap.default_keymap()
        self._chords = keymap.ChordReader({})
        self._bind()

    def use(self, keys: KeyMap) -> list[str]:
        """Binds ``keys``; returns what is wrong in them, for the screen to say."""
        self.keymap = keys
        self._bind()
        self._app.prompt.keys = keys
        return [*keys.problems, *keys.notes]

    def _bind(self) -> None:
        # Textual reads an app's bindings from this map on every key (no copy is kept), so
        # replacing it rebinds every key at once.
        self._app._bindings = BindingsMap([
            *App.BINDINGS,
            Binding("ctrl+c", "interrupt_clear_or_quit", "Interrupt / clear / quit", show=False, priority=True),
            *(Binding(key, action.method, action.name, show=False, priority=action.first)
              for key, action in self.keymap.app_keys()),
        ])
        self._chords = keymap.ChordReader(self.keymap.chords())
        self._app.refresh_bindings()

    def read_chord(self, event: events.Key) -> bool:
        """True when ``event`` belongs to a chord (started, ended or cancelled it): nothing
        else is to see it."""
        step = self._chords.feed(event.key)
        if step.kind == "pass":
            return False
        event.stop()
        event.prevent_default()
        if step.kind == "wait":
            self._app.notify(f"{keymap.label(step.pressed)} … (Esc cancels)", timeout=CHORD_SECONDS, markup=False)
        elif step.kind == "run" and step.action is not None:
            self._run(step.action)
        return True

    def _run(self, name: str) -> None:
        action = keymap.BY_NAME[name]
        if action.where == "prompt":
            if self._app.on_main_screen:
                # Queued behind the keys already on their way to the prompt: it acts in order.
                self._app.prompt.post_message(self._app.prompt.Perform(name))
            return
        self._app.call_next(self._app.run_action, action.method)
