"""The user's keys: the ``[keys]`` table of their ``config.toml``.

Only the user's own file binds keys; a workspace has no say in them (a repository that
moved Enter could make a user send what they meant to keep typing). Read in start-up's
thread with the settings; whatever is wrong in it is reported and the app starts anyway.
"""

from __future__ import annotations

from collections.abc import Mapping

from neocode_tui.tui.keymap.bindings import KeyMap, resolve


def load_keymap() -> KeyMap:
    from neocode_tui.settings import read_user_file

    user_file = read_user_file()
    return keymap_from(user_file.keys, str(user_file.path))


def keymap_from(table: object, where: str) -> KeyMap:
    """The keys of ``table`` (a ``[keys]`` as read, None when there is none)."""
    if table is not None and not isinstance(table, dict):
        keymap = resolve({}, where)
        keymap.problems.insert(0, f"{where}: keys must be a table: a [keys] line, then "
                                  'lines like send = "ctrl+s"')
        return keymap
    return resolve(table or {}, where, editing_keys())


def editing_keys() -> Mapping[str, str]:
    """The prompt's own editing keys (Textual's text area), each with what it does."""
    from textual.widgets import TextArea

    keys: dict[str, str] = {}
    for binding in TextArea.BINDINGS:
        if isinstance(binding, tuple):
            continue
        for key in binding.key.split(","):
            keys.setdefault(key.strip(), binding.description.lower())
    return keys
