"""The fold hints under a folded command output and a thought name the key that folds them,
the key the app binds and the key overlay lists, and that key does what the hint says."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.keymap import default_keymap
from neocode_tui.tui.keys import KeyNames
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type
from neocode_tui.tui.screens.key_help import key_rows
from tests.support.waits import screen_shows


def test_the_hinted_key_is_the_bound_key_and_the_overlay_lists_it() -> None:
    keys = default_keymap()
    assert keys.keys["fold"] == (("ctrl+t",),) and keys.names() == KeyNames() and KeyNames().fold == "Ctrl+T"
    assert KeyNames().fold in dict(key_rows(keys))


async def test_fold_hints_name_the_key_and_the_key_folds(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    call = ("bash", json.dumps({"command": "seq 101 140"}))
    turns = [scripted_reply("Counting.", [call], reasoning="First count, then say so."), scripted_reply("Counted.")]
    app = NeoCodeApp(Settings(provider="scripted", approval="full-auto"), StepProvider(ScriptedProvider(turns)),
                     workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("count"), Release()])
        await screen_shows(app, pilot, "Counted.", "∴ Thought for 1 line · Ctrl+T or click to expand",
                           "more lines · Ctrl+T or click to expand", gone=["121"])
        await pilot.press("ctrl+t")  # the latest that folds: the command's output
        await screen_shows(app, pilot, "121", "(Ctrl+T or click to collapse)", gone=["more lines"])
        await pilot.press("ctrl+t")
        await screen_shows(app, pilot, "more lines · Ctrl+T or click to expand", gone=["121"])
