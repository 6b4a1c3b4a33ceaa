"""Start-up: ``neocode``'s first frame is the whole screen, drawn before the agent loads.

The conversation with its opening notice, the input and the status bar come first; the
settings (pydantic), the agent session (its loop, tools, MCP servers, hooks), the price
list, Markdown and Pygments load after that frame. How fast that is, is measured in
bench/bench_startup.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.conversation import markdown
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.starting import Loaded, Starting
from tests.support.first_run import first_run
from tests.support.waits import PATIENCE, screen_shows, wait_until

LATER = (
    "pydantic", "neocode_tui.agent.session.agent_session", "neocode_tui.agent.tools", "neocode_tui.agent.mcp",
    "neocode_tui.agent.extensions.hooks", "genai_prices", "markdown_it", "pygments", "rapidfuzz",
    "pathspec", "httpx", "yaml",
)
"""What the first frame does not wait for."""
SETTLED = "No API key: this is the offline scripted model"
"""The notice that comes with the settings: once it is on screen, they are loaded."""

FRAMES = f"""
import io, json, os, runpy, sys
from rich.console import Console
from textual.app import App

def report(app, renderable):
    console = Console(width=app.size.width, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(renderable)
    loaded = [name for name in {LATER!r} if name in sys.modules]
    screen = console.export_text()
    print(json.dumps({{"screen": screen, "loaded": loaded, "theme": app.theme}}), flush=True)
    return screen

display = App._display
drawn = []

def first_frame_then_settled(app, screen, update):
    display(app, screen, update)
    if update is None:
        return
    if not drawn:
        drawn.append(report(app, update))
    elif {SETTLED!r} in report(app, screen._compositor.render_update(full=True)):
        os._exit(0)

App._display = first_frame_then_settled
sys.argv = ["neocode", *sys.argv[1:]]
runpy.run_module("neocode_tui", run_name="__main__", alter_sys=True)
"""
"""``python -m neocode_tui`` on Textual's headless driver, reporting its first frame, then
every whole screen until the settings' notice is on it."""


def neocode(tmp_path: Path, code: list[str], **env_vars: str) -> subprocess.CompletedProcess[str]:
    """``python CODE`` as a first run in an empty folder: no keys, fresh data and config."""
    workspace, env = first_run(tmp_path)
    env.update(COLUMNS="100", LINES="30", TEXTUAL_DRIVER="textual.drivers.headless_driver:HeadlessDriver",
               **env_vars)
    return subprocess.run([sys.executable, *code], cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=PATIENCE)


def frames(tmp_path: Path, *args: str, **env_vars: str) -> list[dict[str, Any]]:
    run = neocode(tmp_path, ["-c", FRAMES, *args], **env_vars)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


def test_the_first_frame_shows_the_whole_screen_before_the_agent_loads(tmp_path: Path) -> None:
    first, *_, settled = frames(tmp_path)
    screen = first["screen"]
    assert "NeoCode" in screen and "type a task and press Enter" in screen
    assert "approval: ask" in screen  # the status bar: no flag said otherwise
    assert first["loaded"] == []
    # The settings come right after it, and what they decide with them.
    assert SETTLED in settled["screen"]
    assert "offline scripted model — set OPENAI_API_KEY" in settled["screen"]


def test_the_first_frame_has_the_remembered_theme_and_the_settings_may_change_it(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text('{"theme": "neocode-light"}')
    first, *_, settled = frames(tmp_path, NEOCODE_THEME="textual-dark")
    assert first["theme"] == "neocode-light"
    assert settled["theme"] == "textual-dark"
    assert json.loads((config / "settings.json").read_text())["theme"] == "textual-dark"


def test_the_first_frame_shows_the_flags_it_knows_without_the_settings(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text('{"theme": "neocode-light"}')
    first, *_ = frames(tmp_path, "--approval", "full-auto", "--theme", "textual-light")
    assert "approval: full-auto" in first["screen"]
    assert first["theme"] == "textual-light"
    assert first["loaded"] == []


def test_a_bad_setting_ends_the_app_with_its_message_and_exit_code(tmp_path: Path) -> None:
    run = neocode(tmp_path, ["-m", "neocode_tui"], NEOCODE_APPROVAL="sometimes")
    assert run.returncode == 2
    assert run.stderr == (
        "neocode: the environment (NEOCODE_APPROVAL): 'sometimes': Input should be 'ask', "
        "'auto-edit', 'full-auto' or 'plan'\n"
    )


async def test_the_input_takes_keys_while_the_settings_load_and_enter_waits_for_the_session(
    tmp_path: Path,
) -> None:
    """The settings load in a thread after the first frame: held there, the app still takes
    and draws what is typed; Enter, and what is typed after it, wait for the session."""
    loading, release = threading.Event(), threading.Event()

    def load() -> Loaded:
        loading.set()
        assert release.wait(PATIENCE), "the test never let the settings load"
        return Loaded(Settings(provider="scripted"), ScriptedProvider([scripted_reply("On it.")]))

    app = NeoCodeApp(workspace=tmp_path, starting=Starting(load), remember_theme=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(loading.is_set, pause=pilot.pause, what="the settings loading after the first frame")
            await pilot.press("h", "i", "enter", "!")
            await wait_until(lambda: app.prompt.text == "hi", pause=pilot.pause, what="the typing in the input")
            await screen_shows(app, pilot, "hi")
            assert app.made_session is None and not app.working  # Enter waits for the session
            release.set()
            await wait_until(lambda: not app.working and len(app.session.messages) == 2, pause=pilot.pause,
                             what="the prompt sent once the session was there")
            assert [m.content for m in app.session.messages] == ["hi", "On it."]
            assert app.prompt.text == "!"  # typed after Enter: it stays after it
            assert "start-up:" not in await screen_shows(app, pilot, "On it.")
    finally:
        release.set()


async def test_the_common_highlighters_are_built_after_the_first_frame_not_mid_answer(tmp_path: Path) -> None:
    """Building Python's lexer compiles its patterns (some 25 ms): start-up does it in a
    thread, so the first code block of an answer does not stall the stream for it."""
    markdown.lexer_named.cache_clear()
    app = NeoCodeApp(workspace=tmp_path, starting=Starting(lambda: Loaded(
        Settings(provider="scripted"), ScriptedProvider([scripted_reply("On it.")]))), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: markdown.lexer_named.cache_info().currsize >= len(markdown.COMMON_LANGUAGES),
                         pause=pilot.pause, what="the common lexers built after the first frame")
        built = markdown.lexer_named.cache_info().misses
        for language in markdown.COMMON_LANGUAGES:
            markdown.lexer_named(language)
        assert markdown.lexer_named.cache_info().misses == built  # each was already there
