"""What ``neocode`` hands the app: the settings, loaded once the first frame is drawn, and
the flags that frame may show before them.

Loading the settings imports pydantic and validates them (about 75 ms, as long as an empty
Textual app takes to draw), so a plain ``neocode`` draws first and loads them right after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neocode_tui.providers import Provider
    from neocode_tui.settings import Profiles, Settings, TrustRequest
    from neocode_tui.vocabulary import ApprovalMode


@dataclass(frozen=True)
class Loaded:
    """The settings and what comes with them (see ``NeoCodeApp``'s arguments)."""

    settings: Settings
    provider: Provider | None = None
    untrusted: TrustRequest | None = None
    profiles: Profiles | None = None


@dataclass(frozen=True)
class Starting:
    """``load`` gives the settings, or raises ``NeoCodeError`` (the app then ends with its
    exit code); ``theme`` and ``approval``, the flags', are shown before it has run."""

    load: Callable[[], Loaded]
    theme: str | None = None
    approval: ApprovalMode | None = None
