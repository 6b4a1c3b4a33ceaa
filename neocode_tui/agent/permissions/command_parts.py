"""A shell command as the simple commands it runs, for permission rules to judge each one.

``npm test && curl x`` is two commands, ``npm test $(rm x)`` runs ``rm`` first: a rule
that allows ``npm test`` must see both. The command is parsed by a real shell grammar
(bashlex) and only what is understood whole is split: lists (``;``, ``&&``, ``||``,
``&``, new lines) and pipelines. Anything else a command could hide a second program
in (substitutions, expansions, assignments before the program, redirections to files,
compound commands, functions, here-documents, or text the parser cannot read) makes the
answer ``None``: not provable, so an allow rule never covers it and a deny rule asks.
So does a brace expansion (``{rm,x}``), which makes words the text does not show.

A word that is a pathname pattern (``/bin/r?``) is kept, marked: a deny or ask rule reads it
as every word it could expand to, an allow rule never covers a program named so. What a
wrapper or a shell runs is read by the table of ``agent.command_wrappers``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from functools import cached_property

from neocode_tui.agent.permissions.command_wrappers import FIND_RUNS, PROGRAMS, Invocation
from neocode_tui.deferred import lazy

bashlex = lazy("bashlex")
"""Imported when a command is first judged: it builds its parser tables at import (about
0.1 s), which a run that never checks a command should not pay."""

MAX_PARSED = 8_000
"""Characters parsed at most (the parser is pure Python, about a second for this many on a
busy machine): a longer command is not split."""
MAX_DEPTH = 4
"""Wrappers and shells looked into, one inside another, before the command is unprovable."""
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
"""Where a redirection may point and still write no file."""
_SMUGGLERS = ("`", "$(", "<(", ">(", "${")
"""Checked on the raw text as well, in case the parser reads one differently from bash."""
_QUOTED = re.compile(r"\\.|'[^']*'|\"(?:\\.|[^\"\\])*\"", re.DOTALL)
"""What the shell takes literally in a word's source: escapes and quoted strings."""
_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_GLOB = re.compile(r"[*?[]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NUMBER = re.compile(r"--?\d+")
_INPUT = re.compile(r"/dev/(stdin|fd/)|/proc/[^/]+/fd/|-$")
"""Script files that are the shell's input."""
Options = list[tuple[str, str]]


@dataclass(frozen=True)
class Part:
    """One simple command: its words with quotes removed."""

    words: tuple[str, ...]
    patterns: frozenset[int] = frozenset()
    """Which words the shell expands as pathname patterns (``/bin/r?``, ``*.py``)."""
    open: bool = False
    """It is given more words when it runs (``xargs``' input, ``find``'s ``{}``)."""
    placeholder: str = ""
    """Text replaced when it runs (``find``'s ``{}``, ``xargs -I``'s): a program whose
    name holds it is unknown."""

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        """The words split at blanks, as rules compare them: ``env -S "rm -rf x"`` hides
        no program from a rule that way."""
        return tuple(" ".join(self.words).split())

    @cached_property
    def token_patterns(self) -> tuple[bool, ...]:
        """For each of ``tokens``, whether it came from a pattern word."""
        return tuple(index in self.patterns for index, word in enumerate(self.words) for _ in word.split())

    @property
    def program(self) -> str:
        """The program's name, without its folder (``/bin/rm`` is ``rm``)."""
        return self.words[0].rsplit("/", 1)[-1]

    def pick(self, indices: Iterable[int]) -> Part:
        """The words at ``indices``, in order, with their marks."""
        chosen = list(indices)
        return replace(self, words=tuple(self.words[index] for index in chosen),
                       patterns=frozenset(at for at, index in enumerate(chosen) if index in self.patterns))

    def tail(self, start: int, end: int | None = None) -> Part:
        """The words from ``start`` (to ``end``), with their marks."""
        stop = len(self.words) if end is None else end
        return replace(self, words=self.words[start:stop],
                       patterns=frozenset(index - start for index in self.patterns if start <= index < stop))


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
        if not _collect(tree, parts, command):
            return None
    return parts or None


def _collect(node: object, parts: list[Part], source: str) -> bool:
    kind = getattr(node, "kind", "")
    if kind in ("list", "pipeline"):
        return all(_collect(child, parts, source) for child in node.parts)  # type: ignore[attr-defined]
    if kind in ("operator", "pipe"):
        return getattr(node, "op", getattr(node, "pipe", "")) in (";", "&&", "||", "&", "\n", "|")
    if kind != "command":
        return False
    words: list[str] = []
    patterns: set[int] = set()
    for child in node.parts:  # type: ignore[attr-defined]
        child_kind = getattr(child, "kind", "")
        if child_kind == "word" and not child.parts:
            literal = _QUOTED.sub("\0", source[child.pos[0]:child.pos[1]])
            if _BRACES.search(literal):
                return False
            if _GLOB.search(literal):
                patterns.add(len(words))
            words.append(child.word)
        elif child_kind == "redirect" and _harmless_redirect(child):
            continue
        else:
            return False
    if not words:
        return False
    parts.append(Part(tuple(words), frozenset(patterns)))
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


def inner_commands(part: Part) -> list[Part] | None:
    """For deny and ask rules: ``part`` and every command it may make run, each also by
    its name (``/bin/rm``: ``rm``): what a wrapper runs (``sudo -u x rm``, ``timeout -s
    KILL 5 rm``), what ``find -exec``, ``xargs``, ``bash -c '...'`` or ``eval`` run. Past
    a wrapper option the table does not know, every later word may start the command.
    None when an inner one cannot be proved."""
    return _walk(part, 0, exact=False)


def commands_run(part: Part) -> list[Part] | None:
    """For allow rules: ``part`` and exactly the commands it makes run, as written; None
    when one cannot be read for certain or a program is named by a pattern."""
    return _walk(part, 0, exact=True)


def _walk(part: Part, depth: int, *, exact: bool) -> list[Part] | None:
    if depth > MAX_DEPTH or (part.placeholder and part.placeholder in part.words[0]):
        return None
    program = part.program
    if 0 in part.patterns and (exact or any(pattern_matches(program, name) for name in PROGRAMS)):
        return None  # it might name a wrapper or a shell, whose command is then unknown
    found = [part]
    if not exact and program != part.words[0]:
        found.append(replace(part, words=(program, *part.words[1:])))
    spec = PROGRAMS.get(program)
    if spec is None:
        return found
    pieces = _run_by(spec, part, exact=exact)
    if pieces is None:
        return None
    for piece in pieces:
        nested = _walk(piece, depth + 1, exact=exact)
        if nested is None:
            return None
        found.extend(nested)
    return found


def pattern_matches(pattern: str, name: str) -> bool:
    """Whether a shell pattern word could expand to ``name`` (``[^a]`` reads as ``[!a]``)."""
    return fnmatchcase(name, pattern.replace("[^", "[!"))


def _run_by(spec: Invocation, part: Part, *, exact: bool) -> list[Part] | None:
    """The commands a wrapper or a shell runs, per its entry in the table."""
    if spec.runs == "find":
        return _find_runs(part)
    if part.open and spec.runs in ("shell", "script"):
        return None  # its command line would come from the input
    read = _read_options(spec, part.words[1:])
    if read is None:
        if exact or spec.runs in ("shell", "script"):
            return None
        return [part.tail(index) for index in range(1, len(part.words))]
    options, operands = read
    if any(name in spec.queries for name, _ in options):
        return []
    pieces = _scripts([value for name, value in options if name in spec.scripts])
    rest = part.pick(index + 1 for index in operands)
    if pieces is None:
        return None
    if spec.runs == "shell":
        return _shell_runs(spec, options, rest, pieces)
    if spec.runs == "script":
        return _scripts([" ".join(rest.words)])
    if len(rest.words) > spec.operands and rest.words[spec.operands] in spec.after_operands:
        script = _scripts(list(rest.words[spec.operands + 1:spec.operands + 2]))
        return None if script is None else pieces + script
    command = _command_of(spec, options, rest)
    if command is None:
        return None
    if spec.runs == "xargs":
        filled = next((value or "{}" for name, value in options if name in spec.fills), "")
        command = replace(command if command.words else Part(("echo",)), open=True, placeholder=filled)
    elif not command.words and not pieces and (part.open or _starts_shell(spec, options)):
        return None  # the command would come from the input
    return pieces + ([command] if command.words else [])


def _starts_shell(spec: Invocation, options: Options) -> bool:
    """Whether, given no command, it starts a shell that reads its input."""
    return spec.default_shell or any(name in spec.shell_options for name, _ in options)


def _read_options(spec: Invocation, args: tuple[str, ...]) -> tuple[Options, list[int]] | None:
    """The options (before the first operand, or among them for a ``permute`` entry) and
    where the operands are; None for an option the entry does not know or one missing
    its value."""
    options: Options = []
    operands: list[int] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in spec.ends:
            return options, [*operands, *range(index + 1, len(args))]
        if arg in spec.flags or (spec.numbers and _NUMBER.fullmatch(arg)):
            options.append((arg, ""))
            index += 1
            continue
        if arg.startswith("--"):
            taken = _long_option(spec, arg, args[index + 1:])
        elif len(arg) > 1 and (arg[0] == "-" or (spec.plus and arg[0] == "+")):
            taken = _short_options(spec, arg, args[index + 1:])
        elif spec.permute:
            operands.append(index)
            index += 1
            continue
        else:
            break
        if taken is None:
            return None
        found, used = taken
        options.extend(found)
        index += 1 + used
    return options, [*operands, *range(index, len(args))]


def _long_option(spec: Invocation, arg: str, following: tuple[str, ...]) -> tuple[Options, int] | None:
    written, equals, value = arg.partition("=")
    name = _long_name(spec, written)
    if name is None:
        return None
    if name in spec.attached:
        return [(name, value)], 0
    if name in spec.valued | spec.scripts | spec.splits:
        if equals:
            return [(name, value)], 0
        return ([(name, following[0])], 1) if following else None
    return None if equals else ([(name, "")], 0)


def _long_name(spec: Invocation, written: str) -> str | None:
    """The option ``--name`` stands for: itself, or the one it is a unique prefix of."""
    if spec.any_long:
        return written
    known = spec.flags | spec.valued | spec.attached | spec.scripts | spec.splits | spec.queries
    if written in known:
        return written
    if not spec.abbreviations:
        return None
    matches = [name for name in known if name.startswith("--") and name.startswith(written)]
    return matches[0] if len(matches) == 1 else None


def _short_options(spec: Invocation, arg: str, following: tuple[str, ...]) -> tuple[Options, int] | None:
    """``-vs KILL``, ``-sKILL``, ``-ec``; a shell's ``-oc pipefail`` (each letter that
    takes a value takes the next word)."""
    found: Options = []
    used = 0
    for offset in range(1, len(arg)):
        name, rest = f"-{arg[offset]}", arg[offset + 1:]
        if name in spec.attached:
            return [*found, (name, rest)], used
        if name in spec.valued | spec.scripts | spec.splits:
            if rest and not spec.next_words:
                return [*found, (name, rest)], used
            if used >= len(following):
                return None
            found.append((name, following[used]))
            used += 1
            if not spec.next_words:
                return found, used
            continue
        if name not in spec.flags | spec.queries:
            return None
        found.append((name, ""))
    return found, used


def _scripts(lines: list[str]) -> list[Part] | None:
    """The commands of command lines a shell is given."""
    pieces: list[Part] = []
    for line in lines:
        inner = split_command(line) if line.strip() else []
        if inner is None:
            return None
        pieces.extend(inner)
    return pieces


def _shell_runs(spec: Invocation, options: Options, rest: Part, pieces: list[Part]) -> list[Part] | None:
    """A shell runs its ``-c`` command line (the first operand, wherever ``-c`` stands),
    a script file, or what it reads from its input, which is unknown."""
    names = {name for name, _ in options}
    if "-c" in names and "-c" in spec.flags:
        script = _scripts([rest.words[0]] if rest.words else [])
        return None if script is None else pieces + script
    if pieces:
        return pieces
    if spec.default_shell or "-s" in names or "-i" in names or not rest.words or _INPUT.match(rest.words[0]):
        return None
    return []  # a script file: its content is not the command line's


def _command_of(spec: Invocation, options: Options, rest: Part) -> Part | None:
    """The command after a wrapper's options and operands (empty when there is none)."""
    if len(rest.words) < spec.operands:
        return Part(())
    command = rest.tail(spec.operands)
    if spec.assignments:
        skip = next((index for index, word in enumerate(command.words) if not _ASSIGNMENT.match(word)),
                    len(command.words))
        command = command.tail(skip)
    for name, value in options:
        if name in spec.splits:
            try:
                split = tuple(shlex.split(value))
            except ValueError:
                return None
            command = Part(split + command.words, frozenset(index + len(split) for index in command.patterns))
    return command


def _find_runs(part: Part) -> list[Part]:
    """What each ``-exec``, ``-execdir``, ``-ok`` runs: its words up to ``;`` (or ``{} +``),
    given the names found for ``{}``."""
    words = part.words
    pieces: list[Part] = []
    for index, word in enumerate(words):
        if word not in FIND_RUNS:
            continue
        end = next((stop for stop in range(index + 1, len(words)) if words[stop] == ";"
                    or (words[stop] == "+" and words[stop - 1] == "{}")), len(words))
        if end > index + 1:
            pieces.append(replace(part.tail(index + 1, end), open=True, placeholder="{}"))
    return pieces
