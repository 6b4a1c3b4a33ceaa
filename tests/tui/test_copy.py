"""``/copy [N]``: the last answer or one of its code blocks reaches the clipboard through the
terminal (OSC 52, as Textual writes it) and the desktop's tool where one is installed."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from neocode_tui.tui.scenarios import Driver, Type
from tests.support.apps import scenario_app
from tests.support.screens import SCREENS
from tests.support.waits import screen_shows, wait_until


async def test_copy_puts_the_answer_or_a_code_block_on_the_clipboard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    taken = tmp_path / "taken.txt"
    wl_copy = tools / "wl-copy"  # a desktop clipboard tool: keeps what it is given
    wl_copy.write_text(f"#!/bin/sh\ncat > {taken}\n")
    wl_copy.chmod(wl_copy.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        driver = Driver(pilot)
        await driver.play(SCREENS["fence"].steps)
        answer = app.session.messages[-1].content.strip()

        await driver.play([Type("/copy 1")])
        await screen_shows(app, pilot, "copied code block 1", "and wl-copy")
        assert app.clipboard.startswith("import asyncio\n\nasync def retry(call, attempts=3, delay=0.5):")
        assert "```" not in app.clipboard
        assert taken.read_text() == app.clipboard

        await driver.play([Type("/copy")])
        await wait_until(lambda: app.clipboard == answer, what="the whole answer copied")
        await driver.play([Type("/copy 7")])
        await screen_shows(app, pilot, "/copy N takes a code block's number: the last answer has 1")

