"""The SSE decoder follows the WHATWG rules whatever the reads look like."""

from __future__ import annotations

from neocode_tui.providers.sse import SSEDecoder, SSEEvent


def decode(*reads: bytes) -> tuple[list[SSEEvent], SSEDecoder]:
    decoder = SSEDecoder()
    events = [event for read in reads for event in decoder.feed(read)]
    return events + decoder.close(), decoder


def test_event_names_multi_line_data_and_optional_space() -> None:
    events, _ = decode(b"event: delta\ndata: one\ndata:two\ndata:  three\n\ndata\n\n")
    assert events == [SSEEvent("delta", "one\ntwo\n three"), SSEEvent("message", "")]


def test_every_line_ending_and_a_crlf_split_between_reads() -> None:
    split = decode(b"data: a\r", b"\n\r", b"\ndata: b\r\rdata: c\n", b"\n")[0]
    assert decode(b"data: a\r\n\r\ndata: b\r\rdata: c\n\n")[0] == split
    assert [e.data for e in decode(b"data: a\r", b"\n\r", b"\ndata: b\r\rdata: c\n", b"\n")[0]] == ["a", "b", "c"]


def test_a_multi_line_event_split_inside_its_crlf_stays_one_event() -> None:
    assert decode(b"data: {\"a\":\r", b"\ndata: 1}\r\n\r\n")[0] == [SSEEvent("message", '{"a":\n1}')]


def test_comments_are_skipped_and_fields_are_kept() -> None:
    events, decoder = decode(b": keep-alive\n\nid: 42\nretry: 1500\ndata: x\n\n: OPENROUTER PROCESSING\n\n")
    assert events == [SSEEvent("message", "x")]
    assert (decoder.last_event_id, decoder.retry) == ("42", 1500)


def test_a_bom_at_the_start_is_dropped_even_when_split() -> None:
    assert decode(b"\xef\xbb", b"\xbfdata: x\n\n")[0] == [SSEEvent("message", "x")]


def test_a_character_split_between_reads_is_whole() -> None:
    body = "data: héllo ✓ 🙂\n\n".encode()
    assert decode(*(body[i : i + 1] for i in range(len(body))))[0] == [SSEEvent("message", "héllo ✓ 🙂")]


def test_the_end_of_the_body_delivers_complete_lines_and_drops_a_cut_one() -> None:
    assert decode(b"data: [DONE]\n")[0] == [SSEEvent("message", "[DONE]")]
    assert decode(b'data: {"a": 1}\n\ndata: {"cut')[0] == [SSEEvent("message", '{"a": 1}')]


def test_event_name_resets_after_each_event() -> None:
    events, _ = decode(b"event: ping\ndata: {}\n\ndata: next\n\n")
    assert [e.event for e in events] == ["ping", "message"]
