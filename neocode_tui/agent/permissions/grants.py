"""What the user's "yes for this session" answers allow: each a scope the gate holds
(``bash: npm test …``, ``web_fetch: example.com``, ``write_file``), named as the user knows
it, found again by what the user types, and taken back."""

from __future__ import annotations

from collections.abc import MutableSet
from dataclasses import dataclass
from typing import Literal

GrantKind = Literal["command", "domain", "tool"]


@dataclass(frozen=True)
class Grant:
    scope: str
    """The gate's own words for it: what ``Tool.session_scope`` returned."""

    @property
    def kind(self) -> GrantKind:
        tool, _, _ = self.scope.partition(": ")
        if tool == "bash":
            return "command"
        return "domain" if tool == "web_fetch" and ": " in self.scope else "tool"

    @property
    def subject(self) -> str:
        """What is allowed, without the tool's name: ``npm test …``, ``example.com``."""
        tool, _, rest = self.scope.partition(": ")
        return rest or tool

    def describe(self) -> str:
        if self.kind == "command" and self.subject.endswith(" …"):
            return f"command  {self.subject.removesuffix(' …')} (and any arguments)"
        return f"{self.kind:<7}  {self.subject}"

    def answers_to(self, text: str) -> bool:
        """Whether ``text`` names this grant: its scope, or what it allows (spaces and a
        trailing ``…`` as the user may type them or not)."""
        wanted = " ".join(text.split())
        return wanted in (self.scope, self.subject, self.subject.removesuffix(" …"))


def grants_in(allowed: MutableSet[str]) -> list[Grant]:
    """The yeses held, in a stable order (commands, then domains, then tools)."""
    order = {"command": 0, "domain": 1, "tool": 2}
    return sorted((Grant(scope) for scope in allowed), key=lambda grant: (order[grant.kind], grant.scope))


def revoke(allowed: MutableSet[str], grant: Grant) -> None:
    """The gate asks again for what ``grant`` allowed (subagents share the same set)."""
    allowed.discard(grant.scope)
