"""Claude Code's substitutions, as its documentation gives them: what a command's or a skill's
text becomes for what the user typed after its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.extensions.arguments import substitute, takes_arguments
from neocode_tui.agent.extensions.custom_commands import load_commands


@pytest.mark.parametrize(("text", "typed", "sent"), [
    ("Fix issue $ARGUMENTS now", "123 high", "Fix issue 123 high now"),
    ("Move $0 from $1 to $2", '"my widget" React Vue', "Move my widget from React to Vue"),
    ("First $ARGUMENTS[0], third $ARGUMENTS[2].", "a b c", "First a, third c."),
    # an index with no word stays as written
    ("Compare $0 with $1", "left", "Compare left with $1"),
    # prices and SQL parameters are not arguments
    ("Budget: $2,500 or $1M+ at $3.50 ($50 a day) $ARGUMENTS", "x y z",
     "Budget: $2,500 or $1M+ at $3.50 ($50 a day) x y z"),
    ("WHERE id = $1 LIMIT $2", "", "WHERE id = $1 LIMIT $2"),
    ("No placeholder here.", "extra words", "No placeholder here.\n\nARGUMENTS: extra words"),
    ("No placeholder, no words.", "   ", "No placeholder, no words."),
    # what is put in is never read again
    ("Say $ARGUMENTS and $0", "$1 $ARGUMENTS", "Say $1 $ARGUMENTS and $1"),
    ("$HOME and ${PATH} stay", "a", "$HOME and ${PATH} stay\n\nARGUMENTS: a"),
])
def test_placeholders_are_filled_as_claude_code_fills_them(text: str, typed: str, sent: str) -> None:
    assert substitute(text, typed) == sent


def test_named_arguments_and_the_skill_folder() -> None:
    text = "Migrate $component from $source to $target in ${CLAUDE_SKILL_DIR}/run.sh (${CLAUDE_SESSION_ID})"
    filled = substitute(text, "SearchBar React", names=("component", "source", "target"),
                        variables={"CLAUDE_SKILL_DIR": "/skills/migrate", "CLAUDE_SESSION_ID": "s1"})
    assert filled == "Migrate SearchBar from React to $target in /skills/migrate/run.sh (s1)"


def test_whether_a_text_takes_arguments() -> None:
    assert takes_arguments("Review $ARGUMENTS")
    assert takes_arguments("Review $0")
    assert takes_arguments("Review $file", ("file",))
    assert not takes_arguments("Costs $2,500 and $HOME")


def test_a_subfolder_command_answers_to_its_file_name_where_free(tmp_path: Path) -> None:
    commands = tmp_path / "ws" / ".claude" / "commands"
    for path, text in {
        "tdd/tdd-red.md": "Write a failing test for $ARGUMENTS",
        "tdd/green.md": "Make it pass",
        "green.md": "Top-level green",
        "do/create-api.md": "Do it",
        "how-to/create-api.md": "Explain it",
    }.items():
        (commands / path).parent.mkdir(parents=True, exist_ok=True)
        (commands / path).write_text(text)

    found = load_commands(tmp_path / "ws", home=tmp_path / "home")

    assert found.short == {"tdd-red": "tdd:tdd-red"}  # green is taken, create-api is two files
    assert [command.name for command in found.listed()] == [
        "do:create-api", "green", "how-to:create-api", "tdd:green", "tdd-red"]
    for typed in ("/tdd-red login form", "/tdd:tdd-red login form"):
        named = found.named(typed)
        assert named is not None
        assert named[0].expand(named[1]) == "Write a failing test for login form"
    assert found.commands["tdd:tdd-red"].label == "Write a failing test for $ARGUMENTS (project:tdd)"
