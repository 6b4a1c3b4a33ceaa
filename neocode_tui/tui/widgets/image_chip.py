"""An image on screen: a chip with its name, dimensions and size, and a thumbnail drawn
with half blocks (two pixels to a cell, in the terminal's own colours).

Kitty and Sixel graphics are not used: Textual composes every frame from cells, so a
graphics escape written past it would be overwritten (or left behind) on the next
repaint and scroll, and ``neocode serve``'s browser terminal would show nothing. Half
blocks work in every colour terminal, in snapshots, and in the browser alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from neocode_tui.terminal_text import visible

if TYPE_CHECKING:  # the app's first frame comes before pydantic loads
    from neocode_tui.chat import Image
    from neocode_tui.tui.attachments import Attachment


def chip(image: Image, accent: str = "bold") -> Text:
    """One line: ``▣ shot.png · 1600×900 · 45 KB``."""
    from neocode_tui.agent.images import describe

    return Text.assemble(("▣ ", accent), (visible(describe(image)), ""))


def thumbnail(attachment: Attachment) -> Text:
    rows = [Text.assemble(*[("▀", f"{_hex(top)} on {_hex(bottom)}") for top, bottom in row])
            for row in attachment.thumbnail]
    return Text("\n").join(rows)


def _hex(pixel: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*pixel)


def attachment_lines(attachments: list[Attachment], accent: str = "bold") -> Text:
    """Each attachment as its thumbnail (where there is one) beside its chip."""
    lines: list[Text] = []
    for attachment in attachments:
        thumb = thumbnail(attachment).split("\n") if attachment.thumbnail else [Text()]
        width = max((len(line) for line in thumb), default=0)
        for number, line in enumerate(thumb):
            line = line.copy()
            line.pad_right(width - len(line))
            if number == 0:
                line.append(" " if width else "")
                line.append_text(chip(attachment.image, accent))
            lines.append(line)
    return Text("\n").join(lines)


class ImageChips(Static):
    """The images that go with the next prompt, above the input; hidden when there is none."""

    DEFAULT_CSS = """
    ImageChips {
        display: none;
        height: auto;
        max-height: 12;
        padding: 0 1;
    }
    ImageChips.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.attachments: list[Attachment] = []

    def add(self, attachments: list[Attachment]) -> None:
        known = {attachment.image.sha256 for attachment in self.attachments}
        self.attachments += [a for a in attachments if a.image.sha256 not in known]
        self._show()

    def drop_last(self) -> bool:
        if not self.attachments:
            return False
        self.attachments.pop()
        self._show()
        return True

    def take_all(self) -> list[Attachment]:
        taken, self.attachments = self.attachments, []
        self._show()
        return taken

    def _show(self) -> None:
        self.set_class(bool(self.attachments), "-shown")
        if not self.attachments:
            self.update("")
            return
        text = attachment_lines(self.attachments)
        text.append("\nsent with the next prompt · Backspace on an empty prompt removes the last",
                    style="dim italic")
        self.update(text)
