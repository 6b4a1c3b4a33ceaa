"""The app as the Pilot tests start it: a scripted model, a demo screen, or the user's own
profiles; never the user's theme."""

from __future__ import annotations

import os
from pathlib import Path

from neocode_tui.providers.scripted import ScriptedProvider
from neocode_tui.settings.load import Profiles, load_settings
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import StepProvider
from tests.support.screens import SCREENS


def scenario_app(name: str, tmp_path: Path) -> NeoCodeApp:
    """The app ready to play the screen ``name`` of ``SCREENS``, its files under ``tmp_path``."""
    scenario = SCREENS[name]
    return scenario.build_app(scenario.prepare(tmp_path))


def scripted_app(tmp_path: Path, turns, **settings) -> NeoCodeApp:
    """The app in a fresh project, its model answering with ``turns`` one step at a time
    (a ``Driver`` releases them)."""
    workspace = tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    provider = StepProvider(ScriptedProvider(turns))
    return NeoCodeApp(
        Settings(provider="scripted", **settings), provider, workspace, remember_theme=False
    )


def app_with_profiles(tmp_path: Path, config_toml: str) -> NeoCodeApp:
    """The app in a fresh project, the user's ``config.toml`` holding ``config_toml``."""
    config = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(config_toml)
    workspace = tmp_path / "project"
    workspace.mkdir()
    loaded = load_settings(workspace)
    profiles = Profiles(
        loaded.profiles, lambda name: load_settings(workspace, profile=name, profile_wins=True).settings
    )
    return NeoCodeApp(loaded.settings, None, workspace, remember_theme=False, profiles=profiles)
