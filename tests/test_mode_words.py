"""What each approval mode does is said in the same words wherever a user reads it: the
notice when the mode changes, ``neocode --help``, and the guide's permissions page."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.cli import build_parser
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.vocabulary import APPROVAL_MODES, MODE_DESCRIPTIONS
from tests.support.waits import screen_shows

PERMISSIONS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "permissions.md"


def words(text: str) -> str:
    """``text`` with every run of whitespace one space, as wrapped text reads."""
    return " ".join(text.split())


def test_the_help_and_the_docs_describe_every_mode_in_the_same_words() -> None:
    help_text = words(build_parser().format_help())
    page = PERMISSIONS_PAGE.read_text()
    for mode in APPROVAL_MODES:
        assert f"{mode}: {MODE_DESCRIPTIONS[mode]}" in help_text
        assert f"- `{mode}`: {MODE_DESCRIPTIONS[mode]}\n" in page


def test_the_sandbox_is_in_the_description_of_auto_edit() -> None:
    """With the sandbox a command runs in auto-edit; only one outside it asks."""
    assert "sandboxed commands run" in MODE_DESCRIPTIONS["auto-edit"]
    assert "outside the sandbox ask" in MODE_DESCRIPTIONS["auto-edit"]


async def test_shift_tab_says_what_the_new_mode_does(tmp_path: Path) -> None:
    app = NeoCodeApp(Settings(provider="scripted"), workspace=tmp_path, remember_theme=False)
    async with app.run_test(size=(160, 32)) as pilot:
        for mode in ("auto-edit", "plan"):
            await pilot.press("shift+tab")
            await screen_shows(app, pilot, f"mode: {mode} ({MODE_DESCRIPTIONS[mode]})")


def test_plan_mode_says_the_plan_is_approved_not_that_the_mode_is_left() -> None:
    """A plan is carried out once the user approves it (the hand-off picks the next mode):
    the user never has to leave plan mode by hand."""
    assert "until you approve it" in MODE_DESCRIPTIONS["plan"]
