"""The app's keys: what each action is bound to by default, the user's ``[keys]`` over
that (with everything wrong in it reported), and chords read key by key."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.tui.keymap.actions import ACTIONS, BY_NAME, FIXED, RESERVED, Action
    from neocode_tui.tui.keymap.bindings import KeyMap, default_keymap, resolve
    from neocode_tui.tui.keymap.chords import ChordReader, Step
    from neocode_tui.tui.keymap.file import keymap_from, load_keymap
    from neocode_tui.tui.keymap.names import KeyNameError, Sequence, label, parse_sequence

__all__ = [
    "ACTIONS",
    "Action",
    "BY_NAME",
    "ChordReader",
    "FIXED",
    "KeyMap",
    "KeyNameError",
    "RESERVED",
    "Sequence",
    "Step",
    "default_keymap",
    "keymap_from",
    "label",
    "load_keymap",
    "parse_sequence",
    "resolve",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "actions": ("ACTIONS", "Action", "BY_NAME", "FIXED", "RESERVED",),
        "chords": ("ChordReader", "Step",),
        "file": ("keymap_from", "load_keymap",),
        "names": ("KeyNameError", "Sequence", "label", "parse_sequence",),
        "bindings": ("KeyMap", "default_keymap", "resolve",),
    })
