"""The keys in use: the defaults, with the user's ``[keys]`` table over them.

Nothing in the table is dropped without a word: an unknown action or key, a key two
actions want, a key that is reserved or only types a character, a chord that could never
be pressed because its first key does something alone, and a default key a user's binding
took from another action are each reported (the app shows them at start, ``neocode config
--keys`` lists them). What is kept is what works: a user's key wins over a default, the
first action listed wins a key two of the user's bindings want.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from neocode_tui.tui.keymap.actions import ACTIONS, BY_NAME, RESERVED, Action
from neocode_tui.tui.keymap.names import KeyNameError, Sequence, is_typing, label, parse_sequence
from neocode_tui.tui.keys import KeyNames


@dataclass
class KeyMap:
    keys: dict[str, tuple[Sequence, ...]]
    """Each action's key sequences, in the order of ``ACTIONS``."""
    yours: frozenset[str] = frozenset()
    """The actions the user's table sets."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What a user's key changes besides the action it binds (a prompt editing key it takes)."""

    def __post_init__(self) -> None:
        self._by_sequence = {sequence: name for name, sequences in self.keys.items() for sequence in sequences}

    def action_of(self, sequence: Sequence) -> str | None:
        return self._by_sequence.get(sequence)

    def prompt_action(self, key: str) -> str | None:
        """The input box's action of the single key ``key`` (send, newline, history_search)."""
        name = self._by_sequence.get((key,))
        return name if name is not None and BY_NAME[name].where == "prompt" else None

    def app_keys(self) -> list[tuple[str, Action]]:
        """Every single key of an app action, with it."""
        return [(sequence[0], BY_NAME[name]) for name, sequences in self.keys.items()
                for sequence in sequences if len(sequence) == 1 and BY_NAME[name].where == "app"]

    def chords(self) -> dict[Sequence, str]:
        return {sequence: name for sequence, name in self._by_sequence.items() if len(sequence) > 1}

    def label(self, name: str) -> str:
        """``Alt+Enter  Ctrl+J``; "" for an action without a key."""
        return "  ".join(label(sequence) for sequence in self.keys[name])

    def first_label(self, name: str) -> str:
        """The key the screen names for ``name`` (a fold hint, a panel): its first, or the
        command that does the same when it has none."""
        sequences = self.keys[name]
        return label(sequences[0]) if sequences else ""

    def names(self) -> KeyNames:
        """The keys the screen's hints name, as this keymap has them."""
        return KeyNames(**{name: self.first_label(name) for name in KeyNames.__dataclass_fields__})


def default_keymap() -> KeyMap:
    return resolve({}, "")


def resolve(table: Mapping[str, object], where: str, editing: Mapping[str, str] | None = None) -> KeyMap:
    """The keys ``table`` (the ``[keys]`` of the file ``where``) makes, with what it got
    wrong. ``editing``: the prompt's own editing keys, by key, with what they do."""
    resolving = _Resolving(where)
    for name, value in table.items():
        resolving.user_binding(name, value)
    keys = {action.name: resolving.keys_of(action) for action in ACTIONS}
    resolving.drop_unreachable_chords(keys)
    keymap = KeyMap(keys, frozenset(resolving.user), resolving.problems)
    keymap.notes.extend(_shadowed(keymap, editing or {}))
    return keymap


class _Resolving:
    def __init__(self, where: str) -> None:
        self.where = f"{where} [keys]" if where else "[keys]"
        self.problems: list[str] = []
        self.taken: dict[Sequence, str] = {}
        self.user: dict[str, list[Sequence]] = {}

    def user_binding(self, name: str, value: object) -> None:
        if name not in BY_NAME:
            close = difflib.get_close_matches(name, list(BY_NAME), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            self.problems.append(f"{self.where}: {name!r} is not an action{hint}; "
                                 f"`neocode config --keys` lists them")
            return
        specs = value if isinstance(value, list) else [value]
        if not all(isinstance(spec, str) for spec in specs):
            self.problems.append(f"{self.where}: {name} must be a key in quotes, or a list of them "
                                 f'(like {name} = ["ctrl+g", "ctrl+x ctrl+e"]; [] for none)')
            return
        self.user[name] = [sequence for spec in specs if spec and (sequence := self._sequence(name, str(spec)))]

    def _sequence(self, name: str, spec: str) -> Sequence | None:
        try:
            sequence = parse_sequence(spec)
        except KeyNameError as exc:
            self.problems.append(f"{self.where}: {name}: {exc}")
            return None
        shown = label(sequence)
        if sequence[0] in RESERVED:
            self.problems.append(f"{self.where}: {name}: {shown} is not given to any action "
                                 f"({RESERVED[sequence[0]]})")
        elif is_typing(sequence[0]):
            self.problems.append(f"{self.where}: {name}: {shown} types a character; "
                                 f"bind it with Ctrl or Alt, or use a named key (F3, Enter)")
        elif (owner := self.taken.get(sequence)) is not None:
            self.problems.append(f"{self.where}: {shown} is bound to both {owner} and {name}: kept for {owner}")
        else:
            self.taken[sequence] = name
            return sequence
        return None

    def keys_of(self, action: Action) -> tuple[Sequence, ...]:
        if action.name in self.user:
            return tuple(self.user[action.name])
        kept: list[Sequence] = []
        lost: list[str] = []
        for spec in action.defaults:
            sequence = parse_sequence(spec)
            owner = self.taken.get(sequence)
            if owner is None:
                self.taken[sequence] = action.name
                kept.append(sequence)
            else:
                lost.append(f"{self.where}: {label(sequence)} now does {owner} (your key), no longer {action.name}")
        if lost and not kept:
            lost[-1] += ", which has no key left: give it one in [keys]"
        self.problems.extend(lost)
        return tuple(kept)

    def drop_unreachable_chords(self, keys: dict[str, tuple[Sequence, ...]]) -> None:
        for name, sequences in keys.items():
            reachable = []
            for sequence in sequences:
                blocked = next((sequence[:n] for n in range(1, len(sequence)) if sequence[:n] in self.taken), None)
                if blocked is None:
                    reachable.append(sequence)
                    continue
                self.problems.append(f"{self.where}: {name}: {label(sequence)} can never be pressed: "
                                     f"{label(blocked)} alone does {self.taken[blocked]}")
            keys[name] = tuple(reachable)


def _shadowed(keymap: KeyMap, editing: Mapping[str, str]) -> list[str]:
    """A user's key for an app action that the prompt uses for editing: the app's wins."""
    notes = []
    for name in keymap.yours:
        action = BY_NAME[name]
        for sequence in keymap.keys[name]:
            if (action.where == "app" and action.first or len(sequence) > 1) and sequence[0] in editing:
                does = f"starts {label(sequence)} ({name})" if len(sequence) > 1 else f"does {name}"
                notes.append(f"{label(sequence[:1])} now {does}, your key, in the prompt too: "
                             f"it no longer does {editing[sequence[0]]}")
    return sorted(notes)
