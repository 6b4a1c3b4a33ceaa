"""web_fetch's question in the app: "a" says yes to the page's host for the session, so a
second page there is fetched without asking, and a page elsewhere asks again."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import SIZE, Driver, Type
from neocode_tui.tui.screens.approval import ApprovalScreen
from tests.support.apps import scripted_app
from tests.support.reading import screen_text
from tests.support.waits import wait_until
from tests.support.web_server import Page, WebServer


def fetch(url: str) -> tuple[str, str]:
    return ("web_fetch", json.dumps({"url": url}))


async def test_yes_for_the_domain_covers_its_pages_and_only_its_own(tmp_path: Path) -> None:
    async with WebServer("127.0.0.1") as site, WebServer("127.0.0.2") as other:
        site.pages["/a"] = Page(b"<p>page A</p>")
        site.pages["/b"] = Page(b"<p>page B</p>")
        other.pages["/c"] = Page(b"<p>page C</p>")
        turns = [scripted_reply("", [fetch(f"{site.url}/a"), fetch(f"{site.url}/b"), fetch(f"{other.url}/c")]),
                 scripted_reply("Read them.")]
        app = scripted_app(tmp_path, turns, web_fetch_allow=["127.0.0.1", "127.0.0.2"])
        async with app.run_test(size=SIZE) as pilot:
            app.provider.allow(float("inf"))  # type: ignore[attr-defined]
            await Driver(pilot).play([Type("Read the pages")])
            await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause,
                             what="the first question")
            assert "yes to 127.0.0.1 for this session" in screen_text(app)
            await pilot.press("a")
            await wait_until(lambda: isinstance(app.screen, ApprovalScreen)
                             and "127.0.0.2" in screen_text(app), pause=pilot.pause,
                             what="the question about the other host (none about page B)")
            assert [request.path for request in site.requests] == ["/a", "/b"]
            await pilot.press("y")
            await wait_until(lambda: "Read them." in screen_text(app), pause=pilot.pause, what="the answer")
        assert [request.path for request in other.requests] == ["/c"]
