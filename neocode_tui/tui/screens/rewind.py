"""The screens of /undo, /rewind and /diff: pick a prompt, see the diff, say yes once.

They only show and ask; the session does the work (``AgentSession.undo``, ``rewind``,
``diff``), so headless and ACP front ends can offer the same.
"""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from neocode_tui.agent.restore import UNTRACKED, Checkpoint, UndoPreview
from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.diff import diff_of
from neocode_tui.tui.conversation.palette import Palette
from neocode_tui.tui.screens.dialog import dialog_css

RestoreChoice = Literal["files", "conversation", "both"]



def _restore_css(screen: str) -> str:
    return dialog_css(screen) + f"""
    {screen} #body {{ height: auto; max-height: 20; background: $panel; padding: 0 1; }}
    {screen} #note {{ margin-top: 1; color: $warning; }}
    {screen} #git {{ color: $text-muted; }}
    {screen} .refused {{ color: $error; }}
"""


def _first_line(text: str, width: int = 70) -> str:
    text = visible(text).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def _untracked_note(preview: UndoPreview) -> str:
    ran = preview.commands
    note = UNTRACKED
    if ran:
        note = f"{ran} bash command{'s' if ran != 1 else ''} ran here. " + note
    if preview.git_status is not None:
        note += " git status --short now shows:"
    return note


class RestoreScreen(ModalScreen[RestoreChoice | None]):
    """The diff of what would be written back, and one question.

    ``kind="undo"``: y writes the files back. ``kind="rewind"``: c takes back the
    conversation only, f the conversation and the files.
    """

    DEFAULT_CSS = _restore_css("RestoreScreen")

    BINDINGS = [
        Binding("y", "choose('files')", "Undo", show=False),
        Binding("c", "choose('conversation')", "Conversation only", show=False),
        Binding("f", "choose('both')", "Conversation and files", show=False),
        Binding("n,escape", "choose(None)", "Cancel", show=False),
    ]

    def __init__(self, preview: UndoPreview, kind: Literal["undo", "rewind"]) -> None:
        super().__init__()
        self.preview = preview
        self.kind = kind

    def compose(self) -> ComposeResult:
        preview, prompt = self.preview, _first_line(self.preview.checkpoint.prompt)
        title = (
            Content.assemble("Undo the file changes of ", (prompt, "bold $accent"), "?")
            if self.kind == "undo"
            else Content.assemble("Rewind to before ", (prompt, "bold $accent"), "?")
        )
        with Vertical(id="dialog"):
            yield Static(title, id="title")
            with VerticalScroll(id="body"):
                if preview.diff:
                    palette = Palette.from_variables(self.app.theme_variables, self.app.current_theme.dark)
                    yield Static(diff_of(preview.diff, palette), id="diff")
                elif not preview.refused:
                    yield Static(Content.styled("The files are already as they were.", "dim"))
            for reason in preview.refused:
                yield Static(Content(reason), classes="refused")
            yield Static(_untracked_note(preview), id="note")
            if preview.git_status:
                yield Static(Content(visible(preview.git_status.rstrip())), id="git")
            yield Static(Content.from_markup(self._keys()), id="keys")

    def _keys(self) -> str:
        if self.kind == "undo":
            return "[b]y[/b] write these files back   [b]n[/b]/[b]esc[/b] keep them"
        if self.preview.restores:
            return (
                "[b]c[/b] conversation only   [b]f[/b] conversation and files   "
                "[b]esc[/b] cancel"
            )
        return "[b]c[/b] rewind the conversation   [b]esc[/b] cancel"

    def on_mount(self) -> None:
        self.query_one("#body", VerticalScroll).focus()  # arrows and PgUp/PgDn scroll a long diff

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "choose" or parameters[0] is None:
            return True
        if self.kind == "undo":
            return parameters[0] == "files"
        return parameters[0] == "conversation" or bool(self.preview.restores)

    def action_choose(self, choice: RestoreChoice | None) -> None:
        self.dismiss(choice)


class RewindScreen(ModalScreen[int | None]):
    """The conversation's prompts, latest first: Enter picks the one to go back before."""

    DEFAULT_CSS = _restore_css("RewindScreen") + """
    RewindScreen #prompts { height: auto; max-height: 16; border: none; background: $panel; }
    """

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel", show=False)]

    def __init__(self, points: list[Checkpoint], git_status: str | None) -> None:
        super().__init__()
        self.points = list(reversed(points))
        self.git_status = git_status

    def compose(self) -> ComposeResult:
        options = []
        for point in self.points:
            changed = len(point.files)
            detail = f"{changed} file{'s' if changed != 1 else ''} changed" if changed else "no file changes"
            if point.commands:
                detail += f", {point.commands} bash"
            if point.undone:
                detail += ", undone"
            options.append(
                Option(Content.assemble(
                    (f"{point.number:>3}  ", "dim"), _first_line(point.prompt, 60),
                    (f"  · {detail}", "dim"),
                ))
            )
        with Vertical(id="dialog"):
            yield Static("Rewind the conversation to before which prompt?", id="title")
            yield OptionList(*options, id="prompts")
            note = UNTRACKED
            if self.git_status is not None:
                note += " git status --short now shows:"
            yield Static(note, id="note")
            if self.git_status:
                yield Static(Content(visible(self.git_status.rstrip())), id="git")
            yield Static(
                Content.from_markup(
                    "[b]↑↓[/b] choose   [b]enter[/b] see what it restores   [b]esc[/b] cancel"
                ),
                id="keys",
            )

    def on_mount(self) -> None:
        self.query_one("#prompts", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.points[event.option_index].number)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class DiffScreen(ModalScreen[None]):
    """A scrollable, coloured diff; Esc or q closes it."""

    DEFAULT_CSS = _restore_css("DiffScreen") + """
    DiffScreen #body { max-height: 100%; height: 1fr; }
    DiffScreen > #dialog { height: 90%; }
    """

    BINDINGS = [Binding("escape,q", "dismiss_none", "Close", show=False)]

    def __init__(self, title: str, diff: str) -> None:
        super().__init__()
        self.title_text = title
        self.diff = diff

    def compose(self) -> ComposeResult:
        palette = Palette.from_variables(self.app.theme_variables, self.app.current_theme.dark)
        with Vertical(id="dialog"):
            yield Static(self.title_text, id="title")
            with VerticalScroll(id="body"):
                yield Static(diff_of(self.diff, palette), id="diff")
            yield Static(
                Content.from_markup("[b]↑↓ PgUp PgDn[/b] scroll   [b]esc[/b]/[b]q[/b] close"), id="keys"
            )

    def on_mount(self) -> None:
        self.query_one("#body", VerticalScroll).focus()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
