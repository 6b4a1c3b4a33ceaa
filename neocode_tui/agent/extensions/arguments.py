"""Claude Code's substitutions in a command's or a skill's text, in one pass.

``$ARGUMENTS`` is what was typed after the name, as typed; ``$ARGUMENTS[N]`` and ``$N`` the
N-th word (from 0, quotes grouping words); ``$name`` a word the front matter's ``arguments``
names; ``${CLAUDE_SKILL_DIR}`` and ``${CLAUDE_SESSION_ID}`` the skill's folder and the session.
An indexed placeholder with no word stays as written, and ``$N`` directly followed by a
letter, a digit or a decimal part (``$1M``, ``$2,500``, ``$3.50``) is no placeholder, so
prices and SQL parameters survive. Words that no placeholder took (a text without
``$ARGUMENTS``, ``$0``...) are appended as ``ARGUMENTS: ...``. Values are put in as they are:
nothing put in is read again.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

PLACEHOLDER = re.compile(
    r"\$(?:ARGUMENTS\[(?P<indexed>\d+)\]|(?P<all>ARGUMENTS)(?!\w)"
    r"|(?P<number>\d+)(?![\w.,]*\w)|\{(?P<braced>CLAUDE_[A-Z_]+)\}|(?P<named>[A-Za-z_]\w*))"
)
"""One placeholder; ``$N`` only where no letter, digit or ``.5`` / ``,500`` follows."""


def words(arguments: str) -> list[str]:
    """The arguments split as a shell would (quotes group, and are dropped); as typed,
    by whitespace, when a quote is left open."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def argument_names(value: object) -> tuple[str, ...]:
    """The front matter's ``arguments``: a YAML list, or names split by spaces or commas."""
    items = value if isinstance(value, list) else str(value).replace(",", " ").split() if isinstance(value, str) else []
    return tuple(item.strip() for item in items if isinstance(item, str) and item.strip().isidentifier())


def takes_arguments(text: str, names: Sequence[str] = ()) -> bool:
    """Whether ``text`` has a place for arguments (``$ARGUMENTS``, ``$0``... or a named one)."""
    return any(
        match["all"] or match["indexed"] or match["number"] or match["named"] in names
        for match in PLACEHOLDER.finditer(text)
    )


def substitute(text: str, arguments: str, *, names: Sequence[str] = (),
               variables: Mapping[str, str] | None = None) -> str:
    """``text`` with its placeholders filled from ``arguments`` (see the module);
    ``names``: the front matter's ``arguments``; ``variables``: ``CLAUDE_SKILL_DIR`` and
    the like, a ``${NAME}`` not among them staying as written."""
    arguments = arguments.strip()
    split = words(arguments)
    known = dict(variables or {})
    took = False

    def word(index: str, written: str) -> str:
        nonlocal took
        number = int(index)
        if number >= len(split):
            return written
        took = True
        return split[number]

    def fill(match: re.Match[str]) -> str:
        nonlocal took
        written = match.group(0)
        if match["all"]:
            took = True
            return arguments
        if match["indexed"] is not None:
            return word(match["indexed"], written)
        if match["number"] is not None:
            return word(match["number"], written)
        if match["braced"] is not None:
            return known.get(match["braced"], written)
        name = match["named"]
        if name in names:
            return word(str(names.index(name)), written)
        return written

    filled = PLACEHOLDER.sub(fill, text)
    return f"{filled}\n\nARGUMENTS: {arguments}" if arguments and not took else filled
