"""Input tokens billed at full price over a scripted twenty-request session, with Anthropic
``cache_control`` breakpoints and without (as before they were sent), priced with
genai-prices.

The session is the real one: ``AgentSession`` runs four prompts, each with four tool turns
(``read_file`` on a ~6 KB file) and an answer, against a scripted model; every request it
makes is turned into the Messages API body the Anthropic provider would send. The server's
cache is simulated as Anthropic documents it: a prompt is cached only up to a marked block,
a marked prefix seen before is read from the cache (at 10 % of the input price here), a new
one is written (at 125 %), and without marks nothing is cached. Tokens are estimated at
four characters each, the same for both runs, so the ratio is what counts.

    .venv/bin/python bench/bench_prompt_cache.py
    .venv/bin/python bench/bench_prompt_cache.py --model claude-haiku-4-5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

PROMPTS = 4
TOOL_TURNS = 4
FILE_LINES = 150


def script(request: Any) -> Any:
    """A model that reads a file per turn, four times, then answers."""
    from neocode_tui.providers.scripted import scripted_reply

    done = sum(1 for message in request.messages if message.role == "tool")
    asked = sum(1 for message in request.messages if message.role == "user")
    if done < asked * TOOL_TURNS:
        path = f"src/module_{done}.py"
        return scripted_reply(f"Reading {path}.", [("read_file", json.dumps({"path": path}))],
                              call_id_prefix=f"call_{done}_")
    return scripted_reply(f"Answer {asked}: the modules agree on the interface.")


async def recorded_requests(workspace: Path) -> list[Any]:
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.providers.scripted import ScriptedProvider
    from neocode_tui.settings.model import Settings

    provider = ScriptedProvider(script, model="bench")
    session = AgentSession(Settings(provider="anthropic", approval="full-auto", sandbox="off"),
                           workspace, provider=provider, save=False)
    for number in range(PROMPTS):
        await session.prompt(f"question {number}: how do the modules fit together?")
    await session.aclose()
    return provider.requests


def blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The prompt as the cache sees it: each block's bytes (marks taken out) and whether it
    is marked, tools first, then the system prompt, then the messages."""
    out = []
    system = body.get("system", [])
    system = system if isinstance(system, list) else [{"type": "text", "text": system}]
    listed = [*body.get("tools", []), *system]
    listed += [dict(block, role=message["role"]) for message in body["messages"] for block in message["content"]]
    for block in listed:
        marked = "cache_control" in block
        plain = {key: value for key, value in block.items() if key != "cache_control"}
        out.append((json.dumps(plain, sort_keys=True), marked))
    return out


def simulate(bodies: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """Per request: (uncached, read from the cache, written to it) input tokens."""
    cached: set[tuple[str, ...]] = set()
    counts = []
    for body in bodies:
        parts = blocks(body)
        sizes = [len(text) // 4 + 1 for text, _ in parts]
        marks = [index for index, (_, marked) in enumerate(parts) if marked]
        hit = max((index + 1 for index in marks if tuple(t for t, _ in parts[: index + 1]) in cached),
                  default=0)
        end = (marks[-1] + 1) if marks else 0
        counts.append((sum(sizes[end:]), sum(sizes[:hit]), sum(sizes[hit:end])))
        for index in marks:
            cached.add(tuple(text for text, _ in parts[: index + 1]))
    return counts


def price(model: str, counts: list[tuple[int, int, int]]) -> Decimal:
    """The input's dollars, request by request (long prompts may cost more per token)."""
    import genai_prices

    from neocode_tui.agent.context import find_model

    found = find_model(model)
    assert found is not None, f"genai-prices has no price for {model}"
    provider, info = found
    total = Decimal(0)
    for fresh, read, written in counts:
        usage = genai_prices.Usage(input_tokens=fresh + read + written, cache_read_tokens=read,
                                   cache_write_tokens=written)
        total += info.calc_price(usage, provider).total_price
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="claude-sonnet-4-5")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ["NEOCODE_CONFIG_DIR"] = str(root / "config")
        os.environ["NEOCODE_DATA_DIR"] = str(root / "data")
        workspace = root / "ws"
        (workspace / "src").mkdir(parents=True)
        for number in range(PROMPTS * TOOL_TURNS):
            lines = [f"def handler_{number}_{i}(value):  # step {i} of module {number}\n    return value + {i}\n"
                     for i in range(FILE_LINES // 2)]
            (workspace / "src" / f"module_{number}.py").write_text("".join(lines))
        requests = asyncio.run(recorded_requests(workspace))

    from neocode_tui.providers.anthropic import request_body

    print(f"{len(requests)} requests, {args.model}, prices: genai-prices")
    results = {}
    for label, cache in (("before (no breakpoints)", False), ("after (breakpoints)", True)):
        bodies = [request_body(request, cache=cache) for request in requests]
        counts = simulate(bodies)
        fresh, read, written = (sum(column) for column in zip(*counts, strict=True))
        results[label] = (fresh + written, price(args.model, counts))
        print(f"  {label:<24} uncached {fresh:>8,}  cache written {written:>7,}  cache read {read:>8,}"
              f"  -> at full price or more {fresh + written:>8,}  input ${results[label][1]:.4f}")
    (before, before_cost), (after, after_cost) = results.values()
    print(f"  input tokens billed at full price (or the 125 % write price): {after / before:.1%} of "
          f"before; input cost {after_cost / before_cost:.1%} of before")


if __name__ == "__main__":
    main()
