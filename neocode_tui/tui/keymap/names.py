"""Key names as a user writes them (``Ctrl+X Ctrl+E``, ``alt+enter``, ``F2``) read into the
names Textual gives the keys it reads (``ctrl+x``, ``alt+enter``, ``f2``), and back into the
words the screen shows.

A sequence is a tuple of one key (a plain binding) or more (a chord, pressed one after the
other). Modifiers are sorted the way Textual sorts them, so ``shift+ctrl+up`` and
``ctrl+shift+up`` are the same key.
"""

from __future__ import annotations

from textual.keys import _character_to_key, format_key

Sequence = tuple[str, ...]

MODIFIERS = {"ctrl": "ctrl", "control": "ctrl", "alt": "alt", "meta": "alt", "option": "alt",
             "opt": "alt", "shift": "shift"}
"""What each modifier is called; a terminal sends Meta and Option as Alt (Esc, then the key)."""
_NOT_SENT = ("cmd", "command", "super", "win", "hyper")
NAMED = {
    "enter": "enter", "return": "enter", "escape": "escape", "esc": "escape", "tab": "tab",
    "space": "space", "backspace": "backspace", "delete": "delete", "del": "delete",
    "insert": "insert", "ins": "insert", "home": "home", "end": "end", "pageup": "pageup",
    "pgup": "pageup", "page_up": "pageup", "pagedown": "pagedown", "pgdn": "pagedown",
    "page_down": "pagedown", "up": "up", "down": "down", "left": "left", "right": "right",
    **{f"f{number}": f"f{number}" for number in range(1, 25)},
}
SAME_AS = {"ctrl+i": "tab", "ctrl+m": "enter", "ctrl+left_square_bracket": "escape"}
"""Keys a terminal sends as the same bytes as another: the app can only ever see the other."""
_WORDS = {"pageup": "PageUp", "pagedown": "PageDown", "escape": "Esc", "backspace": "Backspace"}


class KeyNameError(ValueError):
    """A key a terminal cannot send, or that no one calls so; the message says which."""


def parse_sequence(text: str) -> Sequence:
    """``"ctrl+x ctrl+e"`` as ``("ctrl+x", "ctrl+e")``; ``KeyNameError`` names what is wrong."""
    parts = text.split()
    if not parts:
        raise KeyNameError("an empty key")
    return tuple(parse_key(part) for part in parts)


def parse_key(text: str) -> str:
    *modifiers, base = _split(text)
    names = set()
    for modifier in modifiers:
        if modifier.lower() in _NOT_SENT:
            raise KeyNameError(f"{text!r}: a terminal does not pass {modifier} on to the app")
        if modifier.lower() not in MODIFIERS:
            raise KeyNameError(f"{text!r}: {modifier!r} is not a modifier (ctrl, alt, shift)")
        names.add(MODIFIERS[modifier.lower()])
    key = "+".join([*sorted(names), _base(base, text)])
    if key in SAME_AS:
        raise KeyNameError(f"{text!r} reaches the app as {label((SAME_AS[key],))}: bind that instead")
    return key


def _split(text: str) -> list[str]:
    """``ctrl++`` is Ctrl with the plus key: a ``+`` at the end is the key, not a separator."""
    head = text[:-1]
    if text.endswith("+") and (not head or head.endswith("+")):
        return [*(head[:-1].split("+") if head else []), "+"]
    return text.split("+")


def _base(base: str, text: str) -> str:
    lowered = base.lower()
    if lowered in NAMED:
        return NAMED[lowered]
    if len(base) == 1 and base.isprintable() and not base.isspace():
        return lowered if base.isalnum() else _character_to_key(base)  # "?" is question_mark
    raise KeyNameError(f"{text!r}: no key is called {base!r}")


def is_typing(key: str) -> bool:
    """A key without Ctrl or Alt that types a character (``?``, ``a``, ``shift+a``)."""
    *modifiers, base = key.split("+")
    return not {"ctrl", "alt"} & set(modifiers) and base not in NAMED.values()


def label(sequence: Sequence) -> str:
    """``("ctrl+x", "ctrl+e")`` as ``Ctrl+X Ctrl+E``."""
    return " ".join(_key_label(key) for key in sequence)


def _key_label(key: str) -> str:
    *modifiers, base = key.split("+")
    character = format_key(base) if len(base) > 1 and base not in NAMED else None
    shown = _WORDS.get(base) or character or (base.upper() if len(base) == 1 or base[0] == "f" and base[1:].isdigit()
                                              else base.title())
    return "+".join([*(modifier.title() for modifier in modifiers), shown])
