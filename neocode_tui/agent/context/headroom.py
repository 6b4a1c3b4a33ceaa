"""How close the key is to its rate limits, as the provider's last replies said: what the
status bar warns of, ``/cost`` lists and a status-line script reads as ``rate_limits``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from neocode_tui.events import RateLimits, RateLimitWindow, clock_time

LOW = 0.2
"""The share left below which the status bar names the tightest limit."""

_WORDS = {"requests": "requests", "tokens": "tokens", "input_tokens": "input tokens",
          "output_tokens": "output tokens", "five_hour": "5-hour window", "seven_day": "7-day window"}


class Headroom:
    """The newest report of each window; one that has reset since is not a warning."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        """``now``: Unix time, which the servers' resets are given in."""
        self._now = now
        self._windows: dict[str, RateLimitWindow] = {}

    def seen(self, limits: RateLimits) -> None:
        for window in limits.windows:
            self._windows[window.name] = window

    @property
    def windows(self) -> list[RateLimitWindow]:
        return list(self._windows.values())

    def _current(self) -> list[RateLimitWindow]:
        now = self._now()
        return [window for window in self._windows.values()
                if window.left is not None and (window.resets_at is None or window.resets_at > now)]

    def low(self) -> RateLimitWindow | None:
        """The tightest window with less than ``LOW`` left, if one is."""
        tightest = min(self._current(), key=lambda window: window.left or 0.0, default=None)
        return tightest if tightest is not None and (tightest.left or 0.0) < LOW else None

    def warning(self) -> str:
        """"tokens 12% left · resets in 0:42" for the status bar, or "" when none is low."""
        window = self.low()
        if window is None:
            return ""
        return f"{_WORDS.get(window.name, window.name)} {window.left or 0:.0%} left{self._reset(window)}"

    def _reset(self, window: RateLimitWindow) -> str:
        if window.resets_at is None:
            return ""
        return f" · resets in {clock_time(window.resets_at - self._now())}"

    def report(self) -> list[str]:
        """``/cost``'s lines: every window as last reported."""
        if not self._windows:
            return []
        lines = ["rate limits, as the provider's last reply reported them:"]
        for window in self._windows.values():
            lines.append(f"  {_WORDS.get(window.name, window.name):<14}  {_amount(window):<28}{self._reset(window)}")
        return lines

    def status_json(self) -> dict[str, Any]:
        """Claude Code's status-line ``rate_limits``: per window ``used_percentage`` (0 to
        100) and ``resets_at`` (Unix seconds), plus the counts when the server gave them."""
        data: dict[str, Any] = {}
        for window in self._windows.values():
            left = window.left
            if left is None:
                continue
            entry: dict[str, Any] = {"used_percentage": round((1 - left) * 100, 1)}
            if window.resets_at is not None:
                entry["resets_at"] = round(window.resets_at)
            if window.limit is not None and window.remaining is not None:
                entry |= {"limit": window.limit, "remaining": window.remaining}
            data[window.name] = entry
        return data


def _amount(window: RateLimitWindow) -> str:
    """"20 of 500 left (4%)", "58% left", or "limit 500" when only that was said."""
    left = window.left
    if window.limit is not None and window.remaining is not None:
        return f"{window.remaining:,} of {window.limit:,} left ({left or 0:.0%})"
    if left is not None:
        return f"{left:.0%} left"
    return f"limit {window.limit:,}" if window.limit is not None else f"{window.remaining or 0:,} left"
