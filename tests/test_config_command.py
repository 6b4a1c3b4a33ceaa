"""``neocode config`` as a user runs it: a real subprocess in a real folder, with a real
config.toml, environment and workspace .env."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.trust import trust
from tests.support.waits import PATIENCE

NEOCODE = str(Path(sys.executable).parent / "neocode")
ENV_KEY = "sk-proj-from-the-environment-SECRET-1111"
FILE_KEY = "sk-ant-from-the-config-file-SECRET-2222"
CONFIG = f"""\
approval = "auto-edit"
max_turns = 7
anthropic_api_key = "{FILE_KEY}"
profile = "local"

[profiles.local]
provider = "openai"
base_url = "http://127.0.0.1:8080/v1"
model = "qwen"
"""


def run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NEOCODE, "config", *args], cwd=cwd, env={**os.environ, **env}, capture_output=True,
        text=True, timeout=PATIENCE, stdin=subprocess.DEVNULL, check=False,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    config = Path(os.environ["NEOCODE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.toml").write_text(CONFIG)
    (project / ".env").write_text("NEOCODE_SANDBOX=off\nNEOCODE_MODEL=repo-model\nNEOCODE_THEME=x\n")
    return project


def test_json_says_where_each_setting_came_from(folder: Path) -> None:
    done = run(folder, "--json", "--max-turns", "4", OPENAI_API_KEY=ENV_KEY, NEOCODE_THEME="env-theme")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = report["settings"]
    config = str(Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml")
    assert rows["max_turns"] == {"value": 4, "source": "flag", "where": "--max-turns", "ignored": []}
    assert rows["theme"]["source"] == "environment" and rows["theme"]["where"] == "NEOCODE_THEME"
    assert rows["model"] == {"value": "repo-model", "source": "workspace",
                             "where": str(folder / ".env"), "ignored": []}
    assert rows["sandbox"] == {"value": None, "source": "default", "where": "",
                               "ignored": ["NEOCODE_SANDBOX"]}
    assert rows["approval"]["source"] == "config" and rows["approval"]["where"] == config
    assert rows["provider"] == {"value": "openai", "source": "profile", "where": "local", "ignored": []}
    assert rows["openai_api_key"]["value"] == "set" and rows["anthropic_api_key"]["value"] == "set"
    assert rows["openai_base_url"]["value"] is None
    assert report["in_use"] == {"provider": "openai", "model": "repo-model",
                                "base_url": "http://127.0.0.1:8080/v1", "approval": "auto-edit"}
    assert report["profile"] == {"name": "local", "picked_by": config, "available": ["local"]}
    assert report["trust"]["trusted"] is False
    assert "NEOCODE_SANDBOX in" in report["trust"]["ignored"][0]
    assert set(report["sandbox"]) == {"mode", "network", "unavailable"}
    assert report["files"]["config"] == {"path": config, "exists": True}
    assert report["files"]["workspace_env"] == {"path": str(folder / ".env"), "exists": True}
    assert report["files"]["trusted_folders"]["exists"] is False


def test_text_shows_sources_trust_and_files_but_never_a_key(folder: Path) -> None:
    trust(folder)

    done = run(folder, "--profile", "local", OPENAI_API_KEY=ENV_KEY)

    assert done.returncode == 0, done.stderr
    out = done.stdout
    for secret in (ENV_KEY, FILE_KEY):
        assert secret not in out + done.stderr
        assert secret[:12] not in out and secret[-8:] not in out  # no prefix, no tail
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert lines["openai_api_key"].split()[1:] == ["set", "environment", "OPENAI_API_KEY"]
    assert lines["anthropic_api_key"].split()[1:] == ["set", "config.toml"]
    assert "profile local (config.toml)" in lines["provider"]
    assert "workspace .env (trusted folder)" in lines["sandbox"]
    assert "Profile:  local (picked by --profile); profiles: local" in out
    assert "Folder:   trusted (its .env applies)" in out
    assert "Sandbox:  off (commands run unconfined)" in out
    assert f"config.toml         {Path(os.environ['NEOCODE_CONFIG_DIR']) / 'config.toml'}\n" in out


def test_no_key_anywhere_reads_not_set(tmp_path: Path) -> None:
    done = run(tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["settings"]["openai_api_key"]["value"] == "not set"
    assert report["in_use"]["provider"] == "scripted"
    assert report["files"]["config"]["exists"] is False


def test_a_malformed_file_is_a_message_with_its_line_not_a_traceback(folder: Path) -> None:
    config = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    config.write_text(f'openai_api_key = "{ENV_KEY}"\n[profiles.local\nmodel = "q"\n')

    done = run(folder)

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"neocode: {config}: not valid TOML: Expected ']' at the end of a table declaration "
        "(at line 2, column 16)\n"
    )


def test_an_unknown_profile_is_named_with_the_ones_there_are(folder: Path) -> None:
    done = run(folder, "--profile", "remote")
    assert done.returncode == 2
    assert "there is no profile 'remote'" in done.stderr and "(profiles: local)" in done.stderr
    assert "Traceback" not in done.stderr


def test_base_urls_are_shown_without_their_credentials(folder: Path) -> None:
    url = "https://alice:pw-Lz7Rk2Xq9@proxy.example/v1?api-version=2024&api_key=q-key-4f8a2b9c"
    shown = "https://[redacted]@proxy.example/v1?api-version=2024&api_key=[redacted]"
    text = run(folder, "--base-url", url, OPENAI_BASE_URL=url)
    report = json.loads(run(folder, "--json", "--base-url", url, OPENAI_BASE_URL=url).stdout)

    assert text.returncode == 0, text.stderr
    assert f"In use:   openai · repo-model · {shown} · approval" in text.stdout
    assert report["in_use"]["base_url"] == shown
    assert report["settings"]["base_url"]["value"] == report["settings"]["openai_base_url"]["value"] == shown
    for secret in ("alice", "pw-Lz7Rk2Xq9", "q-key-4f8a2b9c"):
        assert secret not in text.stdout + text.stderr + json.dumps(report)


def test_keys_lists_every_action_with_its_default_and_yours(tmp_path: Path) -> None:
    config = Path(os.environ["NEOCODE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[keys]\nsend = "ctrl+s"\nfold = "ctrl+x ctrl+t"\ninterupt = "ctrl+g"\n')

    text = run(tmp_path, "--keys")
    report = json.loads(run(tmp_path, "--keys", "--json").stdout)

    assert text.returncode == 1, "a problem in the keys fails the check"
    rows = {line.split()[0]: line.split(None, 1)[1] for line in text.stdout.splitlines()[3:20] if line.strip()}
    assert rows["send"].split() == ["Enter", "Ctrl+S"]
    assert rows["fold"].split() == ["Ctrl+T", "Ctrl+X", "Ctrl+T"]
    assert rows["newline"].split() == ["Alt+Enter,", "Ctrl+J,", "Shift+Enter", "–"]
    assert rows["copy"].split() == ["(none)", "–"]
    assert "'interupt' is not an action (did you mean 'interrupt'?)" in text.stdout
    by_action = {row["action"]: row for row in report["actions"]}
    assert [row["action"] for row in report["actions"]][:3] == ["send", "newline", "history_search"]
    assert by_action["send"] | {"meaning": ""} == {"action": "send", "default": ["Enter"], "yours": ["Ctrl+S"],
                                                   "in_use": ["Ctrl+S"], "meaning": ""}
    assert by_action["interrupt"]["yours"] is None and by_action["interrupt"]["in_use"] == ["Esc"]
    assert report["problems"] == [f"{config / 'config.toml'} [keys]: 'interupt' is not an action (did you mean "
                                  "'interrupt'?); `neocode config --keys` lists them"]


def test_keys_with_none_of_yours_is_the_defaults(tmp_path: Path) -> None:
    done = run(tmp_path, "--keys", "--json")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert all(row["yours"] is None for row in report["actions"]) and report["problems"] == []
    assert {row["action"]: row["in_use"] for row in report["actions"]}["search"] == ["Ctrl+F"]
