"""Custom slash commands as users keep them: Markdown files in real folders, sent through a real
session to the loopback model, and through ``neocode -p`` as a real subprocess."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from neocode_tui.agent.extensions.custom_commands import load_commands
from neocode_tui.agent.loop_events import Notice
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.headless import neocode
from tests.support.recorder import Recorder

REVIEW = """\
---
description: Review a file for bugs
argument-hint: FILE [FOCUS]
---
Review $0 carefully. Focus on: $ARGUMENTS[1].
Everything the user typed: $ARGUMENTS
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def user_messages(dialect: Dialect, number: int) -> list[str]:
    return [m["content"] for m in dialect.request(number)["messages"] if m["role"] == "user"]


async def test_a_command_file_is_sent_as_its_prompt_with_the_arguments_filled_in(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    write(workspace / ".claude" / "commands" / "review.md", REVIEW)
    write(workspace / ".neocode" / "commands" / "git" / "commit.md", "Write a commit message.")
    openai_only.reply("Looks fine.")
    openai_only.reply("feat: greet")
    session = AgentSession(Settings(provider="openai"), workspace, provider=openai_only.provider())

    command = session.commands.commands["review"]
    assert (command.description, command.argument_hint) == ("Review a file for bugs", "FILE [FOCUS]")
    await session.prompt('/review app.py "error handling"')
    await session.prompt("/git:commit now")

    assert user_messages(openai_only, 1) == [
        'Review app.py carefully. Focus on: error handling.\n'
        'Everything the user typed: app.py "error handling"'
    ]
    assert user_messages(openai_only, 2)[-1] == "Write a commit message.\n\nARGUMENTS: now"
    assert session.title == '/review app.py "error handling"'  # what the user typed
    await session.aclose()


async def test_an_unknown_slash_word_is_sent_as_typed(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    openai_only.reply("It is a path.")
    session = AgentSession(Settings(provider="openai"), workspace, provider=openai_only.provider())
    await session.prompt("/etc/hosts is empty, why?")
    assert user_messages(openai_only, 1) == ["/etc/hosts is empty, why?"]
    await session.aclose()


def test_where_commands_come_from_and_which_one_wins(workspace: Path, home: Path) -> None:
    write(workspace / ".neocode" / "commands" / "fix.md", "workspace neocode fix")
    write(workspace / ".claude" / "commands" / "fix.md", "workspace claude fix")
    write(workspace / ".claude" / "commands" / "plan.md", "workspace plan")
    write(config_dir() / "commands" / "plan.md", "user plan")
    write(config_dir() / "commands" / "mine.md", "# My own\nuser mine")
    write(home / ".claude" / "commands" / "frontend" / "Test.md", "claude user test")
    write(home / ".claude" / "commands" / "mine.md", "claude user mine")

    found = load_commands(workspace)

    assert {name: (c.template, c.source) for name, c in found.commands.items()} == {
        "plan": ("user plan", "user"), "mine": ("# My own\nuser mine", "user"),
        "frontend:test": ("claude user test", "user"), "fix": ("workspace neocode fix", "project"),
        "project:plan": ("workspace plan", "project"),
    }
    assert found.short == {"test": "frontend:test"}
    assert found.commands["mine"].description == "# My own"  # no front matter: the first line
    assert found.commands["fix"].label == "workspace neocode fix (project)"
    assert found.problems == []


async def test_a_repository_cannot_replace_the_user_s_own_command(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    write(home / ".claude" / "commands" / "review.md", "---\ndescription: My review\n---\nReview $ARGUMENTS my way.")
    write(workspace / ".claude" / "commands" / "review.md",
          "---\ndescription: Team review\n---\nSend $ARGUMENTS to the team's review.")
    openai_only.reply("Mine.")
    openai_only.reply("Theirs.")
    session = AgentSession(Settings(provider="openai"), workspace, provider=openai_only.provider())

    labels = {name: command.label for name, command in session.commands.commands.items()}
    assert labels == {"review": "My review (user)", "project:review": "Team review (project)"}
    await session.prompt("/review app.py")
    await session.prompt("/project:review app.py")

    assert user_messages(openai_only, 1) == ["Review app.py my way."]
    assert user_messages(openai_only, 2)[-1] == "Send app.py to the team's review."
    await session.aclose()


def test_a_repository_command_whose_names_are_both_taken_is_named_not_used(
    workspace: Path, home: Path
) -> None:
    write(config_dir() / "commands" / "review.md", "mine")
    write(config_dir() / "commands" / "project" / "review.md", "also mine")
    theirs = write(workspace / ".neocode" / "commands" / "review.md", "theirs")

    found = load_commands(workspace)

    assert {name: c.template for name, c in found.commands.items()} == {
        "review": "mine", "project:review": "also mine",
    }
    assert found.problems == [
        f"{theirs}: not used: /project:review is taken by "
        f"{config_dir() / 'commands' / 'project' / 'review.md'}; rename the file"
    ]


def test_a_description_is_one_line(workspace: Path, home: Path) -> None:
    write(workspace / ".claude" / "commands" / "odd.md",
          "---\ndescription: \"Looks \\e[31mred\\e[0m\\nand a second line\"\n"
          "argument-hint: \"A\\aB\"\n---\nBody")

    [command] = load_commands(workspace).commands.values()

    assert (command.description, command.argument_hint) == ("Looks \x1b[31mred\x1b[0m", "A\x07B")


def test_a_command_may_not_take_a_built_in_name_or_lead_outside_the_workspace(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    clear = write(workspace / ".claude" / "commands" / "clear.md", "wipe everything")
    secret = write(tmp_path / "secret.txt", "the user's private notes")
    leak = workspace / ".claude" / "commands" / "leak.md"
    os.symlink(secret, leak)
    broken = write(workspace / ".claude" / "commands" / "odd.md", "---\ndescription: [unclosed\n---\nBody")
    empty = write(workspace / ".claude" / "commands" / "empty.md", "---\ndescription: nothing\n---\n")

    found = load_commands(workspace, reserved=["clear", "help"])

    assert list(found.commands) == ["odd"]
    assert found.commands["odd"].template == "Body"
    problems = "\n".join(found.problems)
    assert f"{clear}: /clear is a built-in command; rename the file" in problems
    assert f"{leak}: not used, it links outside the workspace" in problems
    assert f"{broken}: front matter is not valid YAML" in problems
    assert f"{empty}: the prompt is empty" in problems


async def test_command_problems_are_told_once_in_the_session(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    write(workspace / ".claude" / "commands" / "help.md", "mine")
    openai_only.reply("One.")
    openai_only.reply("Two.")
    recorder = Recorder()
    session = AgentSession(
        Settings(provider="openai"), workspace, FrontEnd(listener=recorder), provider=openai_only.provider(),
        built_in_commands=["help"],
    )
    await session.prompt("/help")
    await session.prompt("again")
    assert [n.message for n in recorder.of(Notice) if "built-in" in n.message] == [
        f"{workspace / '.claude' / 'commands' / 'help.md'}: /help is a built-in command; rename the file"
    ]
    assert user_messages(openai_only, 1) == ["/help"]
    await session.aclose()


async def test_headless_runs_a_custom_command(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    write(workspace / ".claude" / "commands" / "review.md", REVIEW)
    dialect.reply("Reviewed.")

    result = await neocode(dialect, workspace, "-p", "/review app.py naming")

    assert result.code == 0, result.err
    assert result.out == "Reviewed.\n"
    sent = dialect.request(1)["messages"]
    assert sent[-1]["content"] in (
        "Review app.py carefully. Focus on: naming.\nEverything the user typed: app.py naming",
        [{"type": "text", "text":
          "Review app.py carefully. Focus on: naming.\nEverything the user typed: app.py naming"}],
    )
