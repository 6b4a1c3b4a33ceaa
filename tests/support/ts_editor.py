"""The editor on the official TypeScript ACP SDK (tests/node/acp_editor.mjs) as a
subprocess the ACP tests drive: its JSON lines, read as they come."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.support.headless import NEOCODE
from tests.support.waits import PATIENCE

EDITOR = Path(__file__).resolve().parents[1] / "node" / "acp_editor.mjs"


class TsEditor:
    """The Node editor as a subprocess: its JSON lines, read as they come."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[dict[str, Any]] = []

    async def until(self, kind: str, wanted: Any = None) -> dict[str, Any]:
        """Reads lines until one of ``kind`` (and ``wanted``); a failed editor fails the
        test with its error."""
        assert self.process.stdout is not None
        async with asyncio.timeout(PATIENCE):
            while True:
                raw = await self.process.stdout.readline()
                assert raw, f"the editor ended early: {self.lines[-1:]}"
                line = json.loads(raw)
                self.lines.append(line)
                assert line["kind"] != "failed", line["error"]
                if line["kind"] == kind and (wanted is None or wanted(line)):
                    return line

    def updates(self, kind: str) -> list[dict[str, Any]]:
        return [line["update"] for line in self.lines
                if line["kind"] == "update" and line["update"]["sessionUpdate"] == kind]


async def run_editor(tmp: Path, env: dict[str, str], **script: Any) -> TsEditor:
    path = tmp / f"script-{len(list(tmp.glob('script-*')))}.json"
    path.write_text(json.dumps(script))
    process = await asyncio.create_subprocess_exec(
        "node", str(EDITOR), str(path), "--", NEOCODE, "acp", cwd=script["cwd"],
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", **env}, stdout=asyncio.subprocess.PIPE)
    return TsEditor(process)
