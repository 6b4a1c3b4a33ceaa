"""The bookkeeping under the conversation view, under any sequence of changes: each line
belongs to the right block, held lines never exceed the budget beyond what is in view, and a
block drawn again after letting its lines go draws the same lines."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from neocode_tui.tui.conversation.block_lines import BlockLines
from neocode_tui.tui.conversation.blocks import Block, NoticeBlock, UserBlock
from neocode_tui.tui.conversation.palette import Palette

PALETTE = Palette.from_variables({}, dark=True)
CONSOLE = Console(file=io.StringIO(), width=200, color_system="truecolor")

texts = st.text(alphabet="ab \n", min_size=0, max_size=300)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), texts, st.booleans()),
        st.tuples(st.just("insert"), texts, st.integers(0, 50)),
        st.tuples(st.just("remove"), st.integers(0, 50)),
        st.tuples(st.just("change"), st.integers(0, 50), texts),
        st.tuples(st.just("view"), st.integers(0, 2_000), st.sampled_from([20, 41, 80])),
    ),
    max_size=60,
)


def fresh_lines(block: Block, width: int) -> list[str]:
    """What a new block with the same content draws, as plain text lines."""
    twin = UserBlock(block.text) if isinstance(block, UserBlock) else NoticeBlock("info", block.message)
    scratch = BlockLines()
    scratch.append(twin)
    scratch.render(twin, (width, PALETTE), CONSOLE)
    return ["".join(segment.text for segment in line) for line in twin.lines or []]


def check(lines: BlockLines, width: int) -> None:
    lines.recompute(width)
    total = 0
    for index, block in enumerate(lines.blocks):
        assert lines.start(index) == total
        total += lines.height(block, width)
    assert lines.total == total
    held = [block for block in lines.blocks if block.lines is not None]
    assert lines.resident_lines == sum(block.height for block in held)


@settings(max_examples=60, deadline=None)
@given(operations, st.integers(10, 200))
def test_any_sequence_of_changes_keeps_lines_heights_and_the_budget_consistent(ops, budget) -> None:
    lines = BlockLines(budget=budget)
    width = 41
    for op in ops:
        env = (width, PALETTE)
        if op[0] == "append":
            lines.append(UserBlock(op[1]), render=op[2])
        elif op[0] == "insert" and lines.blocks:
            lines.insert_before(lines.blocks[op[2] % len(lines.blocks)], NoticeBlock("info", op[1] or "x"))
        elif op[0] == "remove" and lines.blocks:
            lines.remove(lines.blocks[op[1] % len(lines.blocks)])
        elif op[0] == "change" and lines.blocks:
            block = lines.blocks[op[1] % len(lines.blocks)]
            if isinstance(block, UserBlock):
                block.text = op[2]
                block.changed()
                lines.touch(block)
        elif op[0] == "view" and lines.blocks:
            width = op[2]
            env = (width, PALETTE)
            lines.invalidate(0)
            lines.render_dirty(env, CONSOLE)
            lines.recompute(width)
            first = lines.block_at(op[1] % max(lines.total, 1))
            shown = range(first, min(first + 3, len(lines.blocks)))
            for index in shown:
                if lines.render(lines.blocks[index], env, CONSOLE):
                    lines.invalidate(index)
            lines.trim(shown)
            check(lines, width)
            for index in shown:
                block = lines.blocks[index]
                assert lines.holds(block, env)
                drawn = [
                    "".join(segment.text for segment in lines.line(lines.start(index) + offset) or [])
                    for offset in range(block.height)
                ]
                assert drawn == fresh_lines(block, width)
            others = [b for i, b in enumerate(lines.blocks) if i not in shown and b.lines is not None]
            assert sum(b.height for b in others) <= budget or not others
        lines.render_dirty(env, CONSOLE)
        check(lines, width)


MARKDOWN = """## Step 1: tidy the loader 漢字

The loader reads every file twice, once to **count** lines and once to parse them, which is a
very long line that must wrap at the narrow widths. See `load_all()` and [the docs](https://x.y).

- keep the public signature
  - a nested item with	a tab
- stream records instead of building a list

| column | another |
|---|---|
| a | b 漢字 |

> The old behaviour stays available behind `--two-pass` for one release.

```python
def load_all(paths: list[str]) -> Iterator[Record]:
    for path in paths:  # a comment long enough to wrap when the view is narrow, 漢字 included
\tyield parse(path)
```
"""


@given(st.sampled_from([10, 13, 31, 80, 121]), st.booleans())
@settings(max_examples=20, deadline=None)
def test_an_indented_block_draws_what_rich_padding_draws(width: int, streamed: bool) -> None:
    """A Markdown piece or code chunk is drawn narrower with a margin put in front of each
    line instead of inside a Rich ``Padding``: the lines must be Rich's, segment for
    segment, for every kind of piece, at any width."""
    from rich.padding import Padding

    from neocode_tui.tui.conversation.blocks import MarkdownBlock
    from neocode_tui.tui.conversation.markdown_split import MarkdownSplitter, split_blocks

    if streamed:  # the pieces a streamed answer settles into, code cut into chunks
        splitter = MarkdownSplitter()
        splitter.append(MARKDOWN)
        pieces = splitter.settle() + splitter.finish()
    else:
        pieces = split_blocks(MARKDOWN)
    assert len(pieces) >= 6
    for piece in pieces:
        block = MarkdownBlock(piece)
        scratch = BlockLines()
        scratch.append(block)
        scratch.render(block, (width, PALETTE), CONSOLE)
        inner = block.renderable(PALETTE)
        assert inner is not None
        with CONSOLE.use_theme(PALETTE.rich_theme):
            expected = CONSOLE.render_lines(
                Padding(inner, (0, 0, 0, 2)), CONSOLE.options.update(width=width, height=None, highlight=False),
                pad=False,
            )
        if block.trim_top:
            while expected and not any(segment.text.strip() for segment in expected[0]):
                del expected[0]
        assert block.lines == [*expected, []]
