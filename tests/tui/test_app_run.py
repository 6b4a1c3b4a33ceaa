"""``neocode`` itself: flags over settings, clear refusals before any screen is drawn."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.cli import build_parser
from neocode_tui.cli.app import run_app
from neocode_tui.cli.options import load_from_args
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.waits import screen_shows, started, wait_until


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
        await started(app, pilot)
        assert app.theme == "ours"  # a user's theme file, by name
        assert "mine" not in app.available_themes
        await screen_shows(app, pilot, "mine.toml: unknown keys colour")


@pytest.mark.parametrize(
    ("argv", "rest", "prompt"),
    [
        (["fix the failing test"], [], "fix the failing test"),
        (["--model", "m", "fix it", "--approval", "ask"], ["--model", "m", "--approval", "ask"], "fix it"),
        (["--resume", "20260101-000000-abcdef", "go on"], ["--resume", "20260101-000000-abcdef"], "go on"),
        (["demo", "fence"], ["demo", "fence"], None),
        (["-p", "headless prompt"], ["-p", "headless prompt"], None),
        (["--", "-starts with a dash"], ["--", "-starts with a dash"], None),
    ],
)
def test_a_bare_prompt_opens_the_app_with_it(argv: list[str], rest: list[str], prompt: str | None) -> None:
    from neocode_tui.cli.parser import split_initial_prompt

    assert split_initial_prompt(argv) == (rest, prompt)


async def test_the_app_sends_its_initial_prompt_and_the_exit_line_says_how_to_continue(
    tmp_path: Path,
) -> None:
    from neocode_tui.cli.app import exit_line
    from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply

    provider = ScriptedProvider([scripted_reply("On it.")])
    app = NeoCodeApp(Settings(provider="scripted"), provider, tmp_path, initial_prompt="fix the test",
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: not app.working and app.session.messages, pause=pilot.pause,
                         what="the initial prompt's answer")
        assert [m.content for m in app.session.messages] == ["fix the test", "On it."]
    assert exit_line(app) == (
        f"neocode: session {app.session.id} saved; continue it with: neocode --continue"
    )


def test_an_app_that_ended_before_its_settings_loaded_says_so_without_loading_them(tmp_path: Path) -> None:
    """Ended before its first frame (a signal): the exit line neither loads the settings nor
    makes a session to report on."""
    from neocode_tui.cli.app import exit_line
    from neocode_tui.errors import SettingsError
    from neocode_tui.tui.starting import Loaded, Starting

    loads: list[str] = []

    def load() -> Loaded:
        loads.append("load")
        raise SettingsError(["the environment (NEOCODE_APPROVAL): 'sometimes' is not a mode"])

    app = NeoCodeApp(workspace=tmp_path, starting=Starting(load))

    assert exit_line(app) == "neocode: nothing was said, so no session was saved"
    assert loads == [] and app.made_session is None


async def test_quitting_mid_turn_says_the_turn_was_interrupted(tmp_path: Path) -> None:
    from neocode_tui.cli.app import exit_line
    from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
    from neocode_tui.tui.scenarios import StepProvider

    provider = StepProvider(ScriptedProvider([scripted_reply("A long answer " * 20, delta=3)]))
    app = NeoCodeApp(Settings(provider="scripted"), provider, tmp_path, initial_prompt="go",
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        provider.allow(3)
        await wait_until(lambda: app.working and provider.held, pause=pilot.pause,  # the fourth held
                         what="three deltas shown")
    assert "the running turn was interrupted; session" in exit_line(app)
    assert app.session.messages[-1].content.startswith("A long")


def test_every_flag_that_takes_a_value_keeps_it() -> None:
    from neocode_tui.cli.parser import split_initial_prompt

    argv = ["--sandbox", "off", "--provider", "openai", "--max-turns", "3", "--theme", "x", "do it"]
    assert split_initial_prompt(argv) == (argv[:-1], "do it")


def test_a_folder_with_its_own_servers_or_hooks_is_asked_about(tmp_path: Path) -> None:
    import json

    from neocode_tui.cli.app import workspace_programs

    assert workspace_programs(tmp_path) == []
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"pwn": {"command": "sh"}}}))
    (tmp_path / ".neocode").mkdir()
    hook = {"hooks": [{"type": "command", "command": "touch pwned"}]}
    (tmp_path / ".neocode" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [hook]}}))
    assert workspace_programs(tmp_path) == [".mcp.json servers: pwn", ".neocode/hooks.json hooks: Stop"]
