"""The screens a person sees, as SVG snapshots (each was looked at before it was committed).

Every screen is a scenario from ``tests.support.screens`` (the scripts ``neocode demo`` plays,
some stopped part way), at a fixed size, with a pinned clock and version, the cursor not blinking and
animations off, in a folder always named ``project``. Update with ``--snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Step, Type, play
from neocode_tui.tui.screens.approval import ApprovalScreen
from neocode_tui.tui.screens.rewind import DiffScreen, RestoreScreen, RewindScreen
from tests.support.git_repo import git
from tests.support.reading import screen_text
from tests.support.screens import SCREENS as SCENARIOS
from tests.support.waits import wait_until

SCREENS = [
    "empty",  # the app before the first prompt
    "fence-cut",  # an answer streaming, cut while its code fence is open
    "parallel-cut",  # two tool calls growing side by side, arguments half sent
    "parallel",  # the same calls finished, run, and answered
    "approval",  # the approval modal with the edit's diff
    "interrupted",  # an answer stopped with Esc
    "error",  # a provider error shown as a notice
    "long",  # a long conversation scrolled back
    "light",  # the light theme
    "completion",  # slash-command completion
    "queued",  # messages queued above the input while the answer streams
    "plan",  # plan mode, switched on with Shift+Tab
    "keys",  # the key-help overlay
    "context-meter",  # the context meter and the cost after an answer
    "context-full",  # the meter near the limit, in the warning colour
    "context-report",  # /context: what fills the window
    "compacted",  # the compaction marker below the history it summarised
]


@pytest.mark.parametrize("name", SCREENS)
def test_screen(name: str, snap_compare, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    app = scenario.build_app(scenario.prepare(tmp_path))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: play(scenario, pilot))


def test_the_approval_dialog_fits_a_small_terminal(snap_compare, tmp_path: Path) -> None:
    """80x24 with a 200-line diff: the keys stay visible and the diff says where it is."""
    scenario = SCENARIOS["approval-small"]
    app = scenario.build_app(scenario.prepare(tmp_path))
    assert snap_compare(app, terminal_size=(80, 24), run_before=lambda pilot: play(scenario, pilot))
RESTORE_SCREENS: dict[str, tuple[str, tuple[Step, ...], Callable[[NeoCodeApp], bool]]] = {
    # the @ file picker, fuzzy-matching "ap" over the workspace's files and folders
    "mention": (
        "mention", (),
        lambda app: app.mention_picker.shown_query == "ap" and not app.session.files.scanning,
    ),
    # /undo: the last prompt's changes as a diff, asking once
    "undo": ("editing", (Type("/undo"),), lambda app: isinstance(app.screen, RestoreScreen)),
    # /rewind in a git repository: the prompts, what bash changes mean, git status
    "rewind": ("editing", (Type("/rewind"),), lambda app: isinstance(app.screen, RewindScreen)),
    # /diff outside git: everything the file tools changed this session, scrollable
    "diff": ("editing", (Type("/diff"),), lambda app: isinstance(app.screen, DiffScreen)),
}


@pytest.mark.parametrize("name", list(RESTORE_SCREENS))
def test_restore_screen(name: str, snap_compare, tmp_path: Path) -> None:
    scenario_name, extra, ready = RESTORE_SCREENS[name]
    scenario = SCENARIOS[scenario_name]
    workspace = scenario.prepare(tmp_path)
    if name == "rewind":
        git(workspace, "init", "-q")
        git(workspace, "add", ".")
        git(workspace, "commit", "-qm", "start")
    app = scenario.build_app(workspace)

    async def run_before(pilot) -> None:
        await play(scenario, pilot, [*scenario.steps, *extra])
        await wait_until(lambda: ready(app), pause=pilot.pause, what=f"the {name} screen")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def _command_printed(pilot, app: NeoCodeApp) -> None:
    """Let the model call the command, then wait until its output is all on screen."""
    app.provider.allow(float("inf"))  # type: ignore[attr-defined]
    await wait_until(
        lambda: "tests/test_slow_io.py ...." in screen_text(app), pause=pilot.pause,
        what="the command's last line",
    )
    await app.conversation.settled()
    await pilot.pause()


def test_a_running_command_streams_its_latest_lines(snap_compare, tmp_path: Path) -> None:
    """The last ten lines live (the one still being written included), the rest counted."""
    scenario = SCENARIOS["command-running"]
    app = scenario.build_app(scenario.prepare(tmp_path))

    async def run_before(pilot) -> None:
        await play(scenario, pilot)
        await _command_printed(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("name", ["web-fetch-approval", "skills-report", "memory-report"])
def test_web_skills_and_memory_screens_at_80x24(name: str, snap_compare, tmp_path: Path) -> None:
    """The web_fetch question (yes for the domain), /skills and /memory in a small terminal."""
    scenario = SCENARIOS[name]
    # The user allowed the host (web_fetch_allow): the local page can be asked about.
    allowed = {"web_fetch_allow": ["localhost"]} if name == "web-fetch-approval" else {}
    app = scenario.build_app(scenario.prepare(tmp_path), **allowed)
    ready = {
        "web-fetch-approval": lambda: isinstance(app.screen, ApprovalScreen),
        "skills-report": lambda: "db-migrate" in screen_text(app),
        "memory-report": lambda: "/memory N opens one" in screen_text(app),
    }[name]

    async def run_before(pilot) -> None:
        await play(scenario, pilot)
        await wait_until(ready, pause=pilot.pause, what=f"the {name} screen")
        await app.conversation.settled()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
