"""``task`` in ``neocode -p``: the child's events on stream-json, marked with the parent call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.dialects import Dialect
from tests.support.headless import neocode


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


async def test_stream_json_carries_the_childs_events_marked_with_the_parent_call(
    dialect: Dialect, workspace: Path
) -> None:
    arguments = json.dumps({"description": "look around", "prompt": "what files are here?"})
    dialect.reply("", [("t1", "task", arguments)])
    dialect.reply("", [("c1", "list_dir", "{}")])
    dialect.reply("Only app.py.")
    dialect.reply("The folder holds app.py.")

    result = await neocode(dialect, workspace, "-p", "survey", "--output-format", "stream-json")

    assert result.code == 0, result.err
    lines = [json.loads(line) for line in result.out.splitlines()[1:]]
    child = [line for line in lines if line.get("parent_tool_use_id") == "t1"]
    assert {line["agent"] for line in child} == {"explore"}
    assert any(line["type"] == "tool_started" and line["name"] == "list_dir" for line in child)
    text = "".join(line["event"]["text"] for line in child
                   if line["type"] == "stream" and line["event"]["type"] == "text_delta")
    assert text == "Only app.py."
    [finished] = [line for line in lines if line["type"] == "tool_finished" and line["call_id"] == "t1"]
    assert finished["result"].startswith("Only app.py.") and "parent_tool_use_id" not in finished
    assert lines[-1]["type"] == "run_finished" and lines[-1]["final_text"] == "The folder holds app.py."
    assert lines[-1]["usage"]["input_tokens"] == 40
