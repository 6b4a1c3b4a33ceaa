"""A resumed session with a command stopped part way and an answer interrupted while it
streamed, as SVG snapshots at 80x24 and 120x40 (each was looked at before it was committed):
the command's last lines above the words saying it was stopped, and the notice where each
run was interrupted, as they were shown live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.store.images import stored
from neocode_tui.agent.store.session_store import sessions_dir
from neocode_tui.agent.transcript import STOPPED
from neocode_tui.chat import Message, PrintedOutput, ToolCall
from neocode_tui.providers.scripted import ScriptedProvider
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios.driver import PINNED_VERSION
from tests.support.reading import screen_text
from tests.support.waits import wait_until

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
SESSION_ID = "20260301-101500-5e5510"
PRINTED = [f"tests/test_module_{n:02d}.py ........................ [{n * 4:3d}%]" for n in range(1, 24)]


def write_session(workspace: Path) -> None:
    """The session file a run like that leaves, record by record, under a fixed id."""
    call = ToolCall(id="call_1", name="bash", arguments=json.dumps({"command": "bash run_tests.sh"}))
    records: list[dict[str, object]] = [
        {"type": "session", "version": 1, "id": SESSION_ID, "workspace": str(workspace.resolve()),
         "created": "2026-03-01T10:15:00+00:00", "provider": "scripted", "model": "scripted"},
        *({"type": "message", "message": stored(message)} for message in [
            Message(role="user", content="Run the tests"),
            Message(role="assistant", content="Running the test suite.", tool_calls=[call]),
            Message(role="tool", content=STOPPED, tool_call_id="call_1", name="bash",
                    is_error=True, status="interrupted", output=PrintedOutput(lines=PRINTED)),
        ]),
        {"type": "run_end", "reason": "cancelled"},
        {"type": "message", "message": {"role": "user", "content": "Why is test_slow_io slow?"}},
        {"type": "message", "message": {"role": "assistant",
                                        "content": "It waits on a real socket: each of its"}},
        {"type": "run_end", "reason": "cancelled"},
    ]
    folder = sessions_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{SESSION_ID}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_resumed_session_with_a_stopped_command(size: str, snap_compare, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    write_session(workspace)
    app = NeoCodeApp(Settings(provider="scripted"), ScriptedProvider([]), workspace, resume="",
                     clock=lambda: 0.0, version=PINNED_VERSION, remember_theme=False, blink=False)

    async def run_before(pilot) -> None:
        await wait_until(lambda: "each of its" in screen_text(app), pause=pilot.pause,
                         what="the resumed session")
        # Every block drawn once, so the scrollbar measures real heights, not estimates
        # (which blocks got drawn before scrolling away depends on the machine's speed).
        view = app.conversation
        view.scroll_to(y=0, animate=False, immediate=True)
        await view.settled()
        view.scroll_to_latest()
        await view.settled()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
