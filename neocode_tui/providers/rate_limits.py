"""Rate-limit headers in one vocabulary, whichever API sent them.

OpenAI and the servers that copy it send ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}``
(the reset as a duration, ``6m0s``); OpenRouter and some proxies the bare
``x-ratelimit-{limit,remaining,reset}`` (the reset in Unix milliseconds); Anthropic sends
``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}``
(the reset as an RFC 3339 time) and, for a plan's sign-in, the shares used of its five-hour
and seven-day windows (``anthropic-ratelimit-unified-5h-utilization`` and ``-reset``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from neocode_tui.events import RateLimits, RateLimitWindow

_KINDS = (("requests", "requests"), ("tokens", "tokens"), ("input-tokens", "input_tokens"),
          ("output-tokens", "output_tokens"))
_PLAN = (("5h", "five_hour"), ("7d", "seven_day"))
_PART = r"(\d+(?:\.\d+)?)(ms|h|m|s)"
_DURATION = re.compile(f"(?:{_PART})+")
_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_LONGEST = 400 * 24 * 3600.0
"""A reset further off than this is a number misread, not a window."""


def rate_limits(headers: Mapping[str, str], now: float) -> RateLimits | None:
    """The limits ``headers`` report (names in any case), or None when they say none;
    ``now``: the Unix time the reply came, which relative resets count from."""
    lower = {name.lower(): value for name, value in headers.items()}
    windows: list[RateLimitWindow] = []
    for wire, name in _KINDS:
        windows += _window(name, now, lower.get(f"x-ratelimit-limit-{wire}"),
                           lower.get(f"x-ratelimit-remaining-{wire}"), lower.get(f"x-ratelimit-reset-{wire}"))
        windows += _window(name, now, lower.get(f"anthropic-ratelimit-{wire}-limit"),
                           lower.get(f"anthropic-ratelimit-{wire}-remaining"),
                           lower.get(f"anthropic-ratelimit-{wire}-reset"))
    if not windows:
        windows += _window("requests", now, lower.get("x-ratelimit-limit"),
                           lower.get("x-ratelimit-remaining"), lower.get("x-ratelimit-reset"))
    for wire, name in _PLAN:
        used = _share(lower.get(f"anthropic-ratelimit-unified-{wire}-utilization"))
        if used is not None:
            windows.append(RateLimitWindow(
                name=name, used=used, resets_at=_reset(lower.get(f"anthropic-ratelimit-unified-{wire}-reset"), now)))
    return RateLimits(windows=tuple(_first_of_each(windows))) if windows else None


def exhausted_until(limits: RateLimits | None) -> float | None:
    """The Unix time the last used-up window resets, when one is used up: a 429 without
    ``retry-after`` waits for that."""
    if limits is None:
        return None
    ends = [window.resets_at for window in limits.windows
            if window.left == 0 and window.resets_at is not None]
    return max(ends, default=None)


def _window(name: str, now: float, limit: str | None, remaining: str | None,
            reset: str | None) -> list[RateLimitWindow]:
    if limit is None and remaining is None:
        return []
    return [RateLimitWindow(name=name, limit=_count(limit), remaining=_count(remaining),
                            resets_at=_reset(reset, now))]


def _first_of_each(windows: list[RateLimitWindow]) -> list[RateLimitWindow]:
    """One window per name: a server sending both families says the same thing twice."""
    seen: dict[str, RateLimitWindow] = {}
    for window in windows:
        seen.setdefault(window.name, window)
    return list(seen.values())


def _count(value: str | None) -> int | None:
    try:
        return max(0, int(float(value))) if value is not None else None
    except (ValueError, OverflowError):
        return None


def _share(value: str | None) -> float | None:
    """A share used, 0 to 1 (a percentage over 1 is read as one)."""
    try:
        share = float(value) if value is not None else None
    except ValueError:
        return None
    if share is None or share != share or share < 0:
        return None
    return min(share / 100 if share > 1 else share, 1.0)


def _reset(value: str | None, now: float) -> float | None:
    """A reset as Unix seconds: from a duration (``1m30s``, ``20ms``), seconds to wait,
    Unix seconds or milliseconds, or an RFC 3339 time."""
    if value is None:
        return None
    text = value.strip()
    when: float | None
    if _DURATION.fullmatch(text):
        when = now + sum(float(amount) * _SECONDS[unit] for amount, unit in re.findall(_PART, text))
    else:
        when = _number_or_time(text, now)
    return when if when is not None and now - 60 <= when <= now + _LONGEST else None


def _number_or_time(text: str, now: float) -> float | None:
    try:
        number = float(text)
    except ValueError:
        try:
            return datetime.fromisoformat(text).timestamp()
        except ValueError:
            return None
    if number > 1e12:
        return number / 1000
    return number if number > 1e9 else now + number
