"""A session's permission rules: loaded from their sources, consulted for each call, and
changed by the user (a rule saved from the approval dialog, one removed by ``/permissions``).

The rules in force are read again after each change, so what ``/permissions`` lists is
what the files say; rules of the command line and of this session stay in memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neocode_tui.agent.permissions.command_parts import split_command
from neocode_tui.agent.permissions.rules import Behavior, Rule, RuleEntry, RuleSet, Verdict
from neocode_tui.agent.permissions.sources import (
    FLAGS,
    SESSION,
    SaveTo,
    load_rules,
    remove_rule,
    save_rule,
    split_rules,
)
from neocode_tui.agent.workspace import Workspace
from neocode_tui.vocabulary import NoticeLevel


@dataclass(frozen=True)
class RunOptions:
    """What the command line adds to a session: rules (``--allowed-tools``,
    ``--disallowed-tools``) and words after the system prompt."""

    allowed_tools: Sequence[str] = ()
    disallowed_tools: Sequence[str] = ()
    append_system_prompt: str = ""
    add_dirs: tuple[Path, ...] = ()
    """More folders inside the confinement (``--add-dir``)."""


class Permissions:
    def __init__(
        self, workspace: Workspace, *, trusted: bool = False, allowed: Sequence[str] = (),
        disallowed: Sequence[str] = (),
    ) -> None:
        self.workspace = workspace
        self.trusted = trusted
        self.allowed, self.disallowed = list(allowed), list(disallowed)
        self.session_rules: list[RuleEntry] = []
        self.problems: list[str] = []
        self.ignored: list[str] = []
        self.rules = RuleSet()
        self.reload()
        workspace.hidden = self.hidden

    def reload(self) -> None:
        loaded = load_rules(
            self.workspace.root, trusted=self.trusted, allowed=self.allowed,
            disallowed=self.disallowed, extra=self.session_rules,
        )
        self.rules, self.problems, self.ignored = loaded.rules, loaded.problems, loaded.ignored

    def notices(self) -> list[str]:
        """What the first prompt tells the user: bad rules, and allow rules not applied."""
        return [*self.problems, *self.ignored]

    def decide(self, tool: str, args: Mapping[str, Any]) -> Verdict | None:
        return self.rules.decide(tool, args, self.workspace.resolve)

    def hidden(self, path: Path) -> str | None:
        """Why reading the resolved ``path`` is denied, or None."""
        entry = self.rules.hidden(path)
        return None if entry is None else f"denied by the permission rule {entry.rule.text!r} ({entry.source.label})"

    async def remember(self, text: str, where: SaveTo | None) -> tuple[NoticeLevel, str]:
        """Allow ``text`` from now on: saved to the user's config or the project
        (``where``), else for this session; returns what the user is told. A rule that
        cannot be saved still holds for this session (the user said yes to it)."""
        rule = Rule.parse(text)
        if where is None:
            self.session_rules.append(RuleEntry(rule, "allow", SESSION))
            self.reload()
            return "info", f"allowed for this session: {rule.text}"
        try:
            path = await asyncio.to_thread(save_rule, rule, "allow", where, self.workspace)
        except OSError as exc:
            self.session_rules.append(RuleEntry(rule, "allow", SESSION))
            self.reload()
            return "warning", f"could not save the rule {rule.text} ({exc.strerror or exc}); it holds for this session"
        self.reload()
        said = f"saved the rule allow {rule.text} in {path}"
        if not any(entry.rule == rule and entry.behavior == "allow" for entry in self.rules.entries):
            # A project whose allow rules do not count yet: it still holds for this session.
            self.session_rules.append(RuleEntry(rule, "allow", SESSION))
            self.reload()
            said += "; this folder's allow rules apply in later sessions once you trust it"
        return "info", said

    def listing(self) -> list[RuleEntry]:
        order: dict[Behavior, int] = {"deny": 0, "ask": 1, "allow": 2}
        return sorted(self.rules.entries, key=lambda entry: order[entry.behavior])

    async def remove(self, entry: RuleEntry) -> None:
        if entry.source == SESSION:
            self.session_rules.remove(entry)
        elif entry.source == FLAGS:
            kept = self.allowed if entry.behavior == "allow" else self.disallowed
            self._drop_flag(kept, entry.rule.text)
        else:
            await asyncio.to_thread(remove_rule, entry, self.workspace)
        self.reload()

    @staticmethod
    def _drop_flag(values: list[str], text: str) -> None:
        words = split_rules(values)
        if text in words:
            words.remove(text)
        values[:] = words


def prefix_rule(command: str, scope: str) -> str:
    """The rule "always allow commands starting with ``npm test``" the dialog offers for
    a simple command: the program (and subcommand) a yes for the session would cover."""
    parts = split_command(command)
    if not scope.endswith(" …") or parts is None or len(parts) != 1:
        return ""
    length = len(scope.removeprefix("bash: ").removesuffix(" …").split())
    prefix = " ".join(parts[0].tokens[:length])
    return f"bash({prefix}:*)" if prefix else ""
