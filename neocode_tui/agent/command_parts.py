"""A shell command as the simple commands it runs, for permission rules to judge each one.

``npm test && curl x`` is two commands, ``npm test $(rm x)`` runs ``rm`` first: a rule
that allows ``npm test`` must see both. The command is parsed by a real shell grammar
(bashlex) and only what is understood whole is split: lists (``;``, ``&&``, ``||``,
``&``, new lines) and pipelines. Anything else a command could hide a second program
in (substitutions, expansions, assignments before the program, redirections to files,
compound commands, functions, here-documents, or text the parser cannot read) makes the
answer ``None``: not provable, so an allow rule never covers it and a deny rule asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from neocode_tui.deferred import lazy

bashlex = lazy("bashlex")
"""Imported when a command is first judged: it builds its parser tables at import (about
0.1 s), which a run that never checks a command should not pay."""

MAX_PARSED = 8_000
"""Characters parsed at most (the parser is pure Python, about a second for this many on a
busy machine): a longer command is not split."""
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
"""Where a redirection may point and still write no file."""
_SMUGGLERS = ("`", "$(", "<(", ">(", "${")
"""Checked on the raw text as well, in case the parser reads one differently from bash."""
WRAPPERS = frozenset({
    "env", "nice", "nohup", "time", "command", "exec", "builtin", "sudo", "doas",
    "timeout", "stdbuf", "xargs", "ionice", "chrt", "setsid", "unbuffer",
})
"""Programs that run the rest of their words as a command: a deny rule looks past them."""
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "eval"})


@dataclass(frozen=True)
class Part:
    """One simple command: its words with quotes removed."""

    words: tuple[str, ...]

    @property
    def tokens(self) -> tuple[str, ...]:
        """The words split at blanks, as rules compare them: ``env -S "rm -rf x"`` hides
        no program from a rule that way."""
        return tuple(" ".join(self.words).split())


def split_command(command: str) -> list[Part] | None:
    """The simple commands ``command`` runs, or None when that cannot be proved."""
    if len(command) > MAX_PARSED or any(smuggler in command for smuggler in _SMUGGLERS):
        return None
    try:
        trees = bashlex.parse(command)
    except Exception:  # bashlex raises several kinds for text it cannot read: fail closed
        return None
    parts: list[Part] = []
    for tree in trees:
        if not _collect(tree, parts):
            return None
    return parts or None


def _collect(node: object, parts: list[Part]) -> bool:
    kind = getattr(node, "kind", "")
    if kind in ("list", "pipeline"):
        return all(_collect(child, parts) for child in node.parts)  # type: ignore[attr-defined]
    if kind in ("operator", "pipe"):
        return getattr(node, "op", getattr(node, "pipe", "")) in (";", "&&", "||", "&", "\n", "|")
    if kind != "command":
        return False
    words: list[str] = []
    for child in node.parts:  # type: ignore[attr-defined]
        child_kind = getattr(child, "kind", "")
        if child_kind == "word" and not child.parts:
            words.append(child.word)
        elif child_kind == "redirect" and _harmless_redirect(child):
            continue
        else:
            return False
    if not words:
        return False
    parts.append(Part(tuple(words)))
    return True


def _harmless_redirect(node: object) -> bool:
    """``2>&1``, ``>/dev/null``: redirections that write no file and read none."""
    target = getattr(node, "output", None)
    kind = getattr(node, "type", "")
    if isinstance(target, int):
        return kind in (">&", "<&")
    word = getattr(target, "word", None)
    if getattr(target, "parts", None) or not isinstance(word, str):
        return False
    return kind in (">", ">>", ">&", "&>") and word in HARMLESS_TARGETS


def inner_commands(part: Part, depth: int = 0) -> list[Part] | None:
    """``part`` and every command it may make run, for deny and ask rules: the program by
    its name (``/bin/rm``), each tail after a wrapper (``sudo -u x rm``, ``timeout 5 rm``,
    ``xargs rm``), what ``find -exec`` runs and what ``bash -c '...'`` or ``eval`` runs;
    None when an inner one cannot be proved."""
    found = [part]
    words = part.words
    program = words[0].rsplit("/", 1)[-1]
    if depth > 4:
        return None
    if program != words[0]:  # /bin/rm is rm
        found.append(Part((program, *words[1:])))
    if program in SHELLS:
        script = _script_of(program, list(words[1:]))
        if script is None:
            return found
        inner = split_command(script) if script.strip() else []
        if inner is None:
            return None
        pieces = inner
    elif program in WRAPPERS:
        pieces = [Part(words[index:]) for index in range(1, len(words))]
    elif program == "find":
        pieces = [Part(words[index + 1:]) for index, word in enumerate(words[:-1]) if word in FIND_RUNS]
    else:
        return found
    for piece in pieces:
        nested = inner_commands(piece, depth + 1)
        if nested is None:
            return None
        found.extend(nested)
    return found


def _script_of(program: str, args: list[str]) -> str | None:
    """The command line a shell is given with ``-c`` (``eval``: its words); None for a
    shell that runs a script file, whose content is not the command line's."""
    if program == "eval":
        return " ".join(args)
    for index, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
            return args[index + 1] if index + 1 < len(args) else ""
        if not arg.startswith("-"):
            return None
    return None
