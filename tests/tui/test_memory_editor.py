"""/memory N in the real app in a real terminal (tmux): the app steps aside for the user's
$EDITOR on that file, and comes back when the editor exits."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE
from tests.support.tmux import Tmux
from tests.support.waits import wait_until


async def test_memory_opens_the_file_in_the_users_editor_and_the_app_comes_back(
    openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Run the tests first.\n")
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\necho "Added in the editor." >> "$1"\n'
                      '[ -t 0 ] && [ -t 1 ] && seen=terminal\n'
                      'echo "$seen" > "$0.tmp"; mv "$0.tmp" "$0.ran"\n')
    editor.chmod(0o755)
    command = f"cd {shlex.quote(str(workspace))} && EDITOR={shlex.quote(str(editor))} {NEOCODE}"
    tmux.window("app", command)
    tmux.go("app")
    await wait_until(lambda: "type a task and press Enter" in tmux.screen("app"), what="the app")
    tmux("send-keys", "-t", "t:app", "-l", "/memory 1")
    tmux("send-keys", "-t", "t:app", "Enter")
    await wait_until(lambda: (tmp_path / "editor.sh.ran").exists(), what="the editor")
    assert (workspace / "AGENTS.md").read_text() == "Run the tests first.\nAdded in the editor.\n"
    assert (tmp_path / "editor.sh.ran").read_text().strip() == "terminal", "it had the terminal"
    await wait_until(lambda: "instruction file 1:" in tmux.screen("app"), what="the app drawn again after the editor")
