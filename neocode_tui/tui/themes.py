"""Theme files: ``themes/*.toml`` at the top of the repository, plus the user's own.

A theme file holds the fields of ``textual.theme.Theme``; once registered, its name works
everywhere Textual's built-in names do (``--theme``, ``/theme``, the command palette).
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path

from textual.theme import Theme

from neocode_tui.paths import config_dir
from neocode_tui.tui.user_config import load_user_config, save_user_config


def _bundled_themes() -> Path:
    """``themes/`` of the checkout (editable installs); a wheel installs the same files
    under ``{prefix}/share/neocode/themes`` (``data-files`` in pyproject.toml)."""
    checkout = Path(__file__).resolve().parents[2] / "themes"
    return checkout if checkout.is_dir() else Path(sys.prefix, "share", "neocode", "themes")


BUNDLED_THEMES = _bundled_themes()
DEFAULT_THEME = "neocode-dark"
_THEME_FIELDS = {field.name for field in fields(Theme)}


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


def load_theme_file(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ThemeFileError(f"{path.name}: {exc}") from exc
    unknown = sorted(set(data) - _THEME_FIELDS)
    if unknown:
        raise ThemeFileError(f"{path.name}: unknown keys {', '.join(unknown)}")
    if "name" not in data or "primary" not in data:
        raise ThemeFileError(f"{path.name}: a theme needs at least 'name' and 'primary'")
    return Theme(**data)


def theme_folders() -> list[Path]:
    """Bundled themes first, so a user's file with the same name overrides one of ours."""
    return [BUNDLED_THEMES, config_dir() / "themes"]


def discover_themes() -> tuple[list[Theme], list[str]]:
    """Every loadable theme, and one plain-words problem per file that is not."""
    themes: list[Theme] = []
    problems: list[str] = []
    for folder in theme_folders():
        for path in sorted(folder.glob("*.toml")):
            try:
                themes.append(load_theme_file(path))
            except ThemeFileError as exc:
                problems.append(f"theme file skipped: {exc}")
    return themes, problems


class ThemeChoice:
    """Which theme the app starts with and keeps: the one the settings (or the flag) name,
    else the one remembered from last time; an unknown name is a problem to show, never an
    error. ``remember``: each change is kept in the user's settings file for next time."""

    def __init__(self, available: Callable[[], Iterable[str]], *, remember: bool) -> None:
        self._available = available
        self.remember = remember
        self.problems: list[str] = []

    def starting(self, named: str | None) -> str:
        return self.known(named, load_user_config().theme)

    def known(self, *names: str | None) -> str:
        """The first of ``names`` that is a theme; an unknown name joins ``problems``."""
        available = set(self._available())
        for name in names:
            if name and name in available:
                return name
            if name:
                self.problems.append(f"unknown theme {name!r}: using the default")
        # Ours lives in themes/ beside the package; an install without it still starts.
        return DEFAULT_THEME if DEFAULT_THEME in available else "textual-dark"

    def keep(self, theme: str) -> None:
        if self.remember:
            config = load_user_config()
            config.theme = theme
            save_user_config(config)
