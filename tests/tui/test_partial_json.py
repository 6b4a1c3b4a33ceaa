"""The incremental partial-JSON reader behind tool-call previews, and the Markdown block cutter."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from neocode_tui.partial_json import PartialJSON
from neocode_tui.tui.conversation.markdown_split import (
    CODE_CHUNK_LINES,
    CodeChunk,
    MarkdownSplitter,
    split_blocks,
)

ARGUMENTS = {
    "path": "src/ünïcode 😀.py",
    "content": 'import os\n\tprint("a \\\\ b")\r\n' * 20 + "last line without newline",
    "count": 12,
    "ratio": -1.5e3,
    "nested": {"a": [1, {"b": '}],\\"'}], "c": None},
    "flag": True,
    "empty": "",
}


def fed(text: str, cuts: list[int]) -> PartialJSON:
    reader = PartialJSON()
    start = 0
    for cut in sorted(set(cuts)) + [len(text)]:
        reader.feed(text[start:cut])
        start = cut
    return reader


@settings(max_examples=150, deadline=None)
@given(ascii_only=st.booleans(), data=st.data())
def test_any_chunking_reads_the_same_values(ascii_only: bool, data: st.DataObject) -> None:
    text = json.dumps(ARGUMENTS, ensure_ascii=ascii_only)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=60))
    reader = fed(text, cuts)
    assert reader.complete and not reader.broken
    assert {key: field.value() for key, field in reader.fields.items()} == ARGUMENTS


def test_a_growing_write_shows_path_line_count_and_tail_before_it_is_complete() -> None:
    reader = PartialJSON()
    reader.feed('{"path": "a.py", "content": "one\\ntwo\\nthr')
    content = reader.get("content")
    path = reader.get("path")
    assert path is not None and path.complete and path.text == "a.py"
    assert content is not None and not content.complete
    assert content.line_count == 3 and content.tail(2) == "two\nthr"
    reader.feed('ee\\nfour\\n"}')
    assert content.complete and content.line_count == 4 and content.tail(2) == "three\nfour"
    assert reader.complete


def test_an_escape_split_across_fragments_decodes_once_whole() -> None:
    reader = PartialJSON()
    for piece in ['{"command": "echo \\', 'u00e9 \\ud8', "3d\\", "ude00 \\", 'n"}']:
        reader.feed(piece)
    command = reader.get("command")
    assert command is not None and command.text == "echo é 😀 \n"


def test_line_count_and_tail_follow_every_fragment_of_a_long_write() -> None:
    reader = PartialJSON()
    reader.feed('{"content": "')
    content = reader.get("content")
    assert content is not None
    for number in range(1, 5_001):
        reader.feed(f"line {number}\\n")
        assert content.line_count == number
        if number % 1000 == 0:
            assert content.tail(2) == f"line {number - 1}\nline {number}"


def test_text_that_is_not_an_object_stops_reading_without_raising() -> None:
    for bad in ["[1, 2]", '{"a" 1}', '{"a": "x" "b"}', "plain words"]:
        reader = PartialJSON()
        reader.feed(bad)
        reader.feed('{"more": "text"}')
        assert reader.broken and not reader.complete


def test_what_was_read_before_broken_text_stays_readable() -> None:
    reader = PartialJSON()
    reader.feed('{"path": "a.py", "content": "x" oops')
    field = reader.get("path")
    assert reader.broken and field is not None and field.text == "a.py"


MARKDOWN = """# Title

Some prose with **bold**.
Second line.

- item one
- item two

  still item two

1. first
2. second

```python
def f(x):

    return x
```

| a | b |
|---|---|
| 1 | 2 |

> quote
lazy continuation

Setext
======

---
tail without newline"""


LONG_FENCE = "Before.\n\n~~~js\n" + "".join(f"let v{n} = `x\n" for n in range(90)) + "~~~\n\n" + MARKDOWN


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_streamed_markdown_settles_into_the_blocks_of_the_whole_text(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([MARKDOWN, LONG_FENCE]))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(text) - 1), max_size=80))))
    checks = data.draw(st.lists(st.booleans(), min_size=len(cuts) + 1, max_size=len(cuts) + 1))
    splitter = MarkdownSplitter()
    blocks: list[str] = []
    for start, end, check in zip([0, *cuts], [*cuts, len(text)], checks):
        splitter.append(text[start:end])
        if check:
            blocks += splitter.settle()
    blocks += splitter.finish()
    assert blocks == split_blocks(text)
    shown = "".join(b if isinstance(b, str) else b.code for b in blocks)
    fences = ("```", "~~~")
    assert [line for line in shown.splitlines() if line.strip() and not line.startswith(fences)] == [
        line for line in text.splitlines() if line.strip() and not line.startswith(fences)
    ]


def test_an_open_fence_stays_code_until_it_closes() -> None:
    splitter = MarkdownSplitter()
    splitter.append("Intro.\n\n```python\nx = 1\n\nclass A:\n    pass\n\n")
    assert splitter.settle() == ["Intro.\n\n"]
    splitter.append("y = 2\n\n# not a heading\n\n")
    assert splitter.settle() == []
    open_code = splitter.open_code()
    assert open_code is not None and open_code.language == "python"
    assert open_code.code == "x = 1\n\nclass A:\n    pass\n\ny = 2\n\n# not a heading\n\n"
    splitter.append("```\n\nAfter.\n")
    assert splitter.settle() == [CodeChunk("python", open_code.code, first=True, last=True)]
    assert splitter.open_code() is None
    assert splitter.finish() == ["After.\n"]


def test_a_long_fence_is_cut_into_chunks_as_its_lines_arrive() -> None:
    splitter = MarkdownSplitter()
    splitter.append("```py\n")
    chunks = []
    for number in range(1, 2 * CODE_CHUNK_LINES + 6):
        splitter.append(f"line_{number} = {number}\n")
        chunks += splitter.settle()
        open_code = splitter.open_code()
        assert open_code is not None and open_code.code.count("\n") <= CODE_CHUNK_LINES
    assert len(chunks) == 2 and chunks[0].first and not chunks[1].first and not chunks[1].last
    assert chunks[1].code.startswith(f"line_{CODE_CHUNK_LINES + 1} =")
    splitter.append("```")  # the message ends on the closing marker, without a newline
    ending = splitter.finish()
    assert ending == [CodeChunk("py", "".join(f"line_{n} = {n}\n" for n in range(81, 86)), False, True)]


def test_a_huge_single_line_value_previews_only_its_end() -> None:
    reader = PartialJSON()
    reader.feed('{"content": "')
    for _ in range(10_000):
        reader.feed("abcdefghij")
    content = reader.get("content")
    assert content is not None and content.line_count == 1 and content.length == 100_000
    assert content.tail(3) == "abcdefghij" * 200
