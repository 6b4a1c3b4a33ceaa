"""web_fetch over real HTTP: a page from a server on a loopback address reaches the model as
Markdown only once the user allows the host, never through a redirect to an address the
user did not allow or a host their rules deny, without scripts or navigation, with the
per-domain question; a compressed or deeply nested page costs bounded memory and time."""

from __future__ import annotations

import asyncio
import gzip
import json
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, ToolFinished
from neocode_tui.agent.permissions.session_rules import RunOptions
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.tools.web import WebFetch
from neocode_tui.redact import REDACTED
from neocode_tui.settings.load import load_settings
from tests.support.dialects import API_KEY, Dialect
from tests.support.recorder import Recorder
from tests.support.web_server import Page, WebServer

ARTICLE = b"""<!doctype html><html><head><title>Release notes</title>
<style>body { color: STYLE_RULE }</style><script>var tracker = "SCRIPT_CODE";</script></head>
<body><nav><a href="/">NAV_HOME</a> <a href="/blog">NAV_BLOG</a></nav>
<header>SITE_BANNER</header>
<main><article><header><h1>Version 2.0</h1></header>
<p>The <b>parser</b> is faster. Key: """ + API_KEY.encode() + b"""</p>
<ul><li>first change</li><li>second change</li></ul><pre><code>pip install thing</code></pre>
<p>esc \x1b]0;pwned\x07 here</p></article></main>
<footer>FOOTER_LINKS</footer><div role="navigation">ROLE_NAV</div></body></html>"""


def fetch(call_id: str, url: str) -> tuple[str, str, str]:
    return (call_id, "web_fetch", json.dumps({"url": url}))


def session_for(
    dialect: Dialect, workspace: Path, approval: str = "full-auto", **options
) -> tuple[AgentSession, Recorder]:
    """The session as a run gets it: settings from the user's environment and files."""
    settings = load_settings(workspace, {"provider": "openai", "approval": approval}).settings
    recorder = Recorder()
    front = FrontEnd(listener=recorder, approver=options.pop("approver", None))
    session = AgentSession(settings, workspace, front, provider=dialect.provider(), save=False, **options)
    return session, recorder


@pytest.fixture
async def site():
    async with WebServer("127.0.0.1") as server:
        yield server


async def test_a_local_page_is_refused_until_the_user_allows_its_host_then_read_as_markdown(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.pages["/notes"] = Page(ARTICLE)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)  # a key the session knows, to scrub
    openai_only.reply("", [fetch("c1", f"{site.url}/notes")])
    openai_only.reply("Not allowed.")
    refused, _ = session_for(openai_only, workspace)
    await refused.prompt("read the notes")
    result = openai_only.tool_results(2)["c1"]
    assert "not fetched" in result and "loopback" in result and "NEOCODE_WEB_FETCH_ALLOW" in result
    assert site.requests == [], "nothing was sent to the local server"

    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    openai_only.reply("", [fetch("c2", f"{site.url}/notes")])
    openai_only.reply("Read it.")
    allowed, recorder = session_for(openai_only, workspace)
    await allowed.prompt("read the notes")
    page = openai_only.tool_results(4)["c2"]
    assert "untrusted" in page.splitlines()[0]
    assert "# Version 2.0" in page and "The **parser** is faster." in page
    assert "- first change\n- second change" in page and "pip install thing" in page
    for chrome in ("SCRIPT_CODE", "STYLE_RULE", "NAV_HOME", "NAV_BLOG", "SITE_BANNER",
                   "FOOTER_LINKS", "ROLE_NAV"):
        assert chrome not in page
    assert API_KEY not in page and REDACTED in page
    assert "esc ]0;pwned here" in page and "\x1b" not in page, "no terminal control reaches anyone"
    assert [event.status for event in recorder.of(ToolFinished)] == ["ok"]
    await refused.aclose()
    await allowed.aclose()


async def test_a_redirect_to_an_address_the_user_did_not_allow_is_refused(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    async with WebServer("127.0.0.2") as other:
        other.pages["/secret"] = Page(b"<p>INTERNAL_ONLY</p>")
        site.pages["/to-other"] = Page(b"", 302, {"Location": f"{other.url}/secret"})
        site.pages["/to-metadata"] = Page(b"", 301, {"Location": "http://169.254.169.254/latest/meta-data/"})
        mapped = f"http://[::ffff:10.0.0.1]:{other.url.rsplit(':', 1)[1]}/"
        site.pages["/to-mapped"] = Page(b"", 307, {"Location": mapped})
        site.pages["/to-file"] = Page(b"", 302, {"Location": "file:///etc/passwd"})
        openai_only.reply("", [fetch("a", f"{site.url}/to-other"), fetch("b", f"{site.url}/to-metadata"),
                               fetch("c", f"{site.url}/to-mapped"), fetch("d", f"{site.url}/to-file")])
        openai_only.reply("Refused.")
        session, _ = session_for(openai_only, workspace)
        await session.prompt("follow them")
        results = openai_only.tool_results(2)
        await session.aclose()
    assert "127.0.0.2 is this machine" in results["a"]
    assert "a link-local address" in results["b"] and "169.254.169.254" in results["b"]
    assert "a private address (10.0.0.1)" in results["c"]
    assert "only http and https" in results["d"]
    assert all("INTERNAL_ONLY" not in text for text in results.values())
    assert other.requests == [], "the redirect's target was never contacted"
    assert [request.path for request in site.requests] == ["/to-other", "/to-metadata", "/to-mapped", "/to-file"]


async def test_it_asks_per_domain_and_a_yes_for_the_domain_covers_that_host_only(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1,127.0.0.2")
    async with WebServer("127.0.0.2") as other:
        site.pages["/a"] = Page(b"<p>page A</p>")
        site.pages["/b"] = Page(b"<p>page B</p>")
        other.pages["/c"] = Page(b"<p>page C</p>")
        openai_only.reply("", [fetch("1", f"{site.url}/a"), fetch("2", f"{site.url}/b"),
                               fetch("3", f"{other.url}/c")])
        openai_only.reply("Done.")
        asked: list[ApprovalRequested] = []

        async def approver(request: ApprovalRequested) -> ApprovalDecision:
            asked.append(request)
            return ApprovalDecision(verdict="session" if request.call_id == "1" else "no")

        session, _ = session_for(openai_only, workspace, approval="auto-edit", approver=approver)
        await session.prompt("read three pages")
        results = openai_only.tool_results(2)
        await session.aclose()
    assert [request.call_id for request in asked] == ["1", "3"]
    assert asked[0].session_scope == "web_fetch: 127.0.0.1"
    assert asked[0].summary == f"fetch {site.url}/a"
    assert "page A" in results["1"] and "page B" in results["2"]
    assert results["3"] == "the user denied this call" and other.requests == []


async def test_a_run_without_anyone_to_ask_fetches_only_in_full_auto(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    site.pages["/a"] = Page(b"<p>page A</p>")
    openai_only.reply("", [fetch("1", f"{site.url}/a")])
    openai_only.reply("Done.")
    session, _ = session_for(openai_only, workspace, approval="auto-edit")
    await session.prompt("read it")
    await session.aclose()
    assert "--approval full-auto" in openai_only.tool_results(2)["1"]
    assert site.requests == []


async def test_no_credentials_cookies_or_proxies_of_the_user_go_with_a_fetch(
    openai_only: Dialect, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.2")
    # A proxy that answers nothing, for everything but the model's server.
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with WebServer("127.0.0.2") as site:
        site.pages["/login"] = Page(b"", 302, {"Location": "/home", "Set-Cookie": "session=COOKIE_VALUE; Path=/"})
        site.pages["/home"] = Page(b"<p>welcome</p>")
        openai_only.reply("", [fetch("1", f"{site.url}/login"),
                               fetch("2", site.url.replace("http://", "http://user:pw@") + "/home"),
                               fetch("3", "file:///etc/passwd"), fetch("4", "ftp://example.com/")])
        openai_only.reply("Done.")
        session, _ = session_for(openai_only, workspace)
        await session.prompt("log in")
        results = openai_only.tool_results(2)
        await session.aclose()
    assert "welcome" in results["1"], "reached directly, not through the environment's proxy"
    assert [request.path for request in site.requests] == ["/login", "/home"]
    for request in site.requests:
        assert not {"cookie", "authorization", "proxy-authorization"} & set(request.headers)
        assert request.headers["host"] == site.url.removeprefix("http://")
    assert "sends no credentials" in results["2"]
    assert "only http and https" in results["3"] and "not ftp" in results["4"]


async def test_a_page_larger_than_the_cap_is_cut_and_says_so(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    site.pages["/big"] = Page(b"<p>" + b"word " * 1_000_000 + b"</p>")
    site.pages["/image"] = Page(b"\x89PNG....", headers={"Content-Type": "image/png"})
    openai_only.reply("", [fetch("1", f"{site.url}/big"), fetch("2", f"{site.url}/image")])
    openai_only.reply("Done.")
    session, _ = session_for(openai_only, workspace)
    await session.prompt("read it")
    results = openai_only.tool_results(2)
    await session.aclose()
    assert "larger than web_fetch reads" in results["1"]
    assert "not shown]" in results["1"] and len(results["1"]) < 70_000
    assert "image/png, not a page" in results["2"]


def test_only_the_user_sets_the_allow_list_never_a_workspace(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / ".env").write_text("NEOCODE_WEB_FETCH_ALLOW=169.254.169.254,10.0.0.0/8\n")
    loaded = load_settings(workspace, trusted=True)  # even a folder the user trusts
    assert loaded.settings.web_fetch_allow == []
    assert any("NEOCODE_WEB_FETCH_ALLOW" in line and "never a workspace" in line for line in loaded.ignored)
    from neocode_tui.paths import config_dir

    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "config.toml").write_text('web_fetch_allow = ["docs.internal", "127.0.0.1"]\n')
    assert load_settings(workspace).settings.web_fetch_allow == ["docs.internal", "127.0.0.1"]


async def test_an_ipv6_host_the_user_allowed_is_reached_with_its_own_host_header(
    openai_only: Dialect, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "::1")
    async with WebServer("::1") as site:
        site.pages["/v6"] = Page(b"<p>over IPv6</p>")
        openai_only.reply("", [fetch("1", f"{site.url}/v6")])
        openai_only.reply("Done.")
        session, _ = session_for(openai_only, workspace)
        await session.prompt("read it")
        await session.aclose()
    assert "over IPv6" in openai_only.tool_results(2)["1"]
    assert site.requests[0].headers["host"] == site.url.removeprefix("http://")


def gzip_of_gzip_bomb(megabytes: int) -> bytes:
    """A few hundred bytes that are ``megabytes`` MB of page once both gzips are undone."""
    inner = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    page = b"<p>" + b"a" * ((1 << 20) - 3)
    once = b"".join([inner.compress(page) for _ in range(megabytes)] + [inner.flush()])
    return gzip.compress(once, 9)


async def test_a_compressed_page_is_read_and_a_bomb_in_any_coding_stops_at_the_cap(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    html = {"Content-Type": "text/html"}
    text = b"<p>twice wrapped words</p>"
    site.pages["/twice"] = Page(gzip.compress(gzip.compress(text)), headers={**html, "Content-Encoding": "gzip, gzip"})
    site.pages["/zlib"] = Page(zlib.compress(b"<p>zlib words</p>"), headers={**html, "Content-Encoding": "deflate"})
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    site.pages["/raw"] = Page(raw.compress(b"<p>raw deflate words</p>") + raw.flush(),
                              headers={**html, "Content-Encoding": "identity, deflate"})
    bomb = gzip_of_gzip_bomb(256)
    assert len(bomb) < 2000
    site.pages["/bomb"] = Page(bomb, headers={**html, "Content-Encoding": "gzip, gzip"})
    site.pages["/br"] = Page(b"\x1b\x00", headers={**html, "Content-Encoding": "br"})
    damaged = b"\x1f\x8b\x08" + bytes(7) + b"\xff\xff\xff"  # a gzip header, then no valid block
    site.pages["/damaged"] = Page(damaged, headers={**html, "Content-Encoding": "gzip"})
    openai_only.reply("", [fetch(name, f"{site.url}/{name}")
                           for name in ("twice", "zlib", "raw", "bomb", "br", "damaged")])
    openai_only.reply("Done.")
    session, _ = session_for(openai_only, workspace)
    tracemalloc.start()
    try:
        await session.prompt("read them")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    results = openai_only.tool_results(2)
    await session.aclose()
    assert "twice wrapped words" in results["twice"]
    assert "zlib words" in results["zlib"] and "raw deflate words" in results["raw"]
    assert "larger than web_fetch reads" in results["bomb"] and "aaaa" in results["bomb"]
    assert peak < 64 << 20, f"{peak >> 20} MB held to read a page of at most 2 MB"
    assert "not fetched" in results["br"] and "'br', which is not decoded here" in results["br"]
    assert "not fetched" in results["damaged"] and "damaged gzip data" in results["damaged"]


async def test_deny_and_ask_rules_on_a_domain_hold_on_every_redirect_hop(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1,127.0.0.2,127.0.0.3")
    from neocode_tui.paths import config_dir

    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "config.toml").write_text('[permissions]\nask = ["web_fetch(domain:127.0.0.3)"]\n')
    rules = RunOptions(disallowed_tools=["web_fetch(domain:127.0.0.2)"])  # the command line's
    async with WebServer("127.0.0.2") as denied, WebServer("127.0.0.3") as asking:
        denied.pages["/secret"] = Page(b"<p>DENIED_PAGE</p>")
        asking.pages["/secret"] = Page(b"<p>ASKED_PAGE</p>")
        site.pages["/to-denied"] = Page(b"", 302, {"Location": f"{denied.url}/secret"})
        site.pages["/hop"] = Page(b"", 301, {"Location": "/to-denied"})  # the same host first
        site.pages["/to-asking"] = Page(b"", 307, {"Location": f"{asking.url}/secret"})
        site.pages["/home"] = Page(b"", 302, {"Location": "/page"})
        site.pages["/page"] = Page(b"<p>same host page</p>")
        openai_only.reply("", [fetch("a", f"{site.url}/hop"), fetch("b", f"{site.url}/to-asking"),
                               fetch("c", f"{site.url}/home")])
        openai_only.reply("Done.")
        session, _ = session_for(openai_only, workspace, run=rules)
        await session.prompt("follow them")
        results = openai_only.tool_results(2)
        await session.aclose()
    assert f"redirected to {denied.url}/secret, which was not followed" in results["a"]
    assert "denied by the permission rule 'web_fetch(domain:127.0.0.2)'" in results["a"]
    assert f"redirected to {asking.url}/secret, which was not followed" in results["b"]
    assert "asks for approval there by the permission rule 'web_fetch(domain:127.0.0.3)'" in results["b"]
    assert "same host page" in results["c"]
    assert denied.requests == [] and asking.requests == [], "no denied or unasked host was contacted"
    assert [request.path for request in site.requests] == ["/hop", "/to-denied", "/to-asking", "/home", "/page"]


async def test_a_yes_to_a_fetch_covers_its_host_not_the_host_a_redirect_goes_to(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1,127.0.0.2")
    async with WebServer("127.0.0.2") as other:
        site.pages["/a"] = Page(b"", 302, {"Location": "/b"})
        site.pages["/b"] = Page(b"", 302, {"Location": f"{other.url}/c"})
        other.pages["/c"] = Page(b"<p>page C</p>")
        other.pages["/d"] = Page(b"<p>page D</p>")
        site.pages["/e"] = Page(b"", 302, {"Location": f"{other.url}/c"})
        openai_only.reply("", [fetch("1", f"{site.url}/a")])
        openai_only.reply("", [fetch("2", f"{other.url}/d")])
        openai_only.reply("", [fetch("3", f"{site.url}/e")])
        openai_only.reply("Done.")
        asked: list[str] = []

        async def approver(request: ApprovalRequested) -> ApprovalDecision:
            asked.append(request.call_id)
            return ApprovalDecision(verdict="session" if request.call_id == "2" else "yes")

        session, _ = session_for(openai_only, workspace, approval="auto-edit", approver=approver)
        await session.prompt("read them")
        first, second, third = (openai_only.tool_results(n) for n in (2, 3, 4))
        await session.aclose()
    assert asked == ["1", "2", "3"], "a redirect is never a question in the middle of a fetch"
    assert f"redirected to {other.url}/c, which was not followed" in first["1"]
    assert "the user's yes to this call does not cover web_fetch: 127.0.0.2" in first["1"]
    assert "fetch that URL with a call of its own" in first["1"] and "page C" not in first["1"]
    assert "page D" in second["2"]
    assert "page C" in third["3"], "a yes for the session to 127.0.0.2 covers a redirect there"
    assert [request.path for request in other.requests] == ["/d", "/c"]


async def test_a_page_nested_too_deep_gives_its_text_and_a_note_within_the_time_limit(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    site.pages["/deep"] = Page(b"<main><p>top words</p>" + b"<div>w " * 5000 + b"deepest words")
    site.pages["/endless"] = Page((b"<main><p>top words</p>" + b"<b>w " * 400_000)[:2_000_000])
    openai_only.reply("", [fetch("deep", f"{site.url}/deep")])
    openai_only.reply("Read.")
    openai_only.reply("", [fetch("endless", f"{site.url}/endless")])
    openai_only.reply("Done.")
    session, _ = session_for(openai_only, workspace)
    tool = session.loop.tools.get("web_fetch")
    assert isinstance(tool, WebFetch)
    # The nesting is cut by depth, whatever the machine's speed: a busy machine gets all the time
    # it needs for that page, and the endless one alone meets a short limit.
    tool.time_limit = 120.0
    await session.prompt("read the deep one")
    tool.time_limit = 2.0
    started = time.monotonic()
    await session.prompt("read the endless one")
    await session.aclose()
    # What a -p run waits for before it exits: every thread the conversion used.
    await asyncio.get_running_loop().shutdown_default_executor()
    took = time.monotonic() - started
    deep, endless = openai_only.tool_results(2)["deep"], openai_only.tool_results(4)["endless"]
    assert "Note: the page nests its tags more than 100 deep: what is deeper is its plain text" in deep
    assert "top words" in deep and "w w w deepest words" in deep
    assert "Note: converting the page took longer than the time limit for a fetch" in endless
    assert "top words" in endless and "w" in endless.split("top words", 1)[1]
    # Bounded, it ends near its limit (the rest is room for a busy machine).
    assert took < 30, f"the endless fetch took {took:.1f}s, past its limit of 2 s"


async def test_a_page_read_after_its_time_for_converting_has_gone_still_gives_its_first_words(
    openai_only: Dialect, workspace: Path, site: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a busy machine does to a short limit: the page arrives when converting it is already late.
    monkeypatch.setenv("NEOCODE_WEB_FETCH_ALLOW", "127.0.0.1")
    monkeypatch.setattr("neocode_tui.agent.web.page.CONVERT_MARGIN", 600.0)
    site.pages["/long"] = Page(b"<main><h1>Title words</h1><p>first words</p>" + b"<p>more</p>" * 50_000)
    openai_only.reply("", [fetch("long", f"{site.url}/long")])
    openai_only.reply("Read.")
    session, _ = session_for(openai_only, workspace)
    await session.prompt("read the long one")
    await session.aclose()
    long = openai_only.tool_results(2)["long"]
    assert "Note: converting the page took longer than the time limit for a fetch" in long
    assert "# Title words" in long and "first words" in long
    assert long.count("more") < 1000, "past its first piece, a late conversion stops"
