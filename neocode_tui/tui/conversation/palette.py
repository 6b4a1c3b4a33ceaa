"""The colours blocks are drawn with, taken from the app's current Textual theme.

Blocks are rendered once into lines with Rich, outside Textual's CSS, so the theme's colours
are read here once per theme and handed to every renderer; a theme switch re-renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from rich.theme import Theme as RichTheme

from neocode_tui.tui.keys import KeyNames


@dataclass(frozen=True)
class Palette:
    dark: bool
    foreground: str
    muted: str
    primary: str
    accent: str
    success: str
    warning: str
    error: str
    panel: str
    keys: KeyNames = field(default_factory=KeyNames)
    """The keys the blocks' hints name."""

    @classmethod
    def from_variables(cls, variables: dict[str, str], dark: bool, keys: KeyNames | None = None) -> Palette:
        def pick(name: str, fallback: str) -> str:
            value = variables.get(name, fallback)
            return value if value.startswith("#") else fallback

        return cls(
            dark=dark,
            foreground=pick("foreground", "#E0E0E0" if dark else "#202020"),
            muted=pick("foreground-darken-2", "#909090"),
            primary=pick("primary", "#0178D4"),
            accent=pick("accent", "#FEA62B"),
            success=pick("success", "#4EBF71"),
            warning=pick("warning", "#FEA62B"),
            error=pick("error", "#B93C5B"),
            panel=pick("panel", "#242F38" if dark else "#D8D8D8"),
            keys=keys or KeyNames(),
        )

    @property
    def code_theme(self) -> str:
        return "monokai" if self.dark else "default"

    @cached_property
    def rich_theme(self) -> RichTheme:
        """Rich's Markdown styles, recoloured so inline code and headings follow the theme."""
        return RichTheme(
            {
                "markdown.code": f"bold {self.accent}",
                "markdown.h1": f"bold {self.primary}",
                "markdown.h1.border": self.primary,
                "markdown.h2": f"bold underline {self.primary}",
                "markdown.h3": f"bold {self.primary}",
                "markdown.h4": "bold italic",
                "markdown.link": f"underline {self.primary}",
                "markdown.link_url": self.primary,
                "markdown.block_quote": f"italic {self.muted}",
                "markdown.item.bullet": f"bold {self.accent}",
                "markdown.item.number": f"bold {self.accent}",
                "markdown.hr": self.muted,
                "markdown.table.border": self.muted,
            }
        )
