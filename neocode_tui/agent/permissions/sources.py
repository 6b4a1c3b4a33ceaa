"""Where permission rules come from, and writing one back or taking one out.

The user's own files are trusted whole: ``[permissions]`` of ``config.toml`` and
``~/.claude/settings.json``. A project's files (``.neocode/settings.json``,
``.claude/settings.json`` and ``.claude/settings.local.json``, where Claude Code writes
"don't ask again") may always add ``deny`` and ``ask`` rules, which only take
power away; their ``allow`` rules count only in a folder the user trusts, and only as
the file was when they trusted it (``neocode_tui.trust``): otherwise a clone could
allow itself ``bash(curl:*)``. Rules given on the command line (``--allowed-tools``,
``--disallowed-tools``) and those allowed in the approval dialog for this session only
live in memory.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from neocode_tui.agent.permissions.rules import BEHAVIORS, Behavior, Rule, RuleEntry, RuleSet, Source, parse_rules
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace
from neocode_tui.json_files import MISSING, read_json
from neocode_tui.paths import write_private
from neocode_tui.protected_files import CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, NEOCODE_SETTINGS
from neocode_tui.settings.user_file import MAX_CONFIG_FILE, config_file
from neocode_tui.trust import refresh_fingerprint, untrusted_reason

SaveTo = Literal["user", "project"]
FLAGS = Source("--allowed-tools / --disallowed-tools", format="flag")
SESSION = Source("this session")


@dataclass
class LoadedRules:
    rules: RuleSet
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """One line per project file whose allow rules were not applied, and why."""


def load_rules(
    workspace: Path, *, trusted: bool = False, allowed: Sequence[str] = (),
    disallowed: Sequence[str] = (), extra: Sequence[RuleEntry] = (),
) -> LoadedRules:
    """Every rule that applies in ``workspace``. ``trusted``: the user vouched for the
    folder for this run (``--trust``); else the remembered answer and fingerprints."""
    workspace = workspace.resolve()
    loaded = LoadedRules(RuleSet(root=workspace, home=Path.home()))
    entries = loaded.rules.entries
    entries += _from_toml(config_file(), loaded.problems)
    user_claude = Path.home() / CLAUDE_SETTINGS
    entries += _from_json(user_claude, Source(f"~/{CLAUDE_SETTINGS}", user_claude, "json"),
                          loaded.problems)
    for name in (NEOCODE_SETTINGS, CLAUDE_SETTINGS, CLAUDE_LOCAL_SETTINGS):
        path = workspace / name
        if path == user_claude:
            continue
        read = read_json(path)
        source = Source(name, path, "json", project=True)
        found = _from_json(path, source, loaded.problems, read.data, read.problem)
        why = "" if trusted or read.raw is None else untrusted_reason(workspace, name, read.raw)
        allowed_here = [entry for entry in found if entry.behavior == "allow"]
        if why and allowed_here:
            loaded.ignored.append(
                f"allow rules in {name} not applied, {why}: "
                + ", ".join(entry.rule.text for entry in allowed_here)
            )
            found = [entry for entry in found if entry.behavior != "allow"]
        entries += found
    entries += parse_rules(split_rules(allowed), "allow", FLAGS, loaded.problems)
    entries += parse_rules(split_rules(disallowed), "deny", FLAGS, loaded.problems)
    entries += extra
    return loaded


def split_rules(values: Sequence[str]) -> list[str]:
    """``--allowed-tools "bash(npm test:*) edit_file"``: rules split at commas and at
    blanks outside parentheses (a command pattern keeps its own blanks)."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            depth += (char == "(") - (char == ")")
            if depth <= 0 and (char == "," or char.isspace()):
                if current.strip():
                    rules.append(current.strip())
                current, depth = "", 0
            else:
                current += char
        if current.strip():
            rules.append(current.strip())
    return rules


def _lists(data: Any, label: str, problems: list[str]) -> dict[Behavior, list[Any]]:
    if not isinstance(data, dict):
        problems.append(f"{label}: permissions must be a table of allow, ask and deny lists")
        return {}
    lists: dict[Behavior, list[Any]] = {}
    for key, value in data.items():
        if key not in BEHAVIORS:
            continue  # Claude Code's other keys (defaultMode, additionalDirectories)
        if not isinstance(value, list):
            problems.append(f"{label}: permissions.{key} must be a list of rules")
            continue
        lists[key] = value
    return lists


def _from_toml(path: Path, problems: list[str]) -> list[RuleEntry]:
    """``[permissions]`` of the user's config; the file's own problems (bad TOML) are
    reported where the settings read it."""
    data = _toml(path)
    if "permissions" not in data:
        return []
    source = Source(str(path), path, "toml")
    return [entry for behavior, texts in _lists(data["permissions"], str(path), problems).items()
            for entry in parse_rules(texts, behavior, source, problems)]


def _toml(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_CONFIG_FILE:
            return {}
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _from_json(path: Path, source: Source, problems: list[str], data: Any = None,
               problem: str | None = None) -> list[RuleEntry]:
    if data is None and problem is None:
        data, problem, _ = read_json(path)
    if problem is not None:
        problems.append(problem)
        return []
    if data is MISSING or not isinstance(data, dict) or "permissions" not in data:
        return []
    return [entry for behavior, texts in _lists(data["permissions"], source.label, problems).items()
            for entry in parse_rules(texts, behavior, source, problems)]


# -- writing rules back -----------------------------------------------------------------


def save_rule(rule: Rule, behavior: Behavior, where: SaveTo, workspace: Workspace) -> Path:
    """Add ``rule`` to the user's config or to the project's ``.neocode/settings.json``."""
    if where == "user":
        _edit_toml(config_file(), lambda lists: _add(lists, behavior, rule.text))
        return config_file()
    path = workspace.root / NEOCODE_SETTINGS
    _edit_json(path, lambda lists: _add(lists, behavior, rule.text), workspace)
    return path


def remove_rule(entry: RuleEntry, workspace: Workspace) -> None:
    """Take ``entry`` out of the file it was read from."""
    path = entry.source.path
    assert path is not None

    def drop(lists: dict[str, Any]) -> None:
        values = lists.get(entry.behavior)
        if isinstance(values, list) and entry.rule.text in values:
            values.remove(entry.rule.text)

    if entry.source.format == "toml":
        _edit_toml(path, drop)
    else:
        _edit_json(path, drop, workspace if entry.source.project else None)


def _add(lists: dict[str, Any], behavior: Behavior, text: str) -> None:
    values = lists.setdefault(behavior, [])
    if text not in values:
        values.append(text)


def _edit_toml(path: Path, change: Any) -> None:
    """The user's file, its comments and layout kept (tomlkit)."""
    import tomlkit

    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        document = tomlkit.document()
    table = document.get("permissions")
    if table is None:
        table = tomlkit.table()
        document["permissions"] = table
    change(table)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, tomlkit.dumps(document).encode())


def _edit_json(path: Path, change: Any, workspace: Workspace | None) -> None:
    """A JSON settings file with its other keys kept. A project's is written through the
    workspace (no symlink out of it is followed), and a fingerprint the user trusted it
    with is moved on to the new content only if it was the old content's."""
    read = read_json(path)
    if read.problem is not None:
        raise OSError(read.problem)
    data = read.data if isinstance(read.data, dict) else {}
    lists = data.setdefault("permissions", {})
    if not isinstance(lists, dict):
        raise OSError(f"{path}: permissions is not a table of rule lists")
    change(lists)
    new = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    if workspace is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, new)
        return
    try:
        target = workspace.resolve(str(path))
        workspace.replace_file(target, new)
    except PathOutsideWorkspace as exc:
        raise OSError(f"{path} was not written: {exc}") from None
    name = target.relative_to(workspace.root).as_posix()
    refresh_fingerprint(workspace.root, name, read.raw, new)
