"""The prompts kept for the prompt's history: each folder gets its own, the file stays
bounded however long it is used, and a line that is not a prompt is passed over."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.store.prompt_history import KEPT, PromptLog, history_file


def test_each_folder_reads_its_own_and_the_file_stays_bounded(tmp_path: Path) -> None:
    here, there = PromptLog(tmp_path / "a", str), PromptLog(tmp_path / "b", str)
    there.add("elsewhere")
    for number in range(2 * KEPT + 5):
        here.add(f"prompt {number}")

    kept = here.load()
    assert kept[-1] == f"prompt {2 * KEPT + 4}"
    assert len(history_file().read_text().splitlines()) <= 2 * KEPT
    assert "elsewhere" not in kept and PromptLog(tmp_path / "b", str).load() == []  # the oldest went


def test_a_torn_or_foreign_line_is_passed_over(tmp_path: Path) -> None:
    log = PromptLog(tmp_path, str)
    log.add("first")
    with history_file().open("a") as file:
        file.write('{"folder": 3}\n[1, 2]\n{"folder": "x", "te')
    PromptLog(tmp_path, str).add("second")  # another run, after the torn line

    assert log.load() == ["first", "second"]
