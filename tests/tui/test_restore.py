"""@ mentions, /undo, /rewind and /diff in the app, driven with Pilot on real files."""

from __future__ import annotations

import subprocess
from pathlib import Path

from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Type
from neocode_tui.tui.screens.rewind import DiffScreen, RestoreScreen, RewindScreen
from tests.support.reading import screen_text
from tests.support.screens import SCREENS
from tests.support.waits import screen_shows, wait_until


def editing_app(tmp_path: Path) -> tuple[NeoCodeApp, Path]:
    scenario = SCREENS["editing"]
    workspace = scenario.prepare(tmp_path)
    return scenario.build_app(workspace), workspace


async def picker_shows(pilot, query: str) -> list[str]:
    app = pilot.app
    await wait_until(
        lambda: app.mention_picker.shown_query == query and not app.session.files.scanning,
        pause=pilot.pause, what=f"the picker's results for {query!r}",
    )
    return [entry.path for entry in app.mention_picker.entries]


async def test_at_opens_the_file_picker_and_tab_takes_a_file(tmp_path: Path) -> None:
    app, _ = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("@")
        assert (await picker_shows(pilot, ""))[:3] == ["docs/", "src/", "tests/"]
        await pilot.press("a", "p", "p", ".", "p", "y")
        found = await picker_shows(pilot, "app.py")
        assert found[:2] == ["src/app.py", "tests/test_app.py"]
        await screen_shows(app, pilot, "src/app.py")
        await pilot.press("tab")
        assert app.prompt.text == "@src/app.py "
        assert not app.mention_picker.is_open


async def test_a_folder_stays_open_for_its_files_and_esc_closes(tmp_path: Path) -> None:
    app, _ = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s", "e", "e", " ", "@", "c", "l", "i")
        assert (await picker_shows(pilot, "cli"))[0] == "src/cli/"
        await pilot.press("enter")
        assert app.prompt.text == "see @src/cli/"
        found = await picker_shows(pilot, "src/cli/")
        assert {"src/cli/args.py", "src/cli/apply.py"} <= set(found)
        await pilot.press("down", "enter")
        assert app.prompt.text.startswith("see @src/cli/") and app.prompt.text.endswith(".py ")
        await pilot.press("@", "z")
        await picker_shows(pilot, "z")
        await pilot.press("escape")
        assert not app.mention_picker.is_open
        assert not app.working and app.session.messages == []  # nothing was sent


async def test_a_mentioned_file_reaches_the_model(tmp_path: Path) -> None:
    app, _ = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("What does @src/app.py do?")])
        await wait_until(lambda: app.provider.inner.requests, pause=pilot.pause, what="a request")
        sent = app.provider.inner.requests[0].messages[-1].content
        assert sent.startswith("What does @src/app.py do?")
        assert '     3\t    # TODO: handle --verbose' in sent
        await screen_shows(app, pilot, "What does @src/app.py do?")


async def dialog(pilot, kind: type) -> None:
    await wait_until(lambda: isinstance(pilot.app.screen, kind), pause=pilot.pause, what=kind.__name__)


async def play_edits(pilot) -> None:
    await Driver(pilot).play(SCREENS["editing"].steps)


async def test_undo_shows_the_diff_then_puts_the_files_back(tmp_path: Path) -> None:
    app, workspace = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_edits(pilot)
        assert "main() runs the app" in (workspace / "docs/api.md").read_text()
        await Driver(pilot).step(Type("/undo"))
        await dialog(pilot, RestoreScreen)
        await screen_shows(app, pilot, "Undo the file changes of Document main in docs/api.md?",
                           "-main() runs the app.", "not tracked")
        await pilot.press("y")
        await screen_shows(app, pilot, "undone: docs/api.md")
        assert (workspace / "docs/api.md").read_text() == "# API\n"
        assert "verbose mode" in (workspace / "src/app.py").read_text()  # the earlier prompt's stays

        await Driver(pilot).step(Type("/undo"))
        await dialog(pilot, RestoreScreen)
        await pilot.press("n")
        assert "verbose mode" in (workspace / "src/app.py").read_text()  # kept


async def test_rewind_picks_a_prompt_and_restores_conversation_and_files(tmp_path: Path) -> None:
    app, workspace = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_edits(pilot)
        await Driver(pilot).step(Type("/rewind"))
        await dialog(pilot, RewindScreen)
        text = await screen_shows(app, pilot, "Document main", "Handle --verbose", "2 files changed",
                                  "not tracked")
        assert text.index("Document main") < text.index("Handle --verbose")  # latest first
        await pilot.press("down", "enter")  # the first prompt
        await dialog(pilot, RestoreScreen)
        await screen_shows(app, pilot, "Rewind to before Handle --verbose in src/app.py?")
        await pilot.press("f")
        await wait_until(lambda: app.prompt.text == "Handle --verbose in src/app.py", pause=pilot.pause,
                         what="the prompt back in the input")
        assert app.session.messages == []
        assert (workspace / "src/app.py").read_text().endswith("# TODO: handle --verbose\n")
        assert (workspace / "docs/api.md").read_text() == "# API\n"
        assert not (workspace / "CHANGELOG.md").exists()
        await screen_shows(app, pilot, "rewound the conversation and the files")


async def test_rewind_of_the_conversation_only_leaves_the_files(tmp_path: Path) -> None:
    app, workspace = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_edits(pilot)
        await Driver(pilot).step(Type("/rewind"))
        await dialog(pilot, RewindScreen)
        await pilot.press("enter")  # the latest prompt
        await dialog(pilot, RestoreScreen)
        await pilot.press("c")
        await wait_until(lambda: app.prompt.text == "Document main in docs/api.md", pause=pilot.pause,
                         what="the prompt back in the input")
        prompts = [m.content for m in app.session.messages if m.role == "user"]
        assert prompts == ["Handle --verbose in src/app.py"]
        assert "main() runs the app" in (workspace / "docs/api.md").read_text()


async def test_diff_shows_the_session_changes_and_in_git_the_git_diff(tmp_path: Path) -> None:
    app, workspace = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_edits(pilot)
        await Driver(pilot).step(Type("/diff"))
        await dialog(pilot, DiffScreen)
        await screen_shows(app, pilot, "What the file tools changed in this conversation",
                           "+++ b/CHANGELOG.md", '-    # TODO: handle --verbose')
        await pilot.press("escape")
        assert not isinstance(app.screen, DiffScreen)

        subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
        subprocess.run(["git", "add", "README.md"], cwd=workspace, check=True)
        await Driver(pilot).step(Type("/diff"))
        await dialog(pilot, DiffScreen)
        # The repository is the one found when the session started: none.
        await screen_shows(app, pilot, "What the file tools changed in this conversation")

    app = SCREENS["editing"].build_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).step(Type("/diff"))
        await dialog(pilot, DiffScreen)
        await screen_shows(app, pilot, "git diff HEAD", "+# Demo project")


async def test_nothing_to_undo_or_rewind_says_so(tmp_path: Path) -> None:
    app, _ = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.step(Type("/undo"))
        await driver.step(Type("/rewind"))
        await driver.step(Type("/diff"))
        await screen_shows(app, pilot, "no changes", "nothing to undo", "nothing to rewind to yet")


async def test_enter_on_a_path_typed_in_full_sends_the_prompt(tmp_path: Path) -> None:
    app, _ = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.prompt.insert("read @src/app.py")
        await picker_shows(pilot, "src/app.py")
        await pilot.press("enter")
        await wait_until(lambda: app.session.messages, pause=pilot.pause, what="the prompt sent")
        assert app.session.messages[0].content.startswith("read @src/app.py\n\n")


async def test_a_resumed_conversation_shows_the_prompt_as_typed(tmp_path: Path) -> None:
    app, workspace = editing_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("What does @src/app.py do?")])
        saved = app.session.id
    scenario = SCREENS["editing"]
    again = scenario.build_app(workspace)
    async with again.run_test(size=SIZE) as pilot:
        await Driver(pilot).step(Type(f"/resume {saved}"))
        text = await screen_shows(again, pilot, "What does @src/app.py do?")
        assert "The user attached" not in text and "TODO: handle --verbose" not in text
        assert "TODO: handle --verbose" in again.session.messages[0].content  # the model keeps it


async def test_undo_over_a_file_now_a_symlink_out_says_so_and_the_app_goes_on(
    tmp_path: Path
) -> None:
    app, workspace = editing_app(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("someone else's\n")
    async with app.run_test(size=SIZE) as pilot:
        await play_edits(pilot)
        (workspace / "docs/api.md").unlink()
        (workspace / "docs/api.md").symlink_to(outside)  # as a command might have
        await Driver(pilot).step(Type("/undo"))
        await dialog(pilot, RestoreScreen)
        reason = "docs/api.md was left as it is: it is now a symlink"
        await screen_shows(app, pilot, reason)
        await pilot.press("y")
        await wait_until(lambda: not isinstance(app.screen, RestoreScreen)
                         and reason in screen_text(app), pause=pilot.pause, what="the warning")
        assert app.is_running
        assert outside.read_text() == "someone else's\n"
        assert (workspace / "docs/api.md").is_symlink()
