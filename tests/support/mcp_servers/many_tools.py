"""A stdio MCP server that lists far too much, speaking the 2025-11-25 protocol by hand (the
revision whose tools may say ``execution.taskSupport``; the SDK's server speaks a later one,
without tasks). ``python many_tools.py [COUNT]`` lists, in pages of 1,000: ``ping``; a tool
that runs only as an MCP task; one with a 60,000-character description; one with a
40,000-character input schema; then COUNT generated tools (5,000 by default, about 2 MB of
definitions). Only ``ping`` can be called."""

import json
import sys
from typing import Any

VERSION = "2025-11-25"
COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000
PAGE = 1_000
ABOUT = "A generated tool that does nothing useful. " * 7
SCHEMA = {"type": "object", "properties": {"value": {"type": "string", "description": "any text"}}}
WIDE = {"type": "object", "properties": {f"field_{n}": {"type": "string"} for n in range(1_200)}}
TOOLS: list[dict[str, Any]] = [
    {"name": "ping", "description": "Answers pong.", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True}},
    {"name": "slow_job", "description": "Runs for hours, as an MCP task.", "inputSchema": SCHEMA,
     "execution": {"taskSupport": "required"}},
    {"name": "wordy", "description": "w" * 60_000, "inputSchema": SCHEMA},
    {"name": "wide", "description": "Too many fields.", "inputSchema": WIDE},
    *({"name": f"tool_{n:04d}", "description": f"{n}: {ABOUT}", "inputSchema": SCHEMA}
      for n in range(COUNT)),
]


def answer(request: dict[str, Any]) -> dict[str, Any]:
    method, params = request["method"], request.get("params") or {}
    if method == "initialize":
        return {"result": {"protocolVersion": VERSION, "capabilities": {"tools": {}},
                           "serverInfo": {"name": "many", "version": "1"}}}
    if method == "tools/list":
        start = int(params.get("cursor") or 0)
        page: dict[str, Any] = {"tools": TOOLS[start:start + PAGE]}
        if start + PAGE < len(TOOLS):
            page["nextCursor"] = str(start + PAGE)
        return {"result": page}
    if method == "tools/call" and params.get("name") == "ping":
        return {"result": {"content": [{"type": "text", "text": "pong"}], "isError": False}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"{method} is not supported here"}}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if "id" in request and "method" in request:  # notifications need no answer
            reply = {"jsonrpc": "2.0", "id": request["id"], **answer(request)}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
