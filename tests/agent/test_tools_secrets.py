"""Keys and sizes: no piece of a key survives a cut or an edit, every result is capped,
and AGENTS.md is read as carefully as the tools read."""

from __future__ import annotations

import asyncio
import json
import os
import random
import string
import subprocess
import time
from pathlib import Path

import pytest

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.session.system_prompt import MAX_INSTRUCTIONS, build_system_prompt
from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.agent.tools import default_tools
from neocode_tui.agent.tools.base import RESULT_CAP
from neocode_tui.agent.tools.edit import unified_diff
from neocode_tui.agent.workspace import Workspace
from neocode_tui.known_secrets import Secrets
from neocode_tui.redact import REDACTED, Redactor
from tests.support.dialects import API_KEY, Dialect
from tests.support.recorder import Recorder
from tests.support.waits import PATIENCE

HEAD = "sk-agent-test-"
"""The public part of the test key: every key of its kind starts so."""


def pieces(key: str, text: str, size: int = 8) -> list[str]:
    """Every run of ``size`` characters of ``key`` past its public head found in ``text``."""
    return [
        key[at : at + size]
        for at in range(len(key) - size + 1)
        if at + size > len(HEAD) and key[at : at + size] in text
    ]


# --- the redactor -------------------------------------------------------------------------------


def test_whole_keys_and_long_pieces_of_them_are_scrubbed() -> None:
    redact = Redactor([API_KEY])
    assert redact(f"KEY={API_KEY}\n") == f"KEY={REDACTED}\n"
    assert redact(f"head cut: {API_KEY[:17]}") == f"head cut: {REDACTED}"
    assert redact(f"{API_KEY[-8:]} tail cut") == f"{REDACTED} tail cut"
    inserted = API_KEY[:18] + "x" + API_KEY[18:]
    assert redact(f"+KEY={inserted}\n") == f"+KEY={REDACTED}x{REDACTED}\n"
    middle = API_KEY[10:24]
    assert redact(f"({middle})") == f"({REDACTED})"


def test_the_public_head_and_short_pieces_are_left_alone() -> None:
    """Example keys in the user's code share the head; seven characters are no key."""
    key = "sk-proj-" + "Xq7Lm2Rt9Vb4Nc8Kd1Pw6Hy3Zf5Gj0Ts2Ae7"
    redact = Redactor([key])
    assert redact("use a key like sk-proj-EXAMPLE") == "use a key like sk-proj-EXAMPLE"
    assert redact(f"ends {key[-7:]}") == f"ends {key[-7:]}"
    assert redact(f"cut at {key[:12]}") == f"cut at {REDACTED}"
    assert redact("ordinary text, SECRET or not") == "ordinary text, SECRET or not"


def test_a_secret_made_of_words_is_not_taken_for_a_public_head() -> None:
    redact = Redactor(["my-secret-token-value"])
    assert redact("leaked: my-secret-token-") == f"leaked: {REDACTED}"


def test_redacting_a_megabyte_stays_fast_and_linear() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    keys = ["sk-proj-" + "".join(rng.choice(alphabet + "-_") for _ in range(156)),
            "sk-ant-api03-" + "".join(rng.choice(alphabet) for _ in range(95))]
    redact = Redactor(keys)
    code = Path(__file__).read_text()
    texts = {
        "code": (code * (1_000_000 // len(code) + 1))[:1_000_000],
        "random": "".join(rng.choice(alphabet) for _ in range(1_000_000)),
        "broken keys": (keys[0][:60] + "x" + keys[0][60:] + "\n") * 6000,
    }
    # CPU time, not the clock: what the redactor costs, whatever else the machine runs.
    for name, text in texts.items():
        started = time.process_time()
        out = redact(text)
        assert time.process_time() - started < 1.0, name
        assert not pieces(keys[0], out, 12)
    repetitive = Redactor(["a" * 40 + "b"])
    started = time.process_time()
    assert repetitive("a" * 1_000_000) == REDACTED
    assert time.process_time() - started < 2.0


# --- through the loop: no piece of the key reaches the model, the screen or the file -----------


async def test_no_piece_of_a_key_survives_a_cut_or_an_edit(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / ".env").write_text(f"OPENAI_API_KEY={API_KEY}\n")
    # The key straddles bash's head cut (15,000 bytes) and grep's line cut (300 bytes).
    (workspace / "flood.txt").write_text("x" * 14_990 + API_KEY + "y" * 40_000 + "\n")
    (workspace / "long.txt").write_text("z" * 283 + API_KEY + "\n")
    edit = {"path": ".env", "old_string": "SECRET", "new_string": "SE-CRET"}
    openai_only.reply("", [
        ("b", "bash", '{"command": "cat flood.txt"}'),
        ("g", "grep", '{"pattern": "zzz", "path": "long.txt"}'),
        ("e", "edit_file", json.dumps(edit)),
    ])
    openai_only.reply("Done.")
    recorder = Recorder()
    store = SessionStore.create(workspace, provider="openai", model="m")
    loop = AgentLoop(openai_only.provider(), workspace, sink=recorder, approval="full-auto",
                     session=store, secrets=Secrets(keys=[API_KEY]))
    await loop.run("look around")
    store.close()

    results = openai_only.tool_results(2)
    assert "bytes of output cut" in results["b"] and results["g"].startswith("long.txt:1:zzz")
    edited = API_KEY.replace("SECRET", "SE-CRET")
    assert (workspace / ".env").read_text() == f"OPENAI_API_KEY={edited}\n"
    for text in (
        json.dumps([request.json for request in openai_only.server.requests]),
        json.dumps([event.model_dump(mode="json") for event in recorder.events]),
        store.path.read_text(),
    ):
        assert not pieces(API_KEY, text)


async def test_every_tool_result_is_capped_with_a_count_of_what_was_left_out(
    tmp_path: Path,
) -> None:
    (tmp_path / "many.txt").write_text("value = 1\n" * 200_000)
    tool = default_tools().get("edit_file")
    assert tool is not None
    args = tool.args_model(path="many.txt", old_string="value = 1", new_string="value = 2",
                           replace_all=True)
    started = time.process_time()  # the edit's own CPU time (its thread is ours)
    out = await tool.run(args, Workspace(tmp_path))
    assert time.process_time() - started < 10
    assert (tmp_path / "many.txt").read_text() == "value = 2\n" * 200_000
    assert out.text.startswith("edited many.txt (200000 replacements)\n--- a/many.txt")
    for text in (out.text, out.diff):
        assert text is not None and len(text) < RESULT_CAP + 100
        assert text.splitlines()[-1].endswith("characters) not shown]")
        assert " more lines (" in text.splitlines()[-1]


@pytest.mark.parametrize("changed", [{100, 900}, set(range(0, 10_000, 2))])
def test_diffs_of_any_size_apply_with_patch(tmp_path: Path, changed: set[int]) -> None:
    """Small changes get difflib's minimal hunks renumbered for the whole file; a change
    too large for difflib becomes one block. Both are diffs ``patch`` applies exactly."""
    before = "".join(f"line {n}\n" for n in range(10_000))
    after = "".join(f"LINE {n}\n" if n in changed else f"line {n}\n" for n in range(10_000))
    (tmp_path / "f.txt").write_text(before)
    started = time.process_time()
    diff = unified_diff("f.txt", before, after)
    assert time.process_time() - started < 2
    subprocess.run(["patch", "-s", str(tmp_path / "f.txt")], input=diff, text=True, check=True)
    assert (tmp_path / "f.txt").read_text() == after


# --- AGENTS.md ------------------------------------------------------------------------------------


def prompt_in_time(root: Path, **options: object) -> str:
    async def build() -> str:
        return await asyncio.wait_for(asyncio.to_thread(build_system_prompt, root, **options), PATIENCE)

    return asyncio.run(build())


def test_agents_md_through_a_symlink_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "private.md").write_text("PRIVATE NOTES\n")
    (root / "AGENTS.md").symlink_to(tmp_path / "private.md")
    assert "PRIVATE NOTES" not in prompt_in_time(root)


def test_agents_md_that_is_a_fifo_does_not_hang_the_start(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    assert "Project instructions" not in prompt_in_time(tmp_path)


def test_agents_md_is_cut_and_scrubbed(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text(
        "Use this key: " + API_KEY + "\n" + "w" * (MAX_INSTRUCTIONS - 30) + API_KEY + "z" * 10**6
    )
    prompt = prompt_in_time(tmp_path, secrets=Secrets(keys=[API_KEY]))
    assert f"Use this key: {REDACTED}" in prompt
    assert prompt.endswith(f"[… cut at {MAX_INSTRUCTIONS} characters]")
    assert not pieces(API_KEY, prompt)
    assert len(prompt) < MAX_INSTRUCTIONS + 2000


@pytest.mark.parametrize("size", [0, 1])
def test_a_user_agents_md_that_is_not_a_file_is_skipped(
    tmp_path: Path, isolated_dirs: Path, size: int
) -> None:
    user = isolated_dirs / "config" / "neocode"
    user.mkdir(parents=True, exist_ok=True)
    if size:
        os.mkfifo(user / "AGENTS.md")
    else:
        (user / "AGENTS.md").mkdir()
    assert "The user's instructions" not in prompt_in_time(tmp_path)
