"""Code in answers is drawn with each highlighted line laid out once and reused: every stage
of a growing fence must still draw exactly what Rich's own ``Syntax`` draws from scratch,
also when a later line recolours earlier ones."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.syntax import Syntax

from neocode_tui.tui.conversation.code_syntax import CodeSyntax
from neocode_tui.tui.conversation.markdown import lexer_named

CONSOLE = Console(file=io.StringIO(), width=200, color_system="truecolor")

RECOLOURING = {
    # Each code has a line that changes how earlier lines are coloured once it arrives.
    "python": 'x = 1\ns = """an unclosed string\nstill the string, def f(): pass\n"""\ny = f(x)  # done\n',
    "java": "int a = 1;\n/* a block comment\nint b = 2; still comment\n*/\nint c = 3;\n",
    "css": "a { color: red; }\n/* a comment\nb { x: y; }\n*/\n",
    "html": "<p>a</p>\n<!-- c\n<b>x</b>\n-->\n",
    "javascript": "let a = `template\n${a} line two\nend`;\nconst b = 'q';\n",
    "markdown": "Title\n=====\n\n```py\ncode\n```\n",
}


PIECES = ["a", " ", "\t", "\n", '"', "'", '"""', "/*", "*/", "#", "`", "漢", "x" * 30]


def lines(syntax: Syntax, width: int) -> list[list[object]]:
    return [list(line) for line in CONSOLE.render_lines(syntax, CONSOLE.options.update(width=width, height=None))]


def both(code: str, language: str, width: int, padding: tuple[int, int, int, int]) -> None:
    lexer = lexer_named(language)
    ours = CodeSyntax(code, lexer, theme="monokai", word_wrap=True, padding=padding)
    rich = Syntax(code, lexer, theme="monokai", word_wrap=True, padding=padding)
    assert lines(ours, width) == lines(rich, width), (language, width, code)


def test_every_stage_of_a_recolouring_fence_draws_what_rich_draws() -> None:
    for language, code in RECOLOURING.items():
        for width in (12, 40, 120):
            for end in range(len(code) + 1):  # the open fence, frame after frame
                both(code[:end], language, width, (1, 1, 0, 1))
            both(code, language, width, (0, 1, 1, 1))  # the same lines settled, as the last chunk


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.sampled_from(["python", "java", "css", "html", "text"]),
    st.integers(8, 90),
    st.integers(1, 7),
)
def test_any_code_streamed_in_any_steps_draws_what_rich_draws(code: str, language: str, width: int, step: int) -> None:
    for end in [*range(0, len(code), step), len(code)]:
        both(code[:end], language, width, (1, 1, 1, 1))
