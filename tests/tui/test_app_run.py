"""``neocode`` itself: flags over settings, clear refusals before any screen is drawn."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.cli import build_parser
from neocode_tui.config import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.cli.app import run_app
from neocode_tui.cli.options import load_from_args
from neocode_tui.tui.scenarios import SIZE


def test_flags_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEOCODE_MODEL", "from-env")
    monkeypatch.setenv("NEOCODE_APPROVAL", "full-auto")
    args = build_parser().parse_args(["--model", "from-flag", "--theme", "neocode-light"])
    settings = load_from_args(args, Path.cwd()).settings
    assert settings.model == "from-flag"
    assert settings.theme == "neocode-light"
    assert settings.approval == "full-auto"  # not given as a flag: the environment's


def test_resuming_a_session_that_does_not_exist_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(build_parser().parse_args(["--resume", "nope"])) == 2
    assert "no saved session with id 'nope'" in capsys.readouterr().err


def test_continue_with_no_session_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(build_parser().parse_args(["--continue"])) == 2
    assert "no saved session for" in capsys.readouterr().err


async def test_a_broken_theme_file_is_reported_and_the_app_starts(tmp_path: Path) -> None:
    themes = tmp_path / "config" / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "#112233"\ncolour = "red"\n')
    (themes / "ours.toml").write_text('name = "ours"\nprimary = "#445566"\n')
    app = NeoCodeApp(Settings(provider="scripted", theme="ours"), workspace=tmp_path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.conversation.settled()
        assert app.theme == "ours"  # a user's theme file, by name
        assert "mine" not in app.available_themes
        text = app.export_screenshot()
        assert "mine.toml:&#160;unknown&#160;keys&#160;colour" in text
