"""``/permissions``: the saved rules and this session's yeses, one numbered list, and taking
one out by its number or its text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from neocode_tui.agent.commands.outcomes import Report
from neocode_tui.agent.permissions import Grant, grants_in, revoke

if TYPE_CHECKING:
    from neocode_tui.agent.commands.host import CommandHost
    from neocode_tui.agent.permissions import RuleEntry

USAGE = "usage: /permissions (list them), /permissions rm N or /permissions rm TEXT (take one out)"
NO_RULES = ("no permission rules: add allow, ask and deny lists to [permissions] in config.toml "
            "or to .neocode/settings.json")


def listed(session: CommandHost) -> list[RuleEntry | Grant]:
    """The rules (deny, ask, allow), then the yeses for this session, numbered from 1."""
    return [*session.permissions.listing(), *grants_in(session.loop.gate.allowed_for_session)]


def _named(text: str, item: RuleEntry | Grant) -> bool:
    if isinstance(item, Grant):
        return item.answers_to(text)
    wanted = " ".join(text.split())
    return wanted in (item.rule.text, f"{item.behavior} {item.rule.text}")


def _pick(items: list[RuleEntry | Grant], wanted: str) -> RuleEntry | Grant | str:
    """The one item ``wanted`` names (a number or a text), else what the user is told."""
    if wanted.isdigit():
        if 1 <= int(wanted) <= len(items):
            return items[int(wanted) - 1]
        return f"there is no rule {wanted}: the numbers go from 1 to {len(items)} (/permissions lists them)"
    found = [item for item in items if _named(wanted, item)]
    if len(found) == 1:
        return found[0]
    if not found:
        return f"nothing allowed or ruled is called {wanted!r}: /permissions lists them"
    numbers = ", ".join(str(items.index(item) + 1) for item in found)
    return f"{len(found)} rules are called {wanted!r} ({numbers}): take one out by its number"


async def remove(session: CommandHost, wanted: str) -> Report:
    items = listed(session)
    picked = _pick(items, wanted)
    if isinstance(picked, str):
        return Report(picked, "warning")
    if isinstance(picked, Grant):
        revoke(session.loop.gate.allowed_for_session, picked)
        return Report(f"took back the yes for this session to {picked.scope}: it is asked again")
    await session.permissions.remove(picked)
    return Report(f"removed {picked.behavior} {picked.rule.text} ({picked.source.label})")


def listing(session: CommandHost) -> Report:
    items = listed(session)
    ignored = [f"not applied: {line}" for line in session.permissions.ignored]
    if not items:
        return Report("\n".join([NO_RULES, *ignored]))
    lines: list[str] = []
    for number, item in enumerate(items, 1):
        if isinstance(item, Grant) and (number == 1 or not isinstance(items[number - 2], Grant)):
            lines += [""] * (number > 1) + ["Allowed for this session (your yes in an approval):"]
        elif number == 1:
            lines.append("Permission rules (deny beats ask beats allow):")
        lines.append(f"{number:>3}  {item.describe()}")
    return Report("\n".join([*lines, *ignored, "", "/permissions rm N (or rm TEXT) takes one out"]))
