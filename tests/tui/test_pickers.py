"""The session picker, completion that acts on what is typed now, and toasts that leave the
input and the status bar in sight."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets._toast import Toast

from neocode_tui.agent.store.session_store import SessionStore, list_sessions
from neocode_tui.chat import Message
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type
from neocode_tui.tui.screens.session_picker import SessionPicker
from tests.support.waits import screen_shows, wait_until


def saved_session(workspace: Path, model: str, *prompts: str) -> str:
    """A session on disk as the app writes it: each prompt with an answer."""
    store = SessionStore.create(workspace, provider="openai", model=model)
    for prompt in prompts:
        store.append_message(Message(role="user", content=prompt))
        store.append_message(Message(role="assistant", content=f"done: {prompt}"))
    store.close()
    return store.id


def app_in(tmp_path: Path, **kwargs: object) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    provider = StepProvider(ScriptedProvider(lambda request: scripted_reply("noted")))
    return NeoCodeApp(
        Settings(provider="scripted"), provider, workspace, remember_theme=False, **kwargs  # type: ignore[arg-type]
    )


def test_the_listing_counts_messages_and_names_the_model(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    saved_session(workspace, "gpt-4o", "fix the tests", "and the docs")
    store = SessionStore.create(workspace, provider="anthropic", model="claude-sonnet-4")
    store.append_message(Message(role="user", content="long one"))
    store.append_message(Message(role="assistant", content="answer"))
    store.append_compaction([Message(role="user", content="summary")])
    store.append_message(Message(role="assistant", content="after"))
    store.close()
    found = {info.title: (info.messages, info.model) for info in list_sessions(workspace)}
    assert found == {"fix the tests": (4, "gpt-4o"), "long one": (2, "claude-sonnet-4")}


async def test_resume_without_an_id_picks_from_a_filtered_list(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    saved_session(app.workspace, "gpt-4o", "fix the flaky test")
    saved_session(app.workspace, "gpt-4o-mini", "write the release notes", "shorter")
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("a prompt of this session"), Release()])
        await driver.play([Type("/resume")])
        assert isinstance(app.screen, SessionPicker)
        text = await screen_shows(app, pilot, "Resume which session?", "fix the flaky test", "2 msgs",
                                  "write the release notes", "4 msgs", "gpt-4o-mini")
        assert "a prompt of this session" not in text.split("Resume which session?")[1]
        await pilot.press(*"release")
        await screen_shows(app, pilot, "write the release notes", gone=["fix the flaky test"])
        await pilot.press("enter")
        await wait_until(lambda: not isinstance(app.screen, SessionPicker), pause=pilot.pause,
                         what="the picker to close")
        assert [m.content for m in app.session.messages][0] == "write the release notes"
        await screen_shows(app, pilot, "resumed session")


async def test_the_picker_moves_with_arrows_and_escape_keeps_the_conversation(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    older = saved_session(app.workspace, "m", "older")
    saved_session(app.workspace, "m", "newer")
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("/resume")])
        await pilot.press("escape")
        assert not isinstance(app.screen, SessionPicker)
        assert app.session.messages == []
        await Driver(pilot).play([Type("/resume")])
        await pilot.press("down", "enter")  # the list is newest first
        await wait_until(lambda: app.session.id == older, pause=pilot.pause, what="the older session")


async def test_neocode_resume_with_no_id_opens_on_the_picker(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    saved_session(workspace, "gpt-4o", "yesterday's work")
    app = app_in(tmp_path, pick_session=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: isinstance(app.screen, SessionPicker), pause=pilot.pause, what="the picker")
        await screen_shows(app, pilot, "yesterday's work")
        assert app.session.messages == []  # nothing loaded until one is chosen
        await pilot.press("enter")
        await wait_until(lambda: len(app.session.messages) == 2, pause=pilot.pause, what="the session")


async def test_resume_with_no_saved_session_says_so(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("/resume")])
        assert not isinstance(app.screen, SessionPicker)
        await screen_shows(app, pilot, "no saved sessions for this folder yet")


async def test_tab_after_fast_typing_takes_what_matches_the_text_now(tmp_path: Path) -> None:
    """All the keys arrive before the change messages they cause, as in a fast burst."""
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/")
        await wait_until(lambda: app.prompt.completion.chosen is not None, pause=pilot.pause,
                         what="the completion")
        assert app.prompt.completion.chosen.label == "/help"
        for key, character in [("t", "t"), ("h", "h"), ("tab", None)]:
            app.prompt.post_message(events.Key(key, character))
        await wait_until(lambda: app.prompt.text == "/theme ", pause=pilot.pause, what="the completed text")
        for key, character in [("d", "d"), ("r", "r"), ("enter", None)]:
            app.prompt.post_message(events.Key(key, character))
        await wait_until(lambda: app.theme == "dracula", pause=pilot.pause, what="the dracula theme")


async def test_a_command_with_no_argument_shows_the_choices_instead_of_taking_the_first(
    tmp_path: Path,
) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        theme, approval, model = app.theme, app.session.approval, app.session.model
        driver = Driver(pilot)
        await driver.play([Type("/theme ")])
        assert app.theme == theme
        await screen_shows(app, pilot, f"theme is {theme}. Themes: ")
        await driver.play([Type("/approval ")])
        assert app.session.approval == approval
        await screen_shows(app, pilot, f"approval is {approval}; choose one of: ask, auto-edit")
        await driver.play([Type("/model ")])
        assert app.session.model == model
        await screen_shows(app, pilot, f"model: {model}")
        # Chosen with the arrows, a choice is taken.
        await pilot.press(*"/theme ", "down", "enter")
        await wait_until(lambda: app.theme == sorted(app.available_themes)[0], pause=pilot.pause,
                         what="the first theme")


async def test_a_toast_covers_neither_the_input_nor_the_status_bar(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+o")  # "Transcript: everything unfolded"
        await wait_until(lambda: bool(app.query(Toast)) and app.query_one(Toast).region.area > 0,
                         pause=pilot.pause, what="a toast")
        toast = app.query_one(Toast).region
        assert toast.area > 0
        for widget in (app.prompt, app.status):
            assert not toast.overlaps(widget.region), widget
        assert toast.y < app.conversation.region.bottom
