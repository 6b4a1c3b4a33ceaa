"""The user's config.toml: every setting by name, profiles, and where it sits among the
other sources (flags > environment > trusted workspace > config.toml > defaults)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from neocode_tui.errors import SettingsError
from neocode_tui.settings.load import load_settings
from neocode_tui.trust import trust

KEY = "sk-from-config-file-SECRET-4242"
CONFIG = f"""\
model = "file-model"
approval = "auto-edit"
max_turns = 7
openai_api_key = "{KEY}"
openai_compat = {{ tool_choice = "required", stream_options = false }}

[profiles.local]
provider = "openai"
base_url = "http://127.0.0.1:8080/v1"
model = "qwen"

[profiles.claude]
provider = "anthropic"
model = "claude-haiku"
"""


def write_config(text: str) -> Path:
    path = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def test_the_file_sets_every_kind_of_setting_by_its_name(workspace: Path) -> None:
    path = write_config(CONFIG)

    loaded = load_settings(workspace)

    settings = loaded.settings
    assert (settings.model, settings.approval, settings.max_turns) == ("file-model", "auto-edit", 7)
    assert settings.resolved_provider == "openai" and settings.api_key == KEY
    assert settings.openai_compat.tool_choice == "required"
    assert settings.openai_compat.stream_options is False
    assert loaded.origin("model").kind == "config" and loaded.origin("model").where == str(path)
    assert loaded.origin("theme").kind == "default"
    assert loaded.profile is None and loaded.profiles == ["claude", "local"]


def test_compat_options_may_also_be_the_flag_s_text(workspace: Path) -> None:
    write_config('openai_compat = "tool_choice=required,system_role=developer"\n')
    compat = load_settings(workspace).settings.openai_compat
    assert (compat.tool_choice, compat.system_role) == ("required", "developer")


def test_environment_and_trusted_workspace_win_over_the_file(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(CONFIG)
    (workspace / ".env").write_text("NEOCODE_APPROVAL=full-auto\nNEOCODE_MAX_TURNS=9\n")
    trust(workspace)
    monkeypatch.setenv("NEOCODE_MAX_TURNS", "11")

    loaded = load_settings(workspace)

    assert loaded.settings.approval == "full-auto"  # workspace over file
    assert loaded.settings.max_turns == 11  # environment over workspace over file
    assert loaded.settings.model == "file-model"  # set only in the file
    assert loaded.origin("approval").kind == "workspace"
    assert loaded.origin("max_turns").kind == "environment"


def test_an_untrusted_workspace_cannot_loosen_what_the_file_says(workspace: Path) -> None:
    write_config(CONFIG)
    (workspace / ".env").write_text("NEOCODE_APPROVAL=full-auto\nNEOCODE_MODEL=repo-model\n")

    loaded = load_settings(workspace)

    assert loaded.settings.approval == "auto-edit"  # the file's, not the repository's
    assert loaded.settings.model == "repo-model"  # harmless: the workspace is above the file
    assert loaded.ignored_names == ["NEOCODE_APPROVAL"]


def test_flags_win_over_the_file(workspace: Path) -> None:
    write_config(CONFIG)
    loaded = load_settings(workspace, {"approval": "ask", "max_turns": 3})
    assert (loaded.settings.approval, loaded.settings.max_turns) == ("ask", 3)
    assert loaded.origin("approval").where == "--approval"


def test_the_file_s_own_profile_sits_with_the_file(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config('profile = "local"\n' + CONFIG)

    loaded = load_settings(workspace)
    assert loaded.profile == "local" and loaded.profile_from.endswith("config.toml")
    assert loaded.settings.model == "qwen"  # the profile over the file's top level
    assert loaded.settings.resolved_base_url == "http://127.0.0.1:8080/v1"
    assert loaded.origin("model").kind == "profile" and loaded.origin("model").where == "local"

    monkeypatch.setenv("NEOCODE_MODEL", "env-model")
    assert load_settings(workspace).settings.model == "env-model"  # the environment over it


def test_a_profile_picked_with_the_flag_wins_over_the_environment_but_not_other_flags(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config('profile = "local"\n' + CONFIG)
    monkeypatch.setenv("NEOCODE_MODEL", "env-model")
    (workspace / ".env").write_text("NEOCODE_PROVIDER=openai\n")
    trust(workspace)

    loaded = load_settings(workspace, {"model": None}, profile="claude")
    assert loaded.profile == "claude" and loaded.profile_from == "--profile"
    assert loaded.settings.resolved_provider == "anthropic"  # over the trusted workspace
    assert loaded.settings.model == "claude-haiku"  # over the environment

    flagged = load_settings(workspace, {"model": "flag-model"}, profile="claude")
    assert flagged.settings.model == "flag-model"


def test_a_profile_picked_in_the_app_wins_over_the_start_flags(workspace: Path) -> None:
    write_config(CONFIG)
    loaded = load_settings(
        workspace, {"model": "flag-model", "approval": "ask"}, profile="local", profile_wins=True
    )
    assert loaded.settings.model == "qwen"
    assert loaded.settings.approval == "ask"  # the profile does not set it: the flag stays
    assert loaded.profile_from == "/model"


def test_malformed_toml_is_reported_with_the_file_and_line(workspace: Path) -> None:
    path = write_config('model = "a"\napproval = \n')
    with pytest.raises(SettingsError) as caught:
        load_settings(workspace)
    assert caught.value.problems == [f"{path}: not valid TOML: Invalid value (at line 2, column 12)"]


def test_unknown_keys_and_profiles_are_reported_by_name_all_at_once(workspace: Path) -> None:
    path = write_config(
        'aproval = "ask"\nprofile = "nope"\n[profiles.local]\nmodle = "q"\n[profiles.bad]\n'
        'max_turns = 0\n'
    )
    with pytest.raises(SettingsError) as caught:
        load_settings(workspace)
    assert caught.value.problems == [
        f"{path}: unknown setting 'aproval' (did you mean 'approval'?)",
        f"{path} [profiles.local]: unknown setting 'modle' (did you mean 'model'?)",
        f"profile = 'nope' in {path}: there is no profile 'nope' in {path} (profiles: bad, "
        "local); add a [profiles.nope] table to it",
    ]
    with pytest.raises(SettingsError, match=r"max_turns in \[profiles.bad\] of .*config.toml: 0: "
                       "Input should be greater than or equal to 1"):
        write_config("[profiles.bad]\nmax_turns = 0\n")
        load_settings(workspace, profile="bad")


def test_a_bad_value_names_its_key_and_file_but_never_shows_a_key(workspace: Path) -> None:
    path = write_config(f'approval = "yolo"\nanthropic_api_key = ["{KEY}"]\n')
    with pytest.raises(SettingsError) as caught:
        load_settings(workspace)
    text = "\n".join(caught.value.problems)
    assert f"approval in {path}: 'yolo': Input should be 'ask'" in text
    assert f"anthropic_api_key in {path}:: Input should be a valid string" in text
    assert KEY not in text and "sk-from" not in text


def test_a_config_path_that_is_not_a_file_is_refused(workspace: Path) -> None:
    (Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml").mkdir(parents=True)
    with pytest.raises(SettingsError, match="config.toml is not a regular file"):
        load_settings(workspace)
