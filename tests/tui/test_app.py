"""The app driven with Textual's Pilot, as a person would: keys in, screen and files out."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.store.session_store import list_sessions
from neocode_tui.events import Usage
from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import (
    SIZE,
    Driver,
    Press,
    Release,
    Scroll,
    Type,
)
from neocode_tui.tui.screens.approval import ApprovalScreen
from neocode_tui.tui.user_config import load_user_config
from tests.support.apps import scenario_app, scripted_app
from tests.support.reading import screen_text
from tests.support.screens import SCREENS as SCENARIOS
from tests.support.waits import screen_shows, started, wait_until


async def test_enter_sends_the_prompt_and_the_answer_streams_in(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("Write a retry helper"), Release(12)])
        assert app.working
        await screen_shows(app, pilot, "working")
        await driver.step(Release())
        assert not app.working
        assert app.prompt.text == ""
        await screen_shows(app, pilot, "Write a retry helper", "async def retry(call, attempts=3, delay=0.5):",
                           "gives up after", "↑812 ↓164")  # the turn's tokens in the status bar
        assert app.session.messages[-1].content.endswith("tries.")


async def test_shift_enter_and_ctrl_j_add_lines_instead_of_sending(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.prompt.text == "a\nb\nc"
        assert not app.working
        assert app.session.messages == []


async def test_up_and_down_recall_sent_prompts_and_keep_the_draft(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, lambda request: scripted_reply("ok"))
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("first"), Release(), Type("second"), Release(), Type("dra", send=False)])
        await pilot.press("up")
        assert app.prompt.text == "second"
        await pilot.press("up")
        assert app.prompt.text == "first"
        await pilot.press("down", "down")
        assert app.prompt.text == "dra"


async def test_escape_interrupts_mid_stream_and_keeps_what_was_shown(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("Write a retry helper"), Release(20), Press("escape")])
        assert not app.working
        text = await screen_shows(app, pilot, "Interrupted by you: the run stopped here; send a message to go on.",
                                  "Here is a small helper")
        assert "interrupted by the user" not in text  # told once, not also as an error
        partial = app.session.messages[-1]
        assert partial.role == "assistant"
        assert partial.content.startswith("Here is a small helper")
        assert not partial.content.endswith("tries.")


async def test_prompts_sent_with_tab_while_working_wait_for_after_the_turn_and_go_in_order(tmp_path: Path) -> None:
    replies = [
        scripted_reply("A first answer that takes a while to stream.", delta=4),
        scripted_reply("Second answer."), scripted_reply("Third."),
    ]
    app = scripted_app(tmp_path, replies)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("first"), Release(2), Type("second", send=False), Press("tab"),
                           Type("third", send=False), Press("tab")])
        assert app.prompt.text == ""
        assert app.queued.prompts == ["second", "third"]
        await screen_shows(app, pilot, "after this › second", "after this › third")
        assert [m.content for m in app.session.messages if m.role == "user"] == ["first"]
        for _ in range(3):
            await driver.play([Release()])
        await wait_until(lambda: not app.working and not app.queued.prompts, pause=pilot.pause)
        users = [m.content for m in app.session.messages if m.role == "user"]
        assert users == ["first", "second", "third"]
        assert app.session.messages[-1].content == "Third."
        await screen_shows(app, pilot, "Third.", gone=["after this ›"])


async def test_up_on_an_empty_prompt_takes_the_last_queued_message_back(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, [scripted_reply("One answer, streamed slowly.", delta=4)])
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("first"), Release(2), Type("second", send=False), Press("tab"), Type("thrid")])
        await pilot.press("up")
        assert app.prompt.text == "thrid" and app.queued.prompts == ["second"]
        await pilot.press("ctrl+c")  # dropped: with text in the box, Ctrl+C clears it
        assert app.prompt.text == "" and app.working
        await pilot.press("ctrl+c")  # an empty box: Ctrl+C interrupts
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the interrupt")
        assert app.is_running
        # The interrupted turn leaves the rest of the queue to the user, in the box.
        assert app.prompt.text == "second" and app.queued.prompts == []
        await app.conversation.settled()
        await screen_shows(app, pilot, "Interrupted")


async def test_ctrl_c_when_idle_clears_then_quits_on_a_second_press(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")
        assert app.prompt.text == "" and app.is_running
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_until(lambda: not app.is_running, pause=pilot.pause, what="the app to quit")


async def test_shift_tab_cycles_the_mode_and_the_keyboard_stays_in_the_prompt(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append(app.session.approval)
        assert seen == ["auto-edit", "plan", "ask"]
        await pilot.press("shift+tab", "shift+tab")
        await screen_shows(app, pilot, "approval: plan")
        assert app.focused is app.prompt
        await pilot.press("tab", *"x")
        assert app.focused is app.prompt and app.prompt.text.endswith("x")


async def test_new_lines_by_backslash_enter_and_ctrl_j_and_help_on_question_mark(tmp_path: Path) -> None:
    from neocode_tui.tui.screens.key_help import KeyHelpScreen

    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"one", "backslash", "enter", *"two", "ctrl+j", *"three?")
        assert app.prompt.text == "one\ntwo\nthree?" and not app.working
        await pilot.press("ctrl+c", "question_mark")
        assert isinstance(app.screen, KeyHelpScreen)
        await screen_shows(app, pilot, "Shift+Tab", "Ctrl+O", "search the conversation")
        await pilot.press("escape")
        assert not isinstance(app.screen, KeyHelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, KeyHelpScreen)


async def test_the_key_help_scrolls_by_keyboard_in_a_small_terminal(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.press("f1")
        text = await screen_shows(app, pilot, "Up / Down")
        assert "Esc closes this list" not in text
        for _ in range(8):
            await pilot.press("pagedown")
        await screen_shows(app, pilot, "Esc closes this list")


async def test_history_walks_past_a_recalled_slash_command(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("hello"), Release()])
        await pilot.press(*"/model m2", "enter", *"/approval ask", "enter")
        await pilot.press("up")
        assert app.prompt.text == "/approval ask"
        await pilot.press("up")
        assert app.prompt.text == "/model m2"
        await pilot.press("up")
        assert app.prompt.text == "hello"
        await pilot.press("down")
        assert app.prompt.text == "/model m2"


async def test_yes_in_the_approval_modal_writes_the_file(tmp_path: Path) -> None:
    app = scenario_app("approval", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCENARIOS["approval"].steps)
        assert isinstance(app.screen, ApprovalScreen)
        await screen_shows(app, pilot, "Allow write_file?", "+- Visited by NeoCode's offline model.")
        assert app.working  # the loop waits for the answer
        await driver.play([Press("y"), Release()])
        assert not app.working
        notes = (app.workspace / "NOTES.md").read_text()
        assert notes == "# Notes\n\n- keep the demo small\n- Visited by NeoCode's offline model.\n"


async def test_no_with_a_reason_leaves_the_file_and_tells_the_model(tmp_path: Path) -> None:
    app = scenario_app("approval", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([*SCENARIOS["approval"].steps, Press("n")])
        await pilot.press(*"not now", "enter")
        await driver.step(Release())
        assert (app.workspace / "NOTES.md").read_text() == "# Notes\n\n- keep the demo small\n"
        result = next(m for m in app.session.messages if m.role == "tool" and m.name == "write_file")
        assert result.is_error and result.content.endswith("not now")
        await screen_shows(app, pilot, "I left NOTES.md")


async def test_escape_in_the_modal_is_no(tmp_path: Path) -> None:
    app = scenario_app("approval", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([*SCENARIOS["approval"].steps, Press("escape"), Release()])
        assert not isinstance(app.screen, ApprovalScreen)
        assert not app.working
        assert "Visited" not in (app.workspace / "NOTES.md").read_text()
        assert app.session.messages[-1].role == "assistant"  # the run went on to its answer


async def test_a_for_session_stops_asking_for_that_tool(tmp_path: Path) -> None:
    app = scenario_app("approval", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([*SCENARIOS["approval"].steps, Press("a"), Release()])
        await driver.play([Type("Again please"), Release()])
        assert not isinstance(app.screen, ApprovalScreen)
        notes = (app.workspace / "NOTES.md").read_text()
        assert notes.count("Visited by NeoCode's offline model.") == 2
        await screen_shows(app, pilot, "approval: ask +1 allowed")  # what is allowed, in view


async def test_slash_completion_completes_commands_and_their_arguments(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    app.themes.remember = True
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "t", "h")
        assert app.prompt.completion.is_open
        await screen_shows(app, pilot, "/theme NAME")
        await pilot.press("tab")
        assert app.prompt.text == "/theme "
        await pilot.press(*"neocode-l")
        await pilot.press("enter")  # takes the only completion, which is whole: it runs
        await wait_until(lambda: app.theme == "neocode-light", pause=pilot.pause, what="the theme")
        assert app.prompt.text == ""
        assert not app.prompt.completion.is_open
        await pilot.press("/", "h", "e", "enter")  # a command without argument runs at once
        await screen_shows(app, pilot, "Ctrl+P", "Shift+Tab")  # keys and commands in one overlay
        assert app.prompt.text == ""
    assert load_user_config().theme == "neocode-light"


async def test_the_remembered_theme_is_used_at_start(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text('{"theme": "neocode-light"}')
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE):
        assert app.theme == "neocode-light"


async def test_an_unknown_command_or_theme_is_explained_not_fatal(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("/frobnicate"), Type("/theme no-such-theme")])
        await screen_shows(app, pilot, "unknown command /frobnicate", "unknown theme 'no-such-theme'")
        assert app.theme == "neocode-dark"


async def test_a_theme_chosen_by_name_is_said(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("/theme neocode-light")])
        await screen_shows(app, pilot, "theme: neocode-light")
        assert app.theme == "neocode-light"


async def test_model_and_approval_commands_change_what_the_next_run_uses(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, lambda request: scripted_reply("ok"))
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("/model gpt-test"), Type("/approval full-auto"), Type("hi"), Release()])
        assert app.provider.inner.requests[-1].model == "gpt-test"
        assert app.session.approval == "full-auto"
        await screen_shows(app, pilot, "approval: full-auto")


async def test_compact_replaces_the_history_with_the_summary(tmp_path: Path) -> None:
    def model(request):
        if not request.tools:
            return scripted_reply("The user asked for a haiku; one was written.")
        return scripted_reply("Autumn moonlight, a worm digs silently into the chestnut.")

    app = scripted_app(tmp_path, model)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("A haiku please"), Release(), Type("/compact"), Release()])
        await app.workers.wait_for_complete()
        await driver.settle()
        assert len(app.session.messages) == 2
        assert "The user asked for a haiku" in app.session.messages[0].content
        await screen_shows(app, pilot, "compacted 2 messages", gone=["The user asked for a haiku"])
        await pilot.press("ctrl+t")  # the summary is folded under its line
        await screen_shows(app, pilot, "The user asked for a haiku")


async def test_a_provider_error_shows_as_a_notice_and_the_app_carries_on(tmp_path: Path) -> None:
    app = scenario_app("error", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCENARIOS["error"].steps)
        await screen_shows(app, pilot, "authentication failed: check the API key (HTTP 401")
        assert not app.working
        await pilot.press(*"still here")
        assert app.prompt.text == "still here"


async def test_sessions_are_saved_and_resume_brings_the_conversation_back(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play(SCENARIOS["fence"].steps)
    sessions = list_sessions(app.workspace)
    assert len(sessions) == 1
    assert sessions[0].title == "Write a retry helper"

    again = NeoCodeApp(
        Settings(provider="scripted"), app.provider, app.workspace, resume="", remember_theme=False
    )
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        assert [m.role for m in again.session.messages] == ["user", "assistant"]
        await screen_shows(again, pilot, f"resumed session {sessions[0].id}")


async def test_resize_keeps_the_input_and_status_bar_on_screen(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCENARIOS["fence"].steps)
        await pilot.resize_terminal(60, 20)
        await driver.settle()
        await wait_until(lambda: len(screen_text(app).splitlines()) == 20, pause=pilot.pause,
                         what="the smaller screen")
        lines = screen_text(app).splitlines()
        assert "approval: ask" in lines[-1]
        assert app.prompt.region.bottom == 19
        assert app.prompt.region.width > 0
        await pilot.resize_terminal(*SIZE)
        await driver.settle()
        await screen_shows(app, pilot, "gives up after")


async def test_tokens_for_the_session_add_up_across_turns(tmp_path: Path) -> None:
    app = scripted_app(
        tmp_path, lambda request: scripted_reply("ok", usage=Usage(input_tokens=100, output_tokens=7))
    )
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("one"), Release(), Type("two"), Release()])
        await screen_shows(app, pilot, "↑100 ↓7  Σ ↑200 ↓14")


async def test_scrolled_back_the_view_stays_put_and_esc_returns_to_the_latest(tmp_path: Path) -> None:
    app = scenario_app("long", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCENARIOS["long"].steps)  # six answers, then scrolled 40 lines back
        view = app.conversation
        assert not view.anchored
        await driver.play([Type("Question 7"), Release(3)])
        assert view.anchored  # sending jumps to the latest
        await driver.play([Scroll(-20)])
        reading, bottom = view.scroll_y, view.max_scroll_y
        await driver.play([Release()])
        assert view.max_scroll_y > bottom  # the rest of the answer arrived...
        assert view.scroll_y == reading  # ...and did not pull the reader down
        await screen_shows(app, pilot, "more below")
        await driver.play([Press("escape")])
        assert view.anchored
        assert view.scroll_y == view.max_scroll_y
        await screen_shows(app, pilot, gone=["more below"])


async def test_the_command_palette_runs_slash_commands(tmp_path: Path) -> None:
    app = scenario_app("fence", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"theme neocode-light")
        await screen_shows(app, pilot, "/theme neocode-light")  # the palette searches in the background
        await pilot.press("enter")
        await wait_until(lambda: app.theme == "neocode-light", pause=pilot.pause, what="the theme")


async def test_without_an_api_key_the_app_starts_on_the_offline_model(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "README.md").write_text("# hello\n")
    app = NeoCodeApp(Settings(), workspace=workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await screen_shows(app, pilot, "offline scripted model — set OPENAI_API_KEY")
        await pilot.press(*"hi", "enter")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause, what="the question")
        assert app.screen.request.name == "write_file"
        await pilot.press("y")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run to end")
        assert (workspace / "NOTES.md").read_text().endswith("- Visited by NeoCode's offline model.\n")


async def test_a_command_is_shown_in_full_before_it_runs_and_escape_stops_it(tmp_path: Path) -> None:
    command = 'echo started > started.txt; sleep 30; echo done > done.txt'
    app = scripted_app(
        tmp_path,
        [scripted_reply("Running it.", [("bash", json.dumps({"command": command}))]), scripted_reply("ok")],
    )
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("run the slow thing"), Release()])
        assert isinstance(app.screen, ApprovalScreen)
        await screen_shows(app, pilot, f"$ {command}")
        await pilot.press("y")
        started = app.workspace / "started.txt"
        await wait_until(started.exists, pause=pilot.pause, what="the command to start")
        await wait_until(lambda: not isinstance(app.screen, ApprovalScreen), pause=pilot.pause,
                         what="the question to close")  # Esc on it would answer it, not interrupt
        assert app.working  # the command runs; the app still takes keys
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run to end")
        assert not (app.workspace / "done.txt").exists()
        result = next(m for m in app.session.messages if m.role == "tool")
        assert result.is_error


async def test_sessions_and_resume_by_id_from_the_input(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, lambda request: scripted_reply("noted"))
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("remember the milk"), Release()])
        session_id = app.session.id
        await driver.play([Type("/clear"), Type("/sessions")])
        assert app.session.messages == []
        await screen_shows(app, pilot, session_id)
        await driver.play([Type(f"/resume {session_id}")])
        assert [m.content for m in app.session.messages] == ["remember the milk", "noted"]
        await screen_shows(app, pilot, "remember the milk")


async def test_page_keys_scroll_the_conversation_from_the_input_and_end_returns(tmp_path: Path) -> None:
    app = scenario_app("long", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCENARIOS["long"].steps[:-1])  # six answers, at the latest
        view = app.conversation
        assert view.anchored
        await pilot.press("pageup", "pageup")
        assert not view.anchored
        assert view.scroll_y < view.max_scroll_y - 40
        assert app.prompt.has_focus
        await pilot.press("pagedown")
        assert view.scroll_y < view.max_scroll_y
        await pilot.press(*"draft", "end")  # with text in the input, End is the line's end
        assert not view.anchored
        await pilot.press("ctrl+c", "end")
        assert view.anchored


async def test_a_key_in_a_file_the_model_reads_never_reaches_the_screen_or_the_session(
    tmp_path: Path,
) -> None:
    key = "sk-live-THISISTHEKEY0123456789"
    app = scripted_app(
        tmp_path,
        [scripted_reply("Reading it.", [("read_file", json.dumps({"path": ".env"}))]),
         scripted_reply("The file sets one variable.")],
        openai_api_key=key,
    )
    (app.workspace / ".env").write_text(f"OPENAI_API_KEY={key}\n")
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("what is in .env?"), Release()])
        text = await screen_shows(app, pilot, "OPENAI_API_KEY=[redacted]")
        assert key not in text
    result = next(m for m in app.session.messages if m.role == "tool")
    assert key not in result.content
    saved = "".join(path.read_text() for path in (tmp_path / "data").rglob("*.jsonl"))
    assert "OPENAI_API_KEY=[redacted]" in saved and key not in saved


def untrusted_app(tmp_path: Path) -> NeoCodeApp:
    from neocode_tui.settings.load import TrustRequest, load_settings

    workspace = tmp_path / "cloned"
    workspace.mkdir()
    (workspace / ".env").write_text("NEOCODE_APPROVAL=full-auto\nNEOCODE_MODEL=repo-model\n")
    loaded = load_settings(workspace, {"provider": "scripted"})
    request = TrustRequest(
        loaded.ignored_names, loaded.ignored,
        lambda: load_settings(workspace, {"provider": "scripted"}, trusted=True).settings,
    )
    return NeoCodeApp(loaded.settings, workspace=workspace, remember_theme=False, untrusted=request)


async def test_a_folder_whose_env_wants_power_is_trusted_only_on_yes(tmp_path: Path) -> None:
    from neocode_tui.trust import is_trusted
    from neocode_tui.tui.screens.trust import TrustScreen

    app = untrusted_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: isinstance(app.screen, TrustScreen), pause=pilot.pause, what="the question")
        await screen_shows(app, pilot, "Trust ", "NEOCODE_APPROVAL")
        assert app.session.approval == "ask" and app.session.model == "repo-model"
        await pilot.press("y")
        await started(app, pilot)  # the answer is taken: start-up goes on from it
        assert not isinstance(app.screen, TrustScreen)
        assert app.session.approval == "full-auto"
        assert is_trusted(app.workspace)
        await screen_shows(app, pilot, "approval: full-auto")


async def test_declining_trust_says_what_was_ignored_and_asks_nothing_more(tmp_path: Path) -> None:
    from neocode_tui.trust import is_trusted
    from neocode_tui.tui.screens.trust import TrustScreen

    app = untrusted_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: isinstance(app.screen, TrustScreen), pause=pilot.pause, what="the question")
        await pilot.press("escape")
        await started(app, pilot)  # the answer is taken: start-up goes on from it
        assert not isinstance(app.screen, TrustScreen)
        assert app.session.approval == "ask" and not is_trusted(app.workspace)
        await screen_shows(app, pilot, "NEOCODE_APPROVAL", "was ignored")  # the path wraps anywhere


async def test_a_retry_is_one_status_line_that_updates_then_goes(tmp_path: Path) -> None:
    from neocode_tui.events import MessageDone, StreamRetry, TextDelta

    retry = [
        TextDelta(text="Half an ans"),
        StreamRetry(attempt=2, max_attempts=4, delay=1.5, reason="rate limited (HTTP 429)"),
        StreamRetry(attempt=3, max_attempts=4, delay=3.0, reason="rate limited (HTTP 429)"),
        TextDelta(text="The whole answer."),
        MessageDone(finish_reason="stop"),
    ]
    app = scripted_app(tmp_path, [retry])
    async with app.run_test(size=(120, 32)) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("hello"), Release(2)])
        await screen_shows(app, pilot, "retrying 2/4 in 1.5 s: rate limited (HTTP 429)")
        await driver.play([Release(1)])
        text = await screen_shows(app, pilot, "retrying 3/4 in 3.0 s", gone=["retrying 2/4"])
        assert "Half an ans" not in text
        await driver.play([Release()])
        await screen_shows(app, pilot, "The whole answer.", gone=["retrying"])


async def test_an_edit_panel_shows_its_change_once_as_the_diff(tmp_path: Path) -> None:
    edit = json.dumps({"path": "app.py", "old_string": "'hello'", "new_string": "'good morning'"})
    app = scripted_app(tmp_path, [scripted_reply("", [("edit_file", edit)]), scripted_reply("Done.")],
                       approval="full-auto")
    (app.workspace / "app.py").write_text("def greet():\n    return 'hello'\n")
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("greet politely"), Release(), Release()])
        text = await screen_shows(app, pilot, "+    return 'good morning'", "Done.")
    assert "old_string" not in text and "new_string" not in text
    assert text.count("good morning") == 1
