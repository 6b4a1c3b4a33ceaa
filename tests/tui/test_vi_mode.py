"""Vi's commands on the prompt's text, without Textual: ``|`` marks the cursor, ``\\x1b``
is Esc, and what INSERT receives is typed at the cursor as the editor would."""

from __future__ import annotations

import pytest

from neocode_tui.tui.widgets.vi_mode import MAX_COUNT, MAX_PASTE, ViMachine

ESC = "\x1b"


def typed(start: str, keys: str, vi: ViMachine | None = None) -> str:
    """``keys`` typed in NORMAL on ``start``; the text afterwards with ``|`` at the cursor,
    and `` [INSERT]`` when INSERT is left open."""
    vi = vi or ViMachine(mode="normal")
    vi.mode = "normal"
    text, cursor = start.replace("|", ""), start.index("|")
    for key in keys:
        if key == ESC:
            edit = vi.escape(text, cursor)
            assert edit is not None, "Esc in NORMAL with nothing pending is the app's"
            text, cursor = edit.text, edit.cursor
        elif vi.mode == "insert":
            text, cursor = text[:cursor] + key + text[cursor:], cursor + 1
        else:
            edit = vi.key(key, text, cursor)
            text, cursor = edit.text, edit.cursor
    return text[:cursor] + "|" + text[cursor:] + (" [INSERT]" if vi.mode == "insert" else "")


@pytest.mark.parametrize(("start", "keys", "after"), [
    ("one tw|o three", "h", "one t|wo three"),
    ("one tw|o three", "l", "one two| three"),
    ("one tw|o three", "3l", "one two t|hree"),
    ("one two thre|e", "l", "one two thre|e"),  # never past the last character
    ("|one two three", "w", "one |two three"),
    ("|one two three", "2w", "one two |three"),
    ("|foo.bar baz", "w", "foo|.bar baz"),  # punctuation is a word of its own
    ("one two th|ree", "b", "one two |three"),
    ("one two th|ree", "2b", "one |two three"),
    ("|one two", "e", "on|e two"),
    ("on|e two", "e", "one tw|o"),
    ("  one tw|o", "0", "|  one two"),
    ("  one tw|o", "^", "  |one two"),
    ("|one two", "$", "one tw|o"),
    ("one\ntw|o\nthree", "k", "on|e\ntwo\nthree"),
    ("one\ntw|o\nthree", "j", "one\ntwo\nth|ree"),
    ("one\nt|wo\nthree", "gg", "|one\ntwo\nthree"),
    ("o|ne\ntwo\nthree", "G", "one\ntwo\n|three"),
    ("o|ne\ntwo\nthree", "2G", "one\n|two\nthree"),
    ("one\nthree\n|x", "2gg", "one\n|three\nx"),
    ("line one\nli|ne two", "j", "line one\nli|ne two"),  # the history's, see below
])
def test_motions_move_the_cursor(start: str, keys: str, after: str) -> None:
    assert typed(start, keys) == after


@pytest.mark.parametrize(("start", "keys", "after"), [
    ("|one two three", "dw", "|two three"),
    ("|one two three", "d2w", "|three"),
    ("|one two three", "2dw", "|three"),
    ("one |two\nthree", "dw", "one| \nthree"),  # the last word: the line break stays
    ("one t|wo three", "de", "one t| three"),
    ("one two th|ree", "db", "one two |ree"),
    ("one t|wo three", "d$", "one |t"),
    ("one t|wo three", "D", "one |t"),
    ("one t|wo three", "d0", "|wo three"),
    ("a\n|b\nc", "dd", "a\n|c"),
    ("a\nb\n|c", "dd", "a\n|b"),
    ("|a\nb\nc", "2dd", "|c"),
    ("a\n|b\nc\nd", "dj", "a\n|d"),
    ("a\nb\n|c", "dk", "|a"),
    ("a\n|b\nc", "dG", "|a"),
    ("a\nb\n|c", "dgg", "|"),
    ("|one", "5dd", "|"),
    ("o|ne two", "x", "o|e two"),
    ("o|ne two", "3x", "o|two"),
    ("on|e", "x", "o|n"),
    ("one|", "X", "o|n"),  # the cursor past the end (as INSERT leaves it) deletes before
    ("\n|\n", "d$", "\n|\n"),  # an empty line: the line break stays
])
def test_deleting(start: str, keys: str, after: str) -> None:
    assert typed(start, keys) == after


@pytest.mark.parametrize(("start", "keys", "after"), [
    ("one |two three", "cwTWO\x1b", "one TW|O three"),  # cw changes to the word's end
    ("one |two three", "c2wX\x1b", "one |X"),
    ("one t|wo three", "Cend\x1b", "one ten|d"),
    ("a\n  |b\nc", "ccB\x1b", "a\n|B\nc"),
    ("o|ne", "sX\x1b", "o|Xe"),
    ("o|ne", "SX\x1b", "|X"),
    ("o|ne", "iX\x1b", "o|Xne"),
    ("o|ne", "aX\x1b", "on|Xe"),
    ("  o|ne", "IX\x1b", "  |Xone"),
    ("o|ne", "AX\x1b", "one|X"),
    ("o|ne\ntwo", "oX\x1b", "one\n|X\ntwo"),
    ("one\nt|wo", "OX\x1b", "one\n|X\ntwo"),
    ("o|ne", "cw", "o| [INSERT]"),
])
def test_changing_and_inserting(start: str, keys: str, after: str) -> None:
    assert typed(start, keys) == after


@pytest.mark.parametrize(("start", "keys", "after"), [
    ("|one two", "ywP", "one| one two"),
    ("|one two", "yw$p", "one twoone| "),
    ("|a\nb", "yyp", "a\n|a\nb"),
    ("a\n|b", "yyP", "a\n|b\nb"),
    ("|a\nb", "ddp", "b\n|a"),
    ("|a\nb", "2yyGp", "a\nb\n|a\nb"),
    ("o|ne", "x3p", "oenn|n"),
    ("|ab", "xp", "b|a"),
    ("|one", "p", "|one"),  # nothing yanked yet: nothing pasted
    ("  a\n|b", "kyyjp", "  a\nb\n  |a"),  # on the first character that is no blank
])
def test_yank_and_put(start: str, keys: str, after: str) -> None:
    assert typed(start, keys) == after


@pytest.mark.parametrize(("start", "keys", "after"), [
    ("o|ne", "rX", "o|Xe"),
    ("o|ne", "2rX", "oX|X"),
    ("o|ne", "5rX", "o|ne"),  # not that many characters: nothing replaced
])
def test_replace(start: str, keys: str, after: str) -> None:
    assert typed(start, keys) == after


def test_undo_takes_back_one_change_at_a_time_with_what_insert_typed() -> None:
    vi = ViMachine(mode="normal")
    assert typed("one |two three", "dwu", vi) == "one |two three"
    # A change and the text INSERT typed after it are one step; so is one INSERT session.
    assert typed("one |two three", "cwTWO\x1bu", vi) == "one |two three"
    assert typed("o|ne", "iAB\x1biCD\x1bu", vi) == "oA|Bne"
    assert typed("o|ne", "iAB\x1biCD\x1buu", vi) == "o|ne"
    assert typed("o|ne", "u", ViMachine()) == "o|ne"  # nothing to undo
    assert typed("o|ne", "yyu", ViMachine()) == "o|ne"  # a yank changes nothing


def test_keys_that_are_no_command_type_nothing() -> None:
    assert typed("o|ne", "Zq!?", ViMachine()) == "o|ne"
    assert typed("o|ne", "dz", ViMachine()) == "o|ne"  # an operator without a motion
    vi = ViMachine(mode="normal")
    typed("|one two", "dz", vi)
    assert vi.pending == ""  # the bad key ended the command


def test_a_half_typed_command_shows_and_esc_drops_it() -> None:
    vi = ViMachine(mode="normal")
    vi.key("2", "one", 0)
    vi.key("d", "one", 0)
    assert vi.pending == "2d"
    assert vi.escape("one", 0) is not None and vi.pending == ""
    # With nothing pending, Esc in NORMAL is not vi's: the app's Esc runs.
    assert vi.escape("one", 0) is None


def test_j_and_k_at_the_last_and_first_line_ask_for_the_history() -> None:
    vi = ViMachine(mode="normal")
    assert vi.key("k", "one\ntwo", 1).history == "previous"
    assert vi.key("j", "one\ntwo", 5).history == "next"
    assert vi.key("j", "one\ntwo", 1).history is None
    assert vi.key("9", "a\nb\nc", 2).history is None
    assert vi.key("j", "a\nb\nc", 2).cursor == 4  # a count past the end stops at the last line


def test_esc_from_insert_steps_onto_the_last_character_typed() -> None:
    vi = ViMachine()
    edit = vi.escape("abc", 3)
    assert edit is not None and (edit.cursor, edit.mode) == (2, "normal")
    vi.reset()
    assert vi.mode == "insert"


def test_huge_counts_are_capped_and_never_stall() -> None:
    """A held digit key: the count stops at MAX_COUNT (no int of thousands of digits)."""
    assert typed("|" + "ab " * 10, "1" * 5000 + "w") == "ab " * 9 + "ab| "
    pasted = typed("|x", "yl99999p")
    assert pasted.replace("|", "") == "x" * (1 + MAX_COUNT)
    big = ViMachine(mode="normal")
    typed("|" + "y" * 5000, "y$", big)
    assert len(typed("|z", "500p", big)) == 1 + 1 + 5000 * (MAX_PASTE // 5000)  # |, z, the capped paste
