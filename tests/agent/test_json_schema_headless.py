"""``neocode -p --json-schema`` against a hostile schema: a real subprocess, the scripted
model over real HTTP, a real server a schema points at, real signals."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

from neocode_tui.cli.structured import CHECK_SECONDS
from tests.support.dialects import Dialect
from tests.support.headless import run, start
from tests.support.model_server import ModelServer, json_response
from tests.support.waits import PATIENCE

BACKTRACKING = {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string", "pattern": "^(a+)+$"}}}
HOSTILE_ANSWER = json.dumps({"name": "a" * 40 + "!"})


async def test_a_schema_reference_outside_the_schema_is_neither_fetched_nor_read(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"type": "string"}))
    async with ModelServer() as host:
        host.enqueue(*[json_response(200, {"type": "string"})] * 3)
        schemas = {
            f"{host.url}/direct.json": {"properties": {"a": {"$ref": f"{host.url}/direct.json"}}},
            f"{host.url}/other.json": {"$id": f"{host.url}/root.json", "$ref": "other.json#/a"},
            elsewhere.as_uri(): {"$ref": elsewhere.as_uri()},
        }
        for target, schema in schemas.items():
            path = tmp_path / "schema.json"
            path.write_text(json.dumps(schema))
            openai_only.reply('{"a": 1}')
            openai_only.reply('{"a": 1}')

            result = await run(openai_only, workspace, "--json-schema", str(path))

            assert result.code == 2, (target, result.err)
            assert f"it refers to {target!r}, which is not in it" in result.err
            assert "Traceback" not in result.err
        assert host.requests == []  # nothing was fetched


async def test_sigterm_ends_a_run_stuck_checking_a_backtracking_pattern(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(BACKTRACKING))
    openai_only.reply(HOSTILE_ANSWER)
    process = await start(openai_only, workspace, "-p", "go", "--json-schema", str(path),
                          "--output-format", "stream-json")
    try:
        assert process.stdout is not None
        while True:  # the run is over and its answer is being checked
            line = await asyncio.wait_for(process.stdout.readline(), PATIENCE)
            assert line, "the run ended before its answer was checked"
            if json.loads(line)["type"] == "run_finished":
                break

        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 5)

        assert code == 143
        assert process.stderr is not None
        err = (await process.stderr.read()).decode()
        assert "stopped by SIGTERM while the answer was checked against --json-schema" in err
        assert "Traceback" not in err
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_backtracking_pattern_ends_the_run_at_the_deadline_without_asking_again(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(BACKTRACKING))
    openai_only.reply(HOSTILE_ANSWER)
    openai_only.reply(HOSTILE_ANSWER)

    process = await start(openai_only, workspace, "-p", "go", "--json-schema", str(path))
    try:
        _, err = await asyncio.wait_for(process.communicate(), CHECK_SECONDS + PATIENCE)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

    assert process.returncode == 4, err
    assert f"checking it took longer than {CHECK_SECONDS:g} s" in err.decode()
    assert len(openai_only.server.requests) == 1  # the model cannot fix a slow schema


async def test_the_check_imports_no_module_of_the_workspace(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "imported"
    for module in ("referencing", "jsonschema", "resource"):
        (workspace / f"{module}.py").write_text(f"open({str(marker)!r}, 'a').write({module!r})\n")
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"type": "object"}))
    openai_only.reply('{"a": 1}')

    result = await run(openai_only, workspace, "--json-schema", str(path), "--output-format", "json")

    assert result.code == 0, result.err
    assert json.loads(result.out)["structured_output"] == {"a": 1}
    assert not marker.exists()
