"""Each rule kind against real paths of a real folder, and the shell splitting that guards
the command rules (an attacker's commands, parsed by the real grammar)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.command_parts import split_command
from neocode_tui.agent.permission_rules import Entry, Rule, RuleError, RuleSet, Source
from neocode_tui.agent.workspace import Workspace


def rules(workspace: Path, **lists: list[str]) -> RuleSet:
    source = Source("test")
    entries = [Entry(Rule.parse(text), behavior, source)  # type: ignore[arg-type]
               for behavior, texts in lists.items() for text in texts]
    return RuleSet(entries, root=workspace.resolve(), home=workspace.parent)


def decide(ruleset: RuleSet, workspace: Path, tool: str, **args: object) -> str | None:
    verdict = ruleset.decide(tool, args, Workspace(workspace).resolve)
    return None if verdict is None else verdict.behavior


def test_claude_code_names_are_neocode_s() -> None:
    assert [Rule.parse(text).tool for text in ("Bash(x)", "Edit(a)", "MultiEdit(a)", "Write(a)",
                                               "Read(a)", "Glob", "Grep", "LS", "WebFetch")] == [
        "bash", "edit_file", "edit_file", "write_file", "read_file", "glob", "grep", "list_dir",
        "web_fetch"]
    with pytest.raises(RuleError, match="not a permission rule"):
        Rule.parse("bash(npm test")


def test_path_rules_read_as_gitignore_from_the_workspace(workspace: Path) -> None:
    ruleset = rules(workspace, allow=["edit_file(src/**)"], deny=["read_file(./secrets/**)", "Read(*.pem)"])
    assert decide(ruleset, workspace, "write_file", path="src/deep/a.py") == "allow"
    assert decide(ruleset, workspace, "edit_file", path="app.py") is None
    for tool in ("read_file", "list_dir", "grep", "glob"):
        assert decide(ruleset, workspace, tool, path="secrets") == "deny"
        assert decide(ruleset, workspace, tool, path="secrets/sub/x") == "deny"
    assert decide(ruleset, workspace, "read_file", path="keys/site.pem") == "deny"
    assert decide(ruleset, workspace, "read_file", path="app.py") is None
    assert decide(ruleset, workspace, "grep", path=".") is None  # the search leaves them out


def test_absolute_and_home_patterns(workspace: Path) -> None:
    ruleset = rules(workspace, deny=[f"read_file(/{workspace.resolve()}/private/**)", "read_file(~/ws/notes.md)"])
    assert decide(ruleset, workspace, "read_file", path="private/a") == "deny"
    assert decide(ruleset, workspace, "read_file", path="notes.md") == "deny"


def test_domain_rules_match_any_tool_s_url_argument(workspace: Path) -> None:
    ruleset = rules(workspace, allow=["web_fetch(domain:docs.python.org)"],
                    deny=["web_fetch(domain:*.evil.example)"])
    assert decide(ruleset, workspace, "web_fetch", url="https://docs.python.org/3/") == "allow"
    assert decide(ruleset, workspace, "web_fetch", url="https://docs.python.org.evil.example/") == "deny"
    assert decide(ruleset, workspace, "web_fetch", url="https://a.evil.example/x") == "deny"
    assert decide(ruleset, workspace, "web_fetch", url="https://user@docs.python.org@other.org/") is None


def test_tool_name_rules_and_mcp_servers(workspace: Path) -> None:
    ruleset = rules(workspace, allow=["mcp__git__*"], deny=["mcp__time", "glob"])
    assert decide(ruleset, workspace, "mcp__git__git_status", repo_path=".") == "allow"
    assert decide(ruleset, workspace, "mcp__time__now") == "deny"
    assert decide(ruleset, workspace, "mcp__timer__now") is None
    assert decide(ruleset, workspace, "glob", pattern="*") == "deny"


def test_command_rules_judge_every_part(workspace: Path) -> None:
    ruleset = rules(workspace, allow=["bash(npm test:*)", "bash(git status)", "bash(git log *)"],
                    ask=["bash(git push:*)"], deny=["bash(curl:*)"])
    for allowed in ("npm test", "npm test -- --watch", "git status", "npm test && git status",
                    "git log --oneline", "npm test 2>&1", "npm test >/dev/null"):
        assert decide(ruleset, workspace, "bash", command=allowed) == "allow", allowed
    for smuggled in ("npm test && rm -rf x", "npm test; rm x", "npm test | sh", "npm test $(rm x)",
                     "npm test `rm x`", "npm test > x", "npm tests", "git status --porcelain",
                     "PATH=. npm test", "npm test <(rm x)", "npm test\nrm x"):
        assert decide(ruleset, workspace, "bash", command=smuggled) != "allow", smuggled
    assert decide(ruleset, workspace, "bash", command="npm test && curl x") == "deny"
    assert decide(ruleset, workspace, "bash", command="env -S 'curl x'") == "deny"
    assert decide(ruleset, workspace, "bash", command="sh -c 'git push origin'") == "ask"
    assert decide(ruleset, workspace, "bash", command="npm test $(curl x)") == "ask"  # unsplittable
    for hidden in ("/usr/bin/curl x", "find . -name '*.py' -exec curl x {} ;", "nice -n 5 curl x",
                   "command curl x", "eval curl x", "sh -c \"bash -c 'curl x'\""):
        assert decide(ruleset, workspace, "bash", command=hidden) == "deny", hidden


@pytest.mark.parametrize("command", ["a && b", "a; b", "a || b", "a | b", "a & b", "a\nb"])
def test_lists_and_pipelines_split(command: str) -> None:
    parts = split_command(command)
    assert parts is not None and [part.words for part in parts] == [("a",), ("b",)]


@pytest.mark.parametrize("command", [
    "a $(b)", "a `b`", "a <(b)", "a ${X}", "a $X", "X=1 a", "a > f", "a 2> f", "(a; b)", "{ a; }",
    "f() { a; }", "a <<EOF\nx\nEOF", "for x in y; do a; done", "a 'unterminated",
])
def test_what_could_hide_a_program_is_not_split(command: str) -> None:
    assert split_command(command) is None


def test_a_command_too_long_to_parse_quickly_is_not_split() -> None:
    assert split_command("npm test && " * 1000 + "npm test") is None
