"""``neocode demo``: recordings are real asciinema/SVG files, the same for the same script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from neocode_tui.cli import main


def test_a_cast_recording_is_asciinema_v2_and_the_same_every_run(tmp_path: Path) -> None:
    first, second = tmp_path / "one.cast", tmp_path / "two.cast"
    assert main(["demo", "fence", "--record", str(first)]) == 0
    assert main(["demo", "fence", "--record", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()

    header, *events = [json.loads(line) for line in first.read_text().splitlines()]
    assert header["version"] == 2
    assert (header["width"], header["height"]) == (100, 32)
    times = [event[0] for event in events]
    assert times == sorted(times) and len(events) > 10
    assert all(kind == "o" for _, kind, _ in events)
    played = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", "".join(data for _, _, data in events))
    assert "Write a retry helper" in played  # typed into the input
    assert "async" in played and "retry(call, attempts=3, delay=0.5)" in played


def test_an_svg_recording_is_the_final_screen(tmp_path: Path) -> None:
    target = tmp_path / "error.svg"
    assert main(["demo", "error", "--record", str(target)]) == 0
    svg = target.read_text()
    assert svg.startswith("<svg")
    assert "authentication&#160;failed" in svg


def test_an_unknown_script_or_format_is_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "nope"]) == 2
    assert "no script named 'nope'" in capsys.readouterr().err
    assert main(["demo", "fence", "--record", str(tmp_path / "x.gif")]) == 2
    assert "FILE.svg" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()
