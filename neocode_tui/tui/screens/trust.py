"""The one-time question "trust this folder?", asked when the folder's own files want what
only the user may grant (the approval mode, the provider, where requests go, MCP servers).

y trusts it (remembered in the user's config folder, never in the workspace); n or Esc
goes on without the folder's settings, and the conversation says which were ignored.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from neocode_tui.terminal_text import visible


class TrustScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    TrustScreen { align: center middle; }
    TrustScreen > #dialog {
        width: 90%;
        max-width: 100;
        height: auto;
        border: thick $warning 80%;
        background: $surface;
        padding: 0 1;
    }
    TrustScreen #title { text-style: bold; margin-bottom: 1; }
    TrustScreen #keys { margin-top: 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("y", "decide(True)", "Trust", show=False),
        Binding("n", "decide(False)", "Not now", show=False),
        Binding("escape", "decide(False)", "Not now", show=False),
    ]

    def __init__(self, folder: Path, settings: list[str]) -> None:
        super().__init__()
        self.folder = folder
        self.settings = settings

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.assemble("Trust ", (visible(str(self.folder)), "bold $accent"), "?"), id="title")
            yield Static(
                "This folder's own files ask for what only a folder you trust may have:\n"
                f"  {visible(', '.join(self.settings))}\n"
                "A cloned repository could use these to start programs, run commands without "
                "asking or send your key elsewhere. Trust it only if you know where it came from.",
                id="body",
            )
            yield Static(
                Content.from_markup(
                    "[b]y[/b] trust this folder (remembered)   [b]n[/b] / [b]esc[/b] not now"
                ),
                id="keys",
            )

    def action_decide(self, trusted: bool) -> None:
        self.dismiss(trusted)
