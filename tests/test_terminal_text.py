"""The one rule for text shown on a terminal: every control character visible, none acting."""

from __future__ import annotations

import json
import os

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from neocode_tui.terminal_text import (
    CONTROLS,
    VisibleChunks,
    for_stream,
    has_controls,
    visible,
    visible_json,
    without_controls,
)
from tests.support.terminal import HOSTILE, PIECES

EVERY_CONTROL = "".join(map(chr, CONTROLS))


def test_each_kind_of_control_is_shown_by_its_stand_in() -> None:
    assert [visible(raw) for raw, _ in PIECES] == [shown for _, shown in PIECES]
    assert visible("\x00\x1b\x7f\x85\x9b\u061c\u200f\u2069") == "␀␛␡\\x85\\x9b\\u061c\\u200f\\u2069"


def test_what_is_shown_holds_no_control_and_c0_keeps_one_cell_each() -> None:
    shown = visible(EVERY_CONTROL)
    assert not has_controls(shown)
    assert visible(shown) == shown  # escaping twice changes nothing
    c0 = [chr(code) for code in CONTROLS if code < 0x20 or code == 0x7F]
    assert all(cell_len(visible(char)) == 1 for char in c0)


def test_newlines_and_tabs_stay_and_a_crlf_line_end_is_a_line_end() -> None:
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("one\r\ntwo\r\n") == "one\ntwo\n"
    assert visible("safe\rrm -rf ~\r\n") == "safe␍rm -rf ~\n"


def test_text_without_controls_comes_back_as_it_is() -> None:
    text = "plain text, ünïcödé, emoji 🎉 and a  non-breaking space"
    assert visible(text) is text and without_controls(text) is text and visible_json(text) is text


def test_without_controls_takes_them_out_and_nothing_moves() -> None:
    assert without_controls(HOSTILE) == HOSTILE.translate(dict.fromkeys(CONTROLS))
    assert not has_controls(without_controls(HOSTILE + EVERY_CONTROL))
    assert cell_len(without_controls(HOSTILE)) == cell_len(HOSTILE)  # they took no cell


def test_json_for_a_terminal_is_the_same_data_with_every_control_escaped() -> None:
    data = {"result": HOSTILE + EVERY_CONTROL, HOSTILE: [EVERY_CONTROL]}
    written = visible_json(json.dumps(data, ensure_ascii=False))
    assert not has_controls(written)
    assert json.loads(written) == data


@given(st.lists(st.text(alphabet=st.sampled_from("ab\r\n\x1b\x9b\u202e"), max_size=8), max_size=8))
def test_text_in_pieces_is_shown_as_the_whole_would_be(pieces: list[str]) -> None:
    chunks = VisibleChunks()
    assert "".join(chunks(piece) for piece in pieces) + chunks.end() == visible("".join(pieces))


def test_a_terminal_gets_it_escaped_and_a_pipe_exactly() -> None:
    master, terminal = os.openpty()
    read, write = os.pipe()
    with open(terminal, "w") as tty, open(write, "w") as pipe:
        assert for_stream(HOSTILE, tty) == visible(HOSTILE)
        assert for_stream(HOSTILE, pipe) == HOSTILE
    os.close(master)
    os.close(read)
    closed = open(os.devnull, "w")
    closed.close()
    assert for_stream(HOSTILE, closed) == HOSTILE  # a closed stream is no terminal, no error
