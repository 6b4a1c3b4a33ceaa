"""docs/settings.md is what ``neocode config --reference`` prints from the settings model now."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from neocode_tui.cli.settings_reference import REGENERATE, settings_reference
from neocode_tui.settings.compat import OpenAICompat
from neocode_tui.settings.model import Settings
from tests.support.waits import PATIENCE

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "settings.md"


def neocode(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neocode_tui", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=PATIENCE)


def test_the_committed_reference_is_what_the_settings_model_says() -> None:
    same = settings_reference() == REFERENCE.read_text(encoding="utf-8")
    assert same, f"docs/settings.md is out of date: run `{REGENERATE}` in the checkout and commit it"


def test_neocode_config_reference_prints_it_whatever_the_folder_holds(tmp_path: Path) -> None:
    """The reference is the same everywhere: a broken config.toml or .env is not read."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text("model = [unclosed\n")
    (tmp_path / ".env").write_text("NEOCODE_MAX_TURNS=zero\n")
    done = neocode("config", "--reference", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == REFERENCE.read_text(encoding="utf-8")
    assert "docs/settings.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_each_setting_has_a_row_with_a_meaning_and_flags_that_neocode_takes(tmp_path: Path) -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| (.*)$", text, re.MULTILINE))
    assert set(Settings.model_fields) | set(OpenAICompat.model_fields) == set(rows)
    for name, info in Settings.model_fields.items():
        assert f"`{info.validation_alias}`" in rows[name]
    assert all(row.count("*Values:*") == 1 for row in rows.values())
    help_text = neocode("--help", cwd=tmp_path).stdout
    flags = re.findall(r"^\| `\w+` \| `(--[\w-]+)` \|", text, re.MULTILINE)
    assert "--max-turns" in flags and "--sandbox-network" in flags
    for flag in flags:
        assert re.search(rf"(^|\s){flag}\b", help_text), flag
