"""Permission rules as a user meets them in ``neocode -p``: a real subprocess, the scripted
model over real HTTP, real folders, commands in the real bubblewrap sandbox."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.trust import trust
from tests.support.calls import bash
from tests.support.dialects import Dialect
from tests.support.headless import run
from tests.support.programs import fake_npm


def user_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def settings_json(path: Path, **lists: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": lists}))


async def test_a_user_config_allow_rule_runs_the_command_and_nothing_smuggled_after_it(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_config(tmp_path, '# mine\nmodel = "test-model"\n\n[permissions]\nallow = ["bash(npm test:*)"]\n')
    smuggled = ["npm test && touch and", "npm test; touch semi", "npm test $(touch sub)",
                "npm test `touch tick`", "npm test > redirected", "npm test | sh -c 'touch piped'",
                "FOO=1 npm test"]
    openai_only.reply("", [bash("ok", "npm test --silent"),
                           *(bash(f"s{n}", command) for n, command in enumerate(smuggled))])
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, **fake_npm(workspace))

    assert result.code == 0, result.err
    results = openai_only.tool_results(2)
    assert "npm ran: test --silent" in results["ok"]
    for number in range(len(smuggled)):
        assert results[f"s{number}"].startswith("not run:"), results[f"s{number}"]
    assert sorted(path.name for path in workspace.iterdir()) == ["app.py", "bin"]


async def test_an_untrusted_project_s_allow_rule_is_ignored_while_its_deny_rule_applies(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    settings_json(workspace / ".claude" / "settings.json", allow=["bash(npm test:*)"],
                  deny=["Read(./secrets/**)"])
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key.txt").write_text("hunter2-token\n")
    calls = [bash("npm", "npm test"),
             ("read", "read_file", json.dumps({"path": "secrets/key.txt"})),
             ("list", "list_dir", json.dumps({"path": "secrets"})),
             ("grep", "grep", json.dumps({"pattern": "hunter2"})),
             ("glob", "glob", json.dumps({"pattern": "**/*.txt"}))]
    openai_only.reply("", calls)
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, "--approval", "full-auto", **fake_npm(workspace))

    assert result.code == 0, result.err
    results = openai_only.tool_results(2)
    assert "npm ran: test" in results["npm"]  # full-auto: it needs no allow rule
    for call in ("read", "list"):
        assert results[call] == ("not run: denied by the permission rule 'Read(./secrets/**)' "
                                 "(.claude/settings.json)")
    assert "hunter2" not in results["grep"] and "left out" in results["grep"]
    assert "secrets/key.txt" not in results["glob"]

    openai_only.reply("", [bash("again", "npm test")])
    openai_only.reply("Done.")
    asked = await run(openai_only, workspace, **fake_npm(workspace))
    assert "allow rules in .claude/settings.json not applied, this folder is not trusted: " \
           "bash(npm test:*)" in asked.err
    assert openai_only.tool_results(4)["again"].startswith("not run: bash needs approval")


async def test_a_trusted_project_s_allow_rules_apply_until_the_file_changes(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    settings_json(workspace / ".neocode" / "settings.json", allow=["edit_file(src/**)"])
    settings_json(workspace / ".claude" / "settings.json", allow=["Bash(npm test:*)"])
    env = fake_npm(workspace)
    trust(workspace)
    write = ("w", "write_file", json.dumps({"path": "src/new.py", "content": "x = 1\n"}))
    outside = ("o", "write_file", json.dumps({"path": "other.py", "content": "y = 2\n"}))
    openai_only.reply("", [write, outside, bash("npm", "npm test")])
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, **env)

    assert result.code == 0, result.err
    assert "npm ran: test" in openai_only.tool_results(2)["npm"]
    assert (workspace / "src" / "new.py").read_text() == "x = 1\n"
    assert not (workspace / "other.py").exists()
    assert "not run: write_file needs approval" in openai_only.tool_results(2)["o"]

    settings_json(workspace / ".neocode" / "settings.json", allow=["edit_file(**)"])
    openai_only.reply("", [outside])
    openai_only.reply("Done.")
    changed = await run(openai_only, workspace)
    assert "allow rules in .neocode/settings.json not applied, .neocode/settings.json is new " \
           "or changed since you trusted this folder" in changed.err
    assert not (workspace / "other.py").exists()


async def test_the_user_s_claude_settings_deny_a_command_however_it_is_wrapped(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    settings_json(home / ".claude" / "settings.json", deny=["Bash(rm:*)"])
    attempts = ["rm app.py", "sudo -n rm app.py", "bash -c 'echo hi; rm app.py'",
                "timeout 5 rm app.py", "echo app.py | xargs rm", "if true; then rm app.py; fi"]
    openai_only.reply("", [bash(f"a{n}", command) for n, command in enumerate(attempts)])
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, "--approval", "full-auto", HOME=str(home))

    assert result.code == 0, result.err
    results = openai_only.tool_results(2)
    for number in range(len(attempts) - 1):
        assert results[f"a{number}"] == ("not run: denied by the permission rule 'Bash(rm:*)' "
                                         "(~/.claude/settings.json)")
    # A compound command cannot be checked part by part: it asks, and nobody can say yes here.
    assert "asks for approval by the command cannot be split" in results[f"a{len(attempts) - 1}"]
    assert (workspace / "app.py").exists()


async def test_auto_edit_holds_deny_and_ask_rules_through_shell_options_patterns_and_wrappers(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_config(tmp_path, '[permissions]\ndeny = ["Bash(rm:*)"]\nask = ["Bash(touch:*)"]\n'
                          'allow = ["Bash(timeout:*)", "Bash(env:*)", "Bash(xargs:*)", "Bash(find:*)"]\n')
    denied = ["bash -o posix -c 'rm app.py'", "bash -c -- 'rm app.py'", "bash +e -c 'rm app.py'",
              "/bin/r? app.py", "timeout -s KILL 5 rm app.py", "env -i A=1 rm app.py",
              "nice -n 5 rm app.py", "echo app.py | xargs -I{} rm {}", "find . -name app.py -exec rm {} \\;"]
    asked = ["timeout 5 touch made", "sh -o errexit -c 'touch made'", "/usr/bin/tou?h made",
             "env -u HOME touch made"]
    openai_only.reply("", [*(bash(f"d{n}", command) for n, command in enumerate(denied)),
                           *(bash(f"a{n}", command) for n, command in enumerate(asked)),
                           bash("echo", "timeout 5 echo rm is only a word here")])
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, "--approval", "auto-edit")

    assert result.code == 0, result.err
    results = openai_only.tool_results(2)
    for number, command in enumerate(denied):
        assert results[f"d{number}"] == ("not run: denied by the permission rule 'Bash(rm:*)' "
                                         f"({tmp_path / 'config' / 'config.toml'})"), command
    for number, command in enumerate(asked):
        assert results[f"a{number}"].startswith(
            "not run: bash asks for approval by the permission rule 'Bash(touch:*)'"), command
    assert "rm is only a word here" in results["echo"]
    assert (workspace / "app.py").exists() and not (workspace / "made").exists()


async def test_an_at_mention_of_a_denied_file_is_not_attached(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_config(tmp_path, '[permissions]\ndeny = ["read_file(.env.local)"]\n')
    (workspace / ".env.local").write_text("TOKEN=sekret-value\n")
    openai_only.reply("I cannot see it.")

    result = await run(openai_only, workspace, prompt="what is in @.env.local ?")

    assert result.code == 0, result.err
    assert "@.env.local was not attached: denied by the permission rule 'read_file(.env.local)'" in result.err
    assert "sekret-value" not in json.dumps(openai_only.request(1))


async def test_allowed_and_disallowed_tools_flags(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    openai_only.reply("", [bash("npm", "npm test"), bash("git", "git status"),
                           ("read", "read_file", json.dumps({"path": "app.py"}))])
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, "--allowed-tools", "bash(npm test:*), bash(git status)",
                       "--disallowedTools", "read_file", **fake_npm(workspace))

    assert result.code == 0, result.err
    results = openai_only.tool_results(2)
    assert "npm ran: test" in results["npm"]
    assert not results["git"].startswith("not run")
    assert results["read"] == ("not run: denied by the permission rule 'read_file' "
                               "(--allowed-tools / --disallowed-tools)")

    bad = await run(openai_only, workspace, "--allowed-tools", "bash(npm test")
    assert bad.code == 2 and "is not a permission rule" in bad.err and "Traceback" not in bad.err


async def test_append_system_prompt(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("Arr.")
    result = await run(openai_only, workspace, "--append-system-prompt", "Talk like a pirate.")
    assert result.code == 0, result.err
    assert openai_only.system(1).endswith("\n\nTalk like a pirate.")


async def test_permissions_lists_every_rule_with_its_source_and_removes_one(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    config = user_config(tmp_path, '# keep me\n[permissions]\nallow = ["bash(npm test:*)", "glob"]\n')
    settings_json(workspace / ".claude" / "settings.json", deny=["web_fetch(domain:evil.example)"])

    listed = await run(openai_only, workspace, prompt="/permissions")

    assert listed.code == 0, listed.err
    assert "1  deny   web_fetch(domain:evil.example)  (.claude/settings.json)" in listed.out
    assert f"2  allow  bash(npm test:*)  ({config})" in listed.out
    assert f"3  allow  glob  ({config})" in listed.out

    removed = await run(openai_only, workspace, prompt="/permissions rm 2")
    assert removed.code == 0, removed.err
    assert f"removed allow bash(npm test:*) ({config})" in removed.out
    assert config.read_text() == '# keep me\n[permissions]\nallow = ["glob"]\n'
    again = await run(openai_only, workspace, prompt="/permissions remove 1")
    assert json.loads((workspace / ".claude" / "settings.json").read_text())["permissions"]["deny"] == []
    assert again.code == 0
    assert openai_only.server.requests == []  # commands alone ask the model nothing


async def test_permissions_rm_takes_a_rule_out_by_its_text(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    config = user_config(tmp_path, '[permissions]\nallow = ["glob", "read_file"]\nask = ["glob"]\n')

    both = await run(openai_only, workspace, prompt="/permissions rm glob")
    assert "2 rules are called 'glob' (1, 2): take one out by its number" in both.out
    removed = await run(openai_only, workspace, prompt="/permissions rm allow glob")
    assert f"removed allow glob ({config})" in removed.out
    assert config.read_text() == '[permissions]\nallow = ["read_file"]\nask = ["glob"]\n'
    missing = await run(openai_only, workspace, prompt="/permissions rm write_file")
    assert "nothing allowed or ruled is called 'write_file': /permissions lists them" in missing.out


SCHEMA = {"type": "object", "properties": {"passed": {"type": "integer"}}, "required": ["passed"]}


async def test_json_schema_asks_again_once_and_prints_structured_output(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    openai_only.reply("All 12 tests passed!")
    openai_only.reply('```json\n{"passed": 12}\n```')

    result = await run(openai_only, workspace, "--json-schema", str(schema), "--output-format", "json")

    assert result.code == 0, result.err
    output = json.loads(result.out)
    assert output["structured_output"] == {"passed": 12}
    assert '"required"' in openai_only.system(1)  # the schema is in the system prompt
    assert "does not match the JSON Schema: the answer is not JSON" in json.dumps(openai_only.request(2))


async def test_json_schema_still_not_matched_has_its_own_exit_code(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    openai_only.reply('{"passed": "twelve"}')
    openai_only.reply('{"failed": 0}')

    result = await run(openai_only, workspace, "--json-schema", str(schema), "--output-format", "json")

    assert result.code == 4, result.err
    assert json.loads(result.out)["structured_output"] is None
    assert "passed: 'twelve' is not of type 'integer'" in json.dumps(openai_only.request(2))
    assert "the final answer does not match --json-schema: the answer: 'passed' is a required property" \
        in result.err
    assert len(openai_only.server.requests) == 2

    schema.write_text('{"type": "nonsense"}')
    bad = await run(openai_only, workspace, "--json-schema", str(schema))
    assert bad.code == 2 and "not a valid JSON Schema" in bad.err and "Traceback" not in bad.err


async def test_add_dir_lets_the_tools_and_sandboxed_commands_into_another_folder(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    note = shared / "note.txt"
    calls = [("w", "write_file", json.dumps({"path": str(note), "content": "from the tool\n"})),
             bash("b", f"echo from the sandbox > {shared}/cmd.txt && cat {note}")]
    openai_only.reply("", calls)
    openai_only.reply("Done.")

    result = await run(openai_only, workspace, "--approval", "auto-edit", "--add-dir", str(shared))

    assert result.code == 0, result.err
    assert note.read_text() == "from the tool\n"
    assert (shared / "cmd.txt").read_text() == "from the sandbox\n"
    assert "from the tool" in openai_only.tool_results(2)["b"]
    assert str(shared) in openai_only.system(1)

    openai_only.reply("", [("w2", "write_file", json.dumps({"path": str(shared / "x"), "content": "x"}))])
    openai_only.reply("Done.")
    without = await run(openai_only, workspace, "--approval", "auto-edit")
    assert "is outside the workspace" in openai_only.tool_results(4)["w2"]
    assert without.code == 0 and not (shared / "x").exists()

    missing = await run(openai_only, workspace, "--add-dir", str(tmp_path / "nope"))
    assert missing.code == 2 and "no such folder" in missing.err and "Traceback" not in missing.err


async def test_a_project_rule_is_never_saved_through_a_symlink_out_of_the_folder(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    from neocode_tui.agent.permissions.session_rules import Permissions
    from neocode_tui.agent.workspace import Workspace

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / ".neocode").symlink_to(elsewhere)
    permissions = Permissions(Workspace(workspace))

    level, said = await permissions.remember("bash(npm test:*)", "project")

    assert level == "warning" and "could not save the rule bash(npm test:*)" in said
    assert list(elsewhere.iterdir()) == []
    assert permissions.decide("bash", {"command": "npm test"}) is not None  # it holds for now


async def test_claude_code_s_local_settings_are_read_like_its_project_settings(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    """``.claude/settings.local.json`` is where Claude Code keeps "don't ask again": its deny
    rules always hold, its allow rules only in a trusted folder, as the file was trusted."""
    local = workspace / ".claude" / "settings.local.json"
    settings_json(local, allow=["Bash(npm test:*)"], deny=["Bash(touch:*)"])
    env = fake_npm(workspace)
    openai_only.reply("", [bash("npm", "npm test"), bash("touch", "touch made")])
    openai_only.reply("Done.")

    untrusted = await run(openai_only, workspace, **env)

    assert untrusted.code == 0, untrusted.err
    assert "allow rules in .claude/settings.local.json not applied, this folder is not trusted: " \
           "Bash(npm test:*)" in untrusted.err
    results = openai_only.tool_results(2)
    assert results["npm"].startswith("not run: bash needs approval")
    assert results["touch"] == ("not run: denied by the permission rule 'Bash(touch:*)' "
                                "(.claude/settings.local.json)")

    trust(workspace)
    openai_only.reply("", [bash("again", "npm test")])
    openai_only.reply("Done.")
    trusted = await run(openai_only, workspace, **env)
    assert trusted.code == 0, trusted.err
    assert "npm ran: test" in openai_only.tool_results(4)["again"]

    settings_json(local, allow=["Bash(npm test:*)", "Bash(curl:*)"])  # changed since trusted
    openai_only.reply("", [bash("changed", "npm test")])
    openai_only.reply("Done.")
    changed = await run(openai_only, workspace, **env)
    assert ".claude/settings.local.json is new or changed since you trusted this folder" in changed.err
    assert openai_only.tool_results(6)["changed"].startswith("not run: bash needs approval")
    assert not (workspace / "made").exists()
