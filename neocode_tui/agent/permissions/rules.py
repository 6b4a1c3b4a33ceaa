"""Permission rules: ``allow``, ``ask`` and ``deny`` lists of ``tool(pattern)`` strings.

Claude Code's syntax, with NeoCode's tool names (Claude Code's are read as their
NeoCode twins). ``bash(npm test:*)`` is every command starting with ``npm test``,
``bash(git status)`` that command exactly; ``edit_file(src/**)`` a path pattern, read as
.gitignore reads it, relative to the workspace (``//abs/path`` from ``/``, ``~/path``
from home); ``web_fetch(domain:docs.python.org)`` a host, of any tool's ``url``
argument; a bare name (``bash``, ``mcp__git__*``, ``mcp__git``) the tool whatever its
arguments. A ``read_file`` rule covers every tool that reads files (``grep``, ``glob``,
``list_dir``), an ``edit_file`` or ``write_file`` rule both tools that write them.

Deny beats ask beats allow. A command is judged by the simple commands it runs
(``agent.command_parts``): it is allowed only when each is, and each command a wrapper or
shell in it runs (``timeout 5 rm x`` needs ``timeout`` and ``rm`` allowed); denied when
any command it may run is (past ``sudo``, ``xargs``, ``bash -c``, and a program named by
a pattern that could be the denied one: ``/bin/r? x`` is denied by ``bash(rm:*)``). One
that cannot be split for certain is never allowed by a rule, and asks when a deny or ask
rule could have been about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from neocode_tui.agent.permissions.command_parts import (
    Part,
    commands_run,
    inner_commands,
    pattern_matches,
    split_command,
)
from neocode_tui.claude_tools import our_name
from neocode_tui.deferred import lazy
from neocode_tui.errors import NeoCodeError

if TYPE_CHECKING:
    import pathspec
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    pathspec = lazy("pathspec")

Behavior = Literal["allow", "ask", "deny"]
BEHAVIORS: tuple[Behavior, ...] = ("deny", "ask", "allow")
"""In the order they win."""
READ_TOOLS = frozenset({"read_file", "grep", "glob", "list_dir"})
EDIT_TOOLS = frozenset({"edit_file", "write_file"})
FAMILIES = {"read_file": READ_TOOLS, "edit_file": EDIT_TOOLS, "write_file": EDIT_TOOLS}
"""What a rule on one tool of a family covers."""
_RULE = re.compile(r"([A-Za-z0-9_*.-]+)(?:\((.*)\))?", re.DOTALL)


class RuleError(NeoCodeError):
    """A rule that is not ``tool`` or ``tool(pattern)``."""

    exit_code = 2


@dataclass(frozen=True)
class Rule:
    tool: str
    """NeoCode's name, or a glob of names (``mcp__git__*``)."""
    pattern: str | None
    text: str
    """As written, for listing and removing."""

    @classmethod
    def parse(cls, text: str) -> Rule:
        written = text.strip()
        found = _RULE.fullmatch(written)
        if found is None or not written:
            raise RuleError(
                f"{text!r} is not a permission rule: write tool or tool(pattern), "
                "e.g. bash(npm test:*), edit_file(src/**), web_fetch(domain:example.com)"
            )
        tool, pattern = found.group(1), found.group(2)
        tool = our_name(tool) or tool
        if pattern is not None and pattern.strip() in ("", "*", ":*"):
            pattern = None
        return cls(tool, pattern.strip() if pattern is not None else None, written)

    def names(self, tool: str) -> bool:
        """Whether the rule is about the tool named ``tool``."""
        if tool in FAMILIES.get(self.tool, ()):
            return True
        if "*" in self.tool:
            return fnmatchcase(tool, self.tool)
        return tool == self.tool or (self.tool.startswith("mcp__") and tool.startswith(f"{self.tool}__")
                                     and self.tool.count("__") == 1)


@dataclass(frozen=True)
class Source:
    """Where rules were read: ``label`` names it to the user; ``path`` is the file (None
    for the command line and this session); ``format`` how to write it back."""

    label: str
    path: Path | None = None
    format: Literal["toml", "json", "flag", "session"] = "session"
    project: bool = False


@dataclass(frozen=True)
class RuleEntry:
    rule: Rule
    behavior: Behavior
    source: Source

    def describe(self) -> str:
        return f"{self.behavior:<5}  {self.rule.text}  ({self.source.label})"


@dataclass(frozen=True)
class Verdict:
    behavior: Behavior
    entry: RuleEntry | None
    """The rule that decided; None for a command that could not be checked."""

    @property
    def why(self) -> str:
        if self.entry is None:
            return ("the command cannot be split into simple commands for certain, so it "
                    "cannot be checked against your deny and ask rules")
        return f"the permission rule {self.entry.rule.text!r} ({self.entry.source.label})"


Resolver = Callable[[str], Path]
"""A tool's path argument to the resolved path (the workspace's rule: ``PathOutsideWorkspace``
for one outside it)."""


@dataclass
class RuleSet:
    entries: list[RuleEntry] = field(default_factory=list)
    root: Path = Path(".")
    home: Path = Path.home()

    def of(self, behavior: Behavior) -> list[RuleEntry]:
        return [entry for entry in self.entries if entry.behavior == behavior]

    def decide(self, tool: str, args: Mapping[str, Any], resolve: Resolver) -> Verdict | None:
        """The rule that decides a call, by deny, ask, allow; None when none is about it."""
        relevant = [entry for entry in self.entries if entry.rule.names(tool)]
        if not relevant:
            return None
        if tool == "bash":
            return self._command(str(args.get("command", "")), relevant)
        path = self._path(tool, args, resolve)
        for behavior in BEHAVIORS:
            for entry in relevant:
                if entry.behavior == behavior and self._covers(entry, args, path, behavior):
                    return Verdict(behavior, entry)
        return None

    def hidden(self, path: Path) -> RuleEntry | None:
        """The deny rule that keeps the resolved ``path`` from being read (a grep over its
        folder leaves it out; an @-mention does not attach it)."""
        for entry in self.of("deny"):
            if entry.rule.names("read_file") and self._path_matches(entry, path, under=True):
                return entry
        return None

    def _command(self, command: str, relevant: list[RuleEntry]) -> Verdict | None:
        parts = split_command(command)
        inner: list[Part] | None = None
        for behavior in ("deny", "ask"):
            entries = [entry for entry in relevant if entry.behavior == behavior]
            for entry in entries:
                if entry.rule.pattern is None:
                    return Verdict(behavior, entry)
            if not entries:
                continue
            inner = _all_inner(parts) if inner is None else inner
            if inner is None:
                return Verdict("ask", None)
            for entry in entries:
                if any(_may_match(entry.rule.pattern or "", part) for part in inner):
                    return Verdict(behavior, entry)
        allows = [entry for entry in relevant if entry.behavior == "allow"]
        run = _all_run(parts)
        if run is None or not allows:
            return None
        deciding: RuleEntry | None = None
        for part in run:
            allowing = next((e for e in allows if e.rule.pattern is None
                             or _command_matches(e.rule.pattern, part)), None)
            if allowing is None:
                return None
            deciding = deciding or allowing
        return Verdict("allow", deciding)

    def _path(self, tool: str, args: Mapping[str, Any], resolve: Resolver) -> Path | None:
        raw = args.get("path")
        if raw is None and tool in READ_TOOLS:
            raw = "."
        if not isinstance(raw, str):
            return None
        try:
            return resolve(raw)
        except (ValueError, OSError):
            return None  # the tool refuses it itself

    def _covers(self, entry: RuleEntry, args: Mapping[str, Any], path: Path | None, behavior: Behavior) -> bool:
        pattern = entry.rule.pattern
        if pattern is None:
            return True
        url = args.get("url")
        if isinstance(url, str):
            return _url_matches(pattern, url)
        if path is None:
            return False
        # A deny covers what is under a denied path too: listing or searching it reads it.
        return self._path_matches(entry, path, under=behavior == "deny")

    def _path_matches(self, entry: RuleEntry, path: Path, *, under: bool) -> bool:
        pattern = entry.rule.pattern
        if pattern is None:
            return True
        anchor, spec_line = self._anchored(pattern)
        if not path.is_relative_to(anchor):
            return False
        relative = path.relative_to(anchor).as_posix()
        candidates = [relative]
        if under:
            candidates.append(f"{relative}/-" if relative != "." else "-")
            candidates.extend(parent.as_posix() for parent in Path(relative).parents if str(parent) != ".")
        spec = _spec(spec_line)
        return any(spec.match_file(candidate) for candidate in candidates if candidate != ".")

    def _anchored(self, pattern: str) -> tuple[Path, str]:
        """The folder the pattern is relative to, and the pattern as .gitignore reads it."""
        if pattern.startswith("//"):
            return Path("/"), "/" + pattern[2:].lstrip("/")
        if pattern.startswith("~/"):
            return self.home, "/" + pattern[2:]
        if pattern.startswith("./"):
            return self.root, "/" + pattern[2:]
        return self.root, pattern


def _all_inner(parts: list[Part] | None) -> list[Part] | None:
    """Every command the parts may make run, for deny and ask rules."""
    return _each(parts, inner_commands)


def _all_run(parts: list[Part] | None) -> list[Part] | None:
    """Exactly the commands the parts run, for allow rules."""
    return _each(parts, commands_run)


def _each(parts: list[Part] | None, expand: Callable[[Part], list[Part] | None]) -> list[Part] | None:
    if parts is None:
        return None
    found: list[Part] = []
    for part in parts:
        inner = expand(part)
        if inner is None:
            return None
        found.extend(inner)
    return found


def _prefix(pattern: str) -> tuple[str, ...] | None:
    """The words a ``npm test:*`` (or ``npm test *``) rule starts with; None for another."""
    for suffix in (":*", " *"):
        if pattern.endswith(suffix):
            return tuple(pattern[: -len(suffix)].split())
    return None


def _command_matches(pattern: str, part: Part) -> bool:
    """``npm test:*`` (or ``npm test *``): the words start so; ``git status``: exactly
    these words; ``git * main``: ``*`` stands for any words. A command given more words
    when it runs (``xargs``) is covered by a prefix only."""
    tokens = part.tokens
    prefix = _prefix(pattern)
    if prefix is not None:
        return tokens[: len(prefix)] == prefix
    if part.open:
        return False
    if "*" in pattern:
        expression = ".*".join(re.escape(piece) for piece in " ".join(pattern.split()).split("*"))
        return re.fullmatch(expression, " ".join(tokens), re.DOTALL) is not None
    return tokens == tuple(pattern.split())


def _may_match(pattern: str, part: Part) -> bool:
    """Whether the command could be one the rule is about, for deny and ask rules: as
    ``_command_matches``, but a pattern word stands for any word it matches, and a command
    given more words when it runs for any words after its own."""
    if not part.open and not part.patterns:
        return _command_matches(pattern, part)
    rule = _prefix(pattern)
    whole = rule is None and "*" not in pattern
    if rule is None:  # exactly these words, or the words before the first ``*``
        words = pattern.split()
        rule = tuple(words[: next((i for i, word in enumerate(words) if "*" in word), len(words))])
    tokens = list(zip(part.tokens, part.token_patterns, strict=True))
    if (len(tokens) < len(rule) and not part.open) or (whole and len(tokens) > len(rule)):
        return False
    return all(word == token or (pattern_word and pattern_matches(token, word))
               for word, (token, pattern_word) in zip(rule, tokens, strict=False))


def _url_matches(pattern: str, url: str) -> bool:
    if not pattern.startswith("domain:"):
        return fnmatchcase(url, pattern)
    domain = pattern.removeprefix("domain:").strip().lower().rstrip(".")
    host = (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    if domain.startswith("*."):
        return host.endswith(domain[1:]) or host == domain[2:]
    return host == domain


@lru_cache(maxsize=256)
def _spec(line: str) -> Any:
    return pathspec.GitIgnoreSpec.from_lines([line])


def parse_rules(texts: Iterable[str], behavior: Behavior, source: Source,
                problems: list[str]) -> list[RuleEntry]:
    """Each text as a rule of ``source``; a bad one is a problem naming its source."""
    entries: list[RuleEntry] = []
    for text in texts:
        if not isinstance(text, str):
            problems.append(f"{source.label}: permissions.{behavior} holds {text!r}, not a rule string")
            continue
        try:
            entries.append(RuleEntry(Rule.parse(text), behavior, source))
        except RuleError as exc:
            problems.append(f"{source.label}: {exc}")
    return entries
