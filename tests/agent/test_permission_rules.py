"""Each rule kind against real paths of a real folder, and the shell splitting that guards
the command rules (an attacker's commands, parsed by the real grammar)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.permissions.command_parts import split_command
from neocode_tui.agent.permissions.rules import Rule, RuleEntry, RuleError, RuleSet, Source
from neocode_tui.agent.workspace import Workspace


def rules(workspace: Path, **lists: list[str]) -> RuleSet:
    source = Source("test")
    entries = [RuleEntry(Rule.parse(text), behavior, source)  # type: ignore[arg-type]
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


SHELL_FORMS = [
    "bash -c 'rm x'", "bash -o posix -c 'rm x'", "bash +o posix -c 'rm x'", "bash -O extglob -c 'rm x'",
    "bash +O extglob -c 'rm x'", "bash -c -- 'rm x'", "bash -c -e 'rm x'", "bash +e -c 'rm x'",
    "bash -ec 'rm x'", "bash -xc 'rm x'", "bash -oc pipefail 'rm x'", "bash -co pipefail 'rm x'",
    "bash --rcfile f -c 'rm x'", "bash --init-file f -c 'rm x'", "bash --norc --noprofile -c 'rm x'",
    "bash --login -c 'rm x'", "bash -l -c 'rm x'", "bash -i -c 'rm x'", "bash -c 'rm x' name arg",
    "/usr/bin/bash -c 'echo; rm x'", "sh -ec 'rm x'", "dash -c -- 'rm x'", "zsh -o extendedglob -c 'rm x'",
    "zsh --no-rcs -c 'rm x'", "ksh -o vi -c 'rm x'", "mksh -c 'rm x'", "fish -c 'rm x'",
    "fish --command='rm x'", "fish -C 'rm x' -c 'echo'", "csh -fc 'rm x'", "eval 'rm x'",
    "sh -c \"bash -o posix -c 'rm x'\"", "zsh --emulate sh -c 'rm x'", "script -q -c 'rm x' log",
]


@pytest.mark.parametrize("command", SHELL_FORMS)
def test_a_deny_or_ask_rule_holds_through_every_shell_option_form(workspace: Path, command: str) -> None:
    denied = rules(workspace, deny=["bash(rm:*)"], allow=["bash"])
    assert decide(denied, workspace, "bash", command=command) == "deny"
    asked = rules(workspace, ask=["bash(rm:*)"], allow=["bash"])
    assert decide(asked, workspace, "bash", command=command) == "ask"


@pytest.mark.parametrize("command", [
    "echo 'rm x' | bash", "echo 'rm x' | sh -s", "bash -", "bash -i", "bash --frobnicate -c 'rm x'",
    "echo 'rm x' | bash /dev/stdin", "bash /dev/fd/0", ". /dev/stdin", "script log", "fish",
    "echo 'rm x' | sudo -s", "sudo -i", "chroot /srv", "su - root",
])
def test_a_shell_that_reads_its_input_or_takes_unknown_options_asks(workspace: Path, command: str) -> None:
    ruleset = rules(workspace, deny=["bash(rm:*)"], allow=["bash"])
    verdict = ruleset.decide("bash", {"command": command}, Workspace(workspace).resolve)
    assert verdict is not None and verdict.behavior == "ask" and "cannot be split" in verdict.why


@pytest.mark.parametrize("command", ["/bin/r? x", "/usr/bin/r[m] x", "/bin/[q-s]m x", "r? x", "/*/rm x",
                                     "/bin/r[^x] x", "rm -r? x"])
def test_a_program_named_by_a_pattern_is_denied_when_it_could_be_the_denied_one(
    workspace: Path, command: str
) -> None:
    assert Path("/bin/rm").exists()  # what /bin/r? expands to on this machine
    ruleset = rules(workspace, deny=["bash(rm -rf:*)" if command.startswith("rm") else "bash(rm:*)"],
                    allow=["bash"])
    assert decide(ruleset, workspace, "bash", command=command) == "deny"


@pytest.mark.parametrize("command", ["/bin/ba?h -c 'rm x'", "/bin/* x", "{rm,x} y", "r{m,} x", "/bin/r{m,} x"])
def test_a_pattern_that_could_name_a_wrapper_or_a_brace_expansion_asks(workspace: Path, command: str) -> None:
    ruleset = rules(workspace, deny=["bash(rm:*)"], allow=["bash"])
    assert decide(ruleset, workspace, "bash", command=command) == "ask"


def test_an_allow_rule_never_covers_a_program_named_by_a_pattern(workspace: Path) -> None:
    ruleset = rules(workspace, allow=["bash(ls:*)", "bash(l?:*)", "bash"], deny=["bash(curl:*)"])
    for command in ("l? -a", "/bin/l[s]", "ls *.py"):
        assert decide(ruleset, workspace, "bash", command=command) == (
            "allow" if command == "ls *.py" else None), command
    assert decide(ruleset, workspace, "bash", command="'/bin/r?' x") == "allow"  # quoted: no pattern


WRAPPED = [
    "timeout -s KILL 5 rm x", "timeout --signal=KILL -k 1 5 rm x", "timeout --sig KILL 5 rm x",
    "timeout --frob 5 rm x", "env -i A=1 rm x", "env -u HOME -C /tmp rm x", "env -S 'rm x'", "env - rm x",
    "nice -n 5 rm x", "nice -5 rm x", "nohup rm x", "sudo -u root -g wheel rm x", "sudo -- rm x",
    "sudo A=1 rm x", "sudo -s rm x", "doas -u root rm x", "stdbuf -oL -e 0 rm x", "command rm x",
    "command -p rm x", "exec -a name rm x", "builtin rm x", "ionice -c 3 -n 7 rm x", "chrt -f 10 rm x",
    "chrt --rr 5 rm x", "taskset -c 0 rm x", "taskset 0x1 rm x", "setsid -f rm x", "watch -n 1 rm x",
    "watch 'rm x'", "flock -w 5 /tmp/lock rm x", "flock /tmp/lock -c 'rm x'", "flock /tmp/lock -c 'ls; rm x'",
    "busybox rm x",
    "unbuffer -p rm x", "su root -c 'rm x'", "su -c 'rm x' root", "pkexec --user root rm x",
    "chroot --userspec u /srv rm x", "echo x | xargs rm", "echo x | xargs -I{} rm {}",
    "xargs -0 -n 1 -P 4 rm", "xargs --max-args=1 rm", "xargs -i rm {}", "find . -exec rm {} ;",
    "find . -execdir rm {} +", "find . -ok rm {} ;", "find . -name a -okdir rm {} ;",
    "strace -f -e trace=open -o log rm x", "fakeroot -u rm x", "faketime 2020-01-01 rm x",
    "unshare -r rm x", "gtimeout 5 rm x", "sudo /bin/r? x",
    "sudo timeout 5 nice -n 1 rm x", "timeout 5 bash -o posix -c 'rm x'", "/usr/bin/env rm x",
]


@pytest.mark.parametrize("command", WRAPPED)
def test_a_deny_or_ask_rule_on_a_command_holds_through_every_wrapper(workspace: Path, command: str) -> None:
    wrappers = [f"bash({name}:*)" for name in ("timeout", "env", "nice", "sudo", "xargs", "find", "watch")]
    denied = rules(workspace, deny=["bash(rm:*)"], allow=wrappers)
    assert decide(denied, workspace, "bash", command=command) == "deny"
    asked = rules(workspace, ask=["bash(rm:*)"], allow=wrappers)
    assert decide(asked, workspace, "bash", command=command) == "ask"


def test_a_deny_rule_with_arguments_holds_for_a_command_given_more_words_when_it_runs(workspace: Path) -> None:
    ruleset = rules(workspace, deny=["bash(rm -rf:*)", "bash(git push origin main)"])
    assert decide(ruleset, workspace, "bash", command="echo -rf / | xargs rm") == "deny"
    assert decide(ruleset, workspace, "bash", command="echo main | xargs git push origin") == "deny"
    assert decide(ruleset, workspace, "bash", command="rm x") is None


@pytest.mark.parametrize("command", WRAPPED)
def test_an_allow_rule_on_a_wrapper_covers_it_only_with_what_it_runs(workspace: Path, command: str) -> None:
    wrappers = [f"bash({word}:*)" for word in command.split() if word.isalpha() and word != "rm"]
    every_wrapper = rules(workspace, allow=[*wrappers, "bash(/usr/bin/env:*)", "bash(echo:*)"])
    assert decide(every_wrapper, workspace, "bash", command=command) != "allow"


@pytest.mark.parametrize(("command", "allowed"), [
    ("timeout 5 ls", True), ("timeout -s KILL 5 ls -la", True), ("sudo -u root ls", True),
    ("echo x | xargs -I{} ls {}", True), ("find . -exec ls {} ;", True), ("env A=1 ls", True),
    ("timeout 5 rm x", False), ("timeout 5 sh -c 'ls; rm x'", False), ("sudo ls && rm x", False),
    ("xargs sh -c", False), ("find . -exec sh -c {} ;", False), ("echo rm | xargs timeout 5", False),
    ("env", True), ("command -v rm", True), ("xargs", True),
])
def test_a_wrapper_and_what_it_runs_are_each_allowed(workspace: Path, command: str, allowed: bool) -> None:
    ruleset = rules(workspace, allow=["bash(timeout:*)", "bash(sudo:*)", "bash(xargs:*)", "bash(find:*)",
                                      "bash(env:*)", "bash(ls:*)", "bash(echo:*)", "bash(command:*)",
                                      "bash(sh:*)"])
    assert (decide(ruleset, workspace, "bash", command=command) == "allow") is allowed


def test_a_wrapper_s_words_are_read_as_it_reads_them(workspace: Path) -> None:
    ruleset = rules(workspace, deny=["bash(rm:*)"])
    for harmless in ("timeout 5 echo rm", "sudo -u rm ls", "nice -n 5 echo rm x", "env -u rm ls",
                     "bash script.sh rm", "bash -o rm -c 'ls'", "find . -name rm", "command -v rm"):
        assert decide(ruleset, workspace, "bash", command=harmless) is None, harmless


@pytest.mark.parametrize("command", [
    "find /bin -name rm -exec {} x ;", "find . -exec timeout 5 {} x ;", "echo rm | xargs -I% % x",
    "echo rm | xargs -i {} x", "echo rm | xargs --replace=@ nice @ x", "echo rm | xargs sh -c",
    "find . -exec sh -c {} ;", "echo rm x | xargs env",
])
def test_a_command_whose_program_find_or_xargs_fill_in_asks(workspace: Path, command: str) -> None:
    ruleset = rules(workspace, deny=["bash(rm:*)"], allow=["bash"])
    verdict = ruleset.decide("bash", {"command": command}, Workspace(workspace).resolve)
    assert verdict is not None and verdict.behavior == "ask" and "cannot be split" in verdict.why


@pytest.mark.parametrize("command", [
    "find . -exec", "find . -exec ;", "bash -o", "bash -c", "timeout", "timeout 5", "env -S \"'unterminated\"",
    "xargs -I", "sudo --", "flock f -c", "su", "watch", "nice -n", "busybox", "exec", "command -v",
])
def test_a_wrapper_or_shell_missing_its_words_is_judged_without_an_error(workspace: Path, command: str) -> None:
    ruleset = rules(workspace, deny=["bash(rm:*)"], allow=["bash(ls:*)"])
    assert decide(ruleset, workspace, "bash", command=command) in (None, "ask")
