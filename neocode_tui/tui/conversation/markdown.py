"""Rich's Markdown, minus the set-up it repeats for every block it draws.

Rich builds a new markdown-it parser for every ``Markdown`` object and looks its Pygments
lexer up by name for every code block; drawing an open answer's tail once per frame made
that set-up most of the frame. One parser and a cache of lexers serve every block here;
what is drawn is exactly what Rich draws.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePath

from markdown_it import MarkdownIt
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown

from neocode_tui.tui.conversation.code_syntax import CodeSyntax

PARSER = MarkdownIt().enable("strikethrough").enable("table")
"""The block grammar and parser Rich's Markdown uses (one, shared)."""


@lru_cache(maxsize=128)
def lexer_named(name: str) -> Lexer:
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=4)


COMMON_LANGUAGES = ("python", "bash", "json", "diff")
"""The lexers built ahead (``warm_lexers``): building Python's compiles its patterns, some
25 ms the first code block of a session would wait for, mid-stream."""


def warm_lexers() -> None:
    """Builds the common lexers (in a thread, after the first frame)."""
    for name in COMMON_LANGUAGES:
        lexer_named(name)


@lru_cache(maxsize=128)
def _lexer_for_suffix(suffix: str) -> Lexer:
    try:
        return get_lexer_for_filename(f"file{suffix}", stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return lexer_named("text")


def lexer_for_path(path: str) -> Lexer:
    """The lexer for a file name (by its suffix), plain text when unknown."""
    return _lexer_for_suffix(PurePath(path).suffix.lower())


class _CodeBlock(CodeBlock):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield CodeSyntax(code, lexer_named(self.lexer_name), theme=self.theme, word_wrap=True, padding=1)


class MarkdownText(Markdown):
    elements = {**Markdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock}

    def __init__(self, markup: str, code_theme: str) -> None:  # Rich 15's __init__, sharing the parser
        self.markup = markup
        self.parsed = PARSER.parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
