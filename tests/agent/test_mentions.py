"""@path in a prompt: what the model is sent, on real files in a temporary workspace."""

from __future__ import annotations

import os
from pathlib import Path

from neocode_tui.agent.extensions.mentions import expand_mentions, mention_for
from neocode_tui.agent.loop_events import Notice
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.workspace import Workspace
from neocode_tui.known_secrets import Secrets
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.recorder import Recorder


def project(root: Path) -> Workspace:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "my notes.md").write_text("remember\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0data")
    return Workspace(root)


def test_a_mentioned_file_goes_along_numbered_like_read_file(tmp_path: Path) -> None:
    expanded = expand_mentions("explain @src/app.py please", project(tmp_path))
    assert expanded.attached == ["src/app.py"]
    assert expanded.text.startswith("explain @src/app.py please\n\n")
    assert '<file path="src/app.py">\n     1\tdef main():\n     2\t    return 1\n</file>' in expanded.text


def test_folders_quoted_names_and_sentence_punctuation(tmp_path: Path) -> None:
    expanded = expand_mentions('see @src, and @"my notes.md".', project(tmp_path))
    assert expanded.attached == ["src", "my notes.md"]
    assert '<folder path="src">\napp.py\n</folder>' in expanded.text
    assert mention_for("my notes.md") == '@"my notes.md"'
    assert mention_for("src/app.py") == "@src/app.py"


def test_words_that_name_nothing_are_left_alone(tmp_path: Path) -> None:
    text = "@property\ndef x(self): ...  mail me@example.com"
    expanded = expand_mentions(text, project(tmp_path))
    assert expanded.text == text and expanded.problems == []


def test_what_cannot_be_attached_is_reported_not_sent(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    workspace = project(root)
    (tmp_path / "secret.txt").write_text("outside\n")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    expanded = expand_mentions("@logo.png @../secret.txt @link.txt", workspace)
    assert expanded.attached == []
    assert expanded.text == "@logo.png @../secret.txt @link.txt"
    assert "outside" not in expanded.text
    assert len(expanded.problems) == 3
    assert "logo.png is a binary file" in expanded.problems[0]
    assert "outside the workspace" in expanded.problems[1]
    assert "symlink that leads outside" in expanded.problems[2]


def test_keys_in_an_attached_file_are_scrubbed(tmp_path: Path) -> None:
    workspace = project(tmp_path)
    (tmp_path / "config.py").write_text("KEY = 'sk-live-0123456789abcdef'\n")
    expanded = expand_mentions("@config.py", workspace, Secrets(keys=["sk-live-0123456789abcdef"]))
    assert "sk-live-0123456789abcdef" not in expanded.text
    assert "config.py" in expanded.attached


async def test_the_session_sends_the_file_and_keeps_the_prompt_as_typed(
    openai_only: Dialect, workspace: Path
) -> None:
    project(workspace)
    openai_only.reply("It returns 1.")
    recorder = Recorder()
    session = AgentSession(
        Settings(provider="openai"), workspace, FrontEnd(listener=recorder), provider=openai_only.provider()
    )
    await session.prompt("what does @src/app.py return? and @logo.png")

    sent = openai_only.request(1)["messages"][-1]["content"]
    assert sent.startswith("what does @src/app.py return? and @logo.png\n\n")
    assert "     2\t    return 1" in sent
    assert session.title == "what does @src/app.py return? and @logo.png"
    [notice] = recorder.of(Notice)
    assert notice.level == "warning" and "@logo.png was not attached" in notice.message
    await session.aclose()
