"""The README and the guide's pages, and the shell commands they show, for the docs tests."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = (README, *sorted(DOCS.glob("*.md")))
_SHELL_BLOCK = re.compile(r"^ *```sh\n(.*?)^ *```", re.MULTILINE | re.DOTALL)
_BETWEEN_COMMANDS = {"|", "||", "&&", ";", "&"}


def shell_blocks(text: str) -> list[str]:
    """The bodies of the ```sh blocks in ``text``, in order, without their indentation."""
    return ["\n".join(line.strip() for line in block.splitlines()) for block in _SHELL_BLOCK.findall(text)]


def simple_commands(line: str) -> list[list[str]]:
    """The simple commands of one shell line as words, without comments, redirections or the
    variable assignments before a program: ``A=1 x -v | y > f  # z`` is ``[["x", "-v"], ["y"]]``."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    cut = False
    for word in lexer:
        if word in _BETWEEN_COMMANDS:
            commands.append([])
            cut = False
        elif set(word) <= set("<>&"):  # a redirection: its target is no word of the command
            cut = True
        elif not cut and (commands[-1] or not re.fullmatch(r"\w+=\S*", word)):
            commands[-1].append(word)
    return [words for words in commands if words]


def neocode_commands() -> list[tuple[str, list[str]]]:
    """Every ``neocode`` command the README and the pages show in a shell block, with the
    page it is on: the words after the program's name."""
    found = []
    for page in PAGES:
        for block in shell_blocks(page.read_text(encoding="utf-8")):
            for line in block.splitlines():
                for words in simple_commands(line):
                    if Path(words[0]).name == "neocode":
                        found.append((page.name, words[1:]))
    return found


def command_id(page: str, words: list[str]) -> str:
    return f"{page}: neocode {shlex.join(words)}".rstrip()
