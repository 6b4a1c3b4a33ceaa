"""``+N allowed`` can be seen and taken back: ``/permissions`` lists this session's yeses
(a command, a domain, a tool) after the saved rules, and ``rm`` by number or by text takes
one back, so the next such call asks again while the others still run without a question.
The real app through Pilot, a page served on 127.0.0.1, a real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Scenario, Type
from neocode_tui.tui.screens.approval import ApprovalScreen
from tests.support.apps import scripted_app
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until
from tests.support.web_server import Page, WebServer

ECHO = ("bash", json.dumps({"command": "echo ready"}))
WRITE = ("write_file", json.dumps({"path": "notes.txt", "content": "hello\n"}))


def fetch(url: str) -> tuple[str, str]:
    return ("web_fetch", json.dumps({"url": url}))


async def say_yes_for_the_session(app: NeoCodeApp, pilot, count: int) -> None:  # type: ignore[no-untyped-def]
    """Answer ``count`` questions in turn with "a" (each call asks in its own dialog)."""
    answered: list[object] = []
    for _ in range(count):
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen) and app.screen not in answered,
                         pause=pilot.pause, what="the next question")
        answered.append(app.screen)
        await pilot.press("a")


async def test_permissions_lists_the_yeses_and_takes_one_back(tmp_path: Path) -> None:
    async with WebServer("127.0.0.1") as site:
        site.pages["/a"] = Page(b"<p>page A</p>")
        site.pages["/b"] = Page(b"<p>page B</p>")
        turns = [scripted_reply("", [ECHO, fetch(f"{site.url}/a"), WRITE]), scripted_reply("First done."),
                 scripted_reply("", [fetch(f"{site.url}/b"), ECHO]), scripted_reply("Second done.")]
        app = scripted_app(tmp_path, turns, web_fetch_allow=["127.0.0.1"])
        async with app.run_test(size=SIZE) as pilot:
            app.provider.allow(float("inf"))  # type: ignore[attr-defined]
            await Driver(pilot).play([Type("Look around")])
            await say_yes_for_the_session(app, pilot, 3)
            await screen_shows(app, pilot, "First done.", "+3 allowed")

            await Driver(pilot).play([Type("/permissions")])
            await screen_shows(app, pilot, "Allowed for this session (your yes in an approval):",
                               "1 command echo (and any arguments)", "2 domain 127.0.0.1",
                               "3 tool write_file", "/permissions rm N (or rm TEXT) takes one out")

            await Driver(pilot).play([Type("/permissions rm echo")])
            await screen_shows(app, pilot, "took back the yes for this session to bash: echo …",
                               "+2 allowed", gone=["+3 allowed"])
            await Driver(pilot).play([Type("/permissions rm 9")])
            await screen_shows(app, pilot, "there is no rule 9: the numbers go from 1 to 2")

            # The page on the same host is fetched unasked; the command asks again.
            await Driver(pilot).play([Type("Again")])
            await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause,
                             what="the command's question")
            assert "echo ready" in screen_text(app)
            assert [request.path for request in site.requests] == ["/a", "/b"]
            await pilot.press("y")
            await screen_shows(app, pilot, "Second done.", "+2 allowed")

            await Driver(pilot).play([Type("/permissions rm 127.0.0.1")])
            await screen_shows(app, pilot, "took back the yes for this session to web_fetch: 127.0.0.1",
                               "+1 allowed")


GRANTS = Scenario(
    "grants", "two yeses for the session, then /permissions",
    lambda: [scripted_reply("", [ECHO, WRITE]), scripted_reply("Both done.")],
    (Type("Say ready and write the notes"),),
)
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("size", list(SIZES))
def test_permissions_screen(size: str, snap_compare, tmp_path: Path) -> None:
    app = GRANTS.build_app(GRANTS.prepare(tmp_path))

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app.provider.allow(float("inf"))  # type: ignore[attr-defined]
        await Driver(pilot).play(list(GRANTS.steps))
        await say_yes_for_the_session(app, pilot, 2)
        await screen_shows(app, pilot, "Both done.", "+2 allowed")
        await Driver(pilot).play([Type("/permissions")])
        await screen_shows(app, pilot, "takes one out")
        await app.conversation.settled()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
