"""Reading a user's key names and chords: what each spelling means, what is refused and
why, and how a chord is read key by key."""

from __future__ import annotations

import pytest

from neocode_tui.tui.keymap import ChordReader, KeyNameError, label, parse_sequence, resolve


@pytest.mark.parametrize(("written", "read"), [
    ("Ctrl+X Ctrl+E", ("ctrl+x", "ctrl+e")),
    ("shift+ctrl+up", ("ctrl+shift+up",)),
    ("Meta+Enter", ("alt+enter",)),
    ("option+b", ("alt+b",)),
    ("ESC", ("escape",)),
    ("PgDn", ("pagedown",)),
    ("f12", ("f12",)),
    ("ctrl+?", ("ctrl+question_mark",)),
    ("ctrl++", ("ctrl+plus",)),
    ("ctrl+x /", ("ctrl+x", "slash")),
])
def test_key_names_as_users_write_them(written: str, read: tuple[str, ...]) -> None:
    assert parse_sequence(written) == read


@pytest.mark.parametrize(("written", "said"), [
    ("cmd+s", "a terminal does not pass cmd on to the app"),
    ("ctrl+i", "reaches the app as Tab: bind that instead"),
    ("ctrl+enterr", "no key is called 'enterr'"),
    ("hyperr+x", "'hyperr' is not a modifier"),
    ("", "an empty key"),
])
def test_keys_no_terminal_sends_are_refused_with_the_reason(written: str, said: str) -> None:
    with pytest.raises(KeyNameError, match=said.replace("+", r"\+").replace("(", r"\(")):
        parse_sequence(written)


def test_labels_are_what_the_screen_shows() -> None:
    assert label(("ctrl+x", "ctrl+e")) == "Ctrl+X Ctrl+E"
    assert label(("alt+pagedown",)) == "Alt+PageDown"
    assert label(("question_mark",)) == "?" and label(("ctrl+x", "slash")) == "Ctrl+X /"


def test_a_user_key_wins_and_the_action_that_lost_it_is_named() -> None:
    keys = resolve({"search": "ctrl+t"}, "config.toml")

    assert keys.keys["search"] == (("ctrl+t",),) and keys.keys["fold"] == ()
    assert keys.problems == ["config.toml [keys]: Ctrl+T now does search (your key), no longer fold, "
                             "which has no key left: give it one in [keys]"]


def test_two_of_your_bindings_on_one_key_keep_the_first() -> None:
    keys = resolve({"fold": "f5", "jobs": ["f5", "f6"]}, "config.toml")

    assert keys.keys["fold"] == (("f5",),) and keys.keys["jobs"] == (("f6",),)
    assert keys.problems == ["config.toml [keys]: F5 is bound to both fold and jobs: kept for fold"]


def test_an_empty_list_unbinds_and_a_bad_value_is_named() -> None:
    keys = resolve({"background": [], "jobs": 5}, "config.toml")

    assert keys.keys["background"] == () and keys.keys["jobs"] == (("f2",),)
    assert keys.problems == ['config.toml [keys]: jobs must be a key in quotes, or a list of them '
                             '(like jobs = ["ctrl+g", "ctrl+x ctrl+e"]; [] for none)']


def test_a_chord_is_read_key_by_key() -> None:
    reader = ChordReader({("ctrl+x", "ctrl+e"): "expand", ("ctrl+x", "n"): "newline"})

    assert reader.feed("a").kind == "pass"
    assert reader.feed("ctrl+x").kind == "wait"
    assert (step := reader.feed("ctrl+e")).kind == "run" and step.action == "expand"
    assert reader.feed("ctrl+x").kind == "wait"
    assert (step := reader.feed("q")).kind == "pass" and step.pressed == ("ctrl+x",)
    assert reader.feed("ctrl+x").kind == "wait"
    assert reader.feed("escape").kind == "cancel"
    assert reader.feed("n").kind == "pass", "the chord is over: n is a key again"
