"""The bytes terminals send for the new-line keys, read by the parser every driver uses (the
terminal's and the browser front end's, whose xterm.js sends Alt+Enter as ESC CR too)."""

from __future__ import annotations

import importlib

import pytest

from neocode_tui.tui.key_parser import KeyParser, after_escape, use_in


def keys(data: str) -> list[str]:
    parser = KeyParser(debug=False)
    return [event.key for event in parser.feed(data) if hasattr(event, "key")]


@pytest.mark.parametrize(("data", "expected"), [
    ("a\x1b\rb", ["a", "alt+enter", "b"]),  # tmux, xterm.js, most terminals
    ("\x1b[27;2;13~", ["shift+enter"]),  # xterm with modifyOtherKeys
    ("\x1b[13;2u", ["shift+enter"]),  # kitty, foot, WezTerm
    ("\x1b[13;3u", ["alt+enter"]),
    ("\n", ["ctrl+j"]),
    ("\r", ["enter"]),
    ("\x1b\x7f", ["ctrl+w"]),  # Alt+Backspace keeps Textual's name: delete a word
])
def test_new_line_keys_are_read_as_sent(data: str, expected: list[str]) -> None:
    assert keys(data) == expected


@pytest.mark.parametrize("module", ["textual.drivers.linux_driver", "textual.drivers.web_driver"])
def test_the_terminal_and_the_browser_drivers_read_keys_with_it(module: str) -> None:
    driver_module = importlib.import_module(module)
    driver = next(value for name, value in vars(driver_module).items()
                  if name.endswith("Driver") and value.__module__ == module)
    assert use_in(driver) is driver
    assert driver_module.XTermParser is KeyParser


@pytest.mark.parametrize(("data", "key", "typed"), [
    ("\x1bx", "alt+x", "x"),
    ("\x1bb", "ctrl+left", "b"),  # Textual's word move stays for the plain editor
    ("\x1b0", "º", "0"),
    ("\x1b$", "dollar_sign", "$"),
    ("\x1bO", "alt+shift+o", "O"),
])
def test_a_key_typed_right_behind_esc_says_what_was_typed(data: str, key: str, typed: str) -> None:
    """One key as Textual names it, and the character behind the Esc for vi mode."""
    parser = KeyParser(debug=False)
    events = [event for event in [*parser.feed(data), *parser.feed("")] if hasattr(event, "key")]
    assert [(event.key, after_escape(event)) for event in events] == [(key, typed)]


def test_keys_without_an_esc_in_front_say_nothing_typed_after_one() -> None:
    parser = KeyParser(debug=False)
    events = [event for event in parser.feed("x\x1b[A\x1b\r") if hasattr(event, "key")]
    assert [(event.key, after_escape(event)) for event in events] == [
        ("x", None), ("up", None), ("alt+enter", None)]


def test_keys_typed_fast_around_esc_are_never_turned_into_a_caret() -> None:
    """Esc, A, a word, Esc, b, x in one read: the Esc pairs are read at once, as typed."""
    parser = KeyParser(debug=False)
    events = [event for event in [*parser.feed("\x1bA go\x1bbx"), *parser.feed("")] if hasattr(event, "key")]
    assert [(event.key, after_escape(event)) for event in events] == [
        ("alt+shift+a", "A"), ("space", None), ("g", None), ("o", None), ("ctrl+left", "b"), ("x", None)]
