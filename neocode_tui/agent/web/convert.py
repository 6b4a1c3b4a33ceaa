"""The parts of ``web_page.html_to_markdown`` that keep a hostile page's conversion bounded:
in time (a clock each step reads, the parse fed a piece at a time) and in depth (the
converter recurses once per level, so nesting past a limit is flattened to its text).
Imported only when a page is converted: it needs BeautifulSoup and markdownify.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bs4 import BeautifulSoup, Tag
from bs4.builder import ParserRejectedMarkup
from bs4.builder._htmlparser import BeautifulSoupHTMLParser, HTMLParserTreeBuilder
from markdownify import MarkdownConverter

PARSE_STEP = 16_384
"""Characters html.parser is fed between looks at the clock."""
FIRST_TAGS = 200
"""Tags converted whatever the clock says: the page's first words, at a cost of milliseconds."""
PARSE_SHARE = 0.6
"""Of the time, what parsing may take: the steps after it cost less than it per element
(taking out the unwanted, flattening), and converting stops at the deadline itself."""


class Clock:
    """The conversion's deadline; ``late`` once a step stopped at its share of the time."""

    def __init__(self, deadline: float | None) -> None:
        self.start = time.monotonic()
        self.deadline = deadline
        self.late = False

    def passed(self, share: float = 1.0) -> bool:
        """Whether ``share`` of the time to the deadline has gone (the step asking stops)."""
        if self.deadline is None:
            return False
        if time.monotonic() > self.start + share * (self.deadline - self.start):
            self.late = True
            return True
        return False


class PacedBuilder(HTMLParserTreeBuilder):
    """html.parser fed ``PARSE_STEP`` characters at a time, ending with the tree so far
    once its share of the time has gone (after the first step, whatever the time): the
    tree is built as it goes, so that is the page's start."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def feed(self, markup: str | bytes,
             _parser_class: type[BeautifulSoupHTMLParser] = BeautifulSoupHTMLParser) -> None:
        assert isinstance(markup, str) and self.soup is not None  # bs4 decodes it first
        args, kwargs = self.parser_args
        parser = _parser_class(self.soup, *args, **kwargs)
        try:
            for start in range(0, len(markup), PARSE_STEP):
                if start and self.clock.passed(PARSE_SHARE):
                    break
                parser.feed(markup[start:start + PARSE_STEP])
            parser.close()
        except AssertionError as exc:  # html.parser's word for markup it cannot go on with
            raise ParserRejectedMarkup(exc) from None
        parser.already_closed_empty_element = []


def prune(soup: BeautifulSoup, unwanted: Callable[[Tag, bool], bool], content: tuple[str, ...]) -> None:
    """Each element ``unwanted`` says so of (told whether it is inside one of ``content``)
    taken out with all it holds. Walked without recursion, each element once: a search
    from every element (``find_parent``, even ``Tag.decomposed``) costs its depth or its
    subtree, which a page nested a hundred thousand deep makes hours."""
    stack: list[tuple[Tag, bool]] = [(soup, False)]
    while stack:
        tag, inside = stack.pop()
        for child in [child for child in tag.contents if isinstance(child, Tag)]:
            if unwanted(child, inside):
                child.decompose()
            else:
                stack.append((child, inside or child.name in content))


def flatten(soup: BeautifulSoup, depth: int) -> bool:
    """Each tag ``depth`` deep holds only its text from then on; whether any had tags in it.
    Walked without recursion, each element once."""
    flattened = False
    stack: list[tuple[Tag, int]] = [(soup, 0)]
    while stack:
        tag, level = stack.pop()
        children = [child for child in tag.contents if isinstance(child, Tag)]
        if level < depth:
            stack.extend((child, level + 1) for child in children)
        elif children:
            text = tag.get_text(" ")
            tag.clear()
            tag.append(text)
            flattened = True
    return flattened


class Converter(MarkdownConverter):
    """markdownify's converter that converts nothing more once the clock has passed,
    past its first ``FIRST_TAGS`` tags."""

    def __init__(self, clock: Clock, **options: Any) -> None:
        super().__init__(**options)
        self.clock = clock
        self.converted = 0

    def process_tag(self, node: Any, parent_tags: set[str] | None = None) -> str:
        self.converted += 1
        if self.converted > FIRST_TAGS and self.clock.passed():
            return ""
        # markdownify's stub leaves out the method every element goes through
        return str(super().process_tag(node, parent_tags=parent_tags))  # type: ignore[misc]
