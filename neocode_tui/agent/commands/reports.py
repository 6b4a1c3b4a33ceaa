"""``/context`` and ``/cost`` in words: plain text any front end can show."""

from __future__ import annotations

from importlib.metadata import version
from typing import TYPE_CHECKING

from neocode_tui.agent.context import about, format_cost
from neocode_tui.events import Usage

if TYPE_CHECKING:
    from neocode_tui.agent.commands.host import CommandHost


def _share(tokens: int, window: int | None) -> str:
    return f"{tokens / window:6.1%}" if window else "      "


def context_report(session: CommandHost) -> str:
    figure, window = session.meter.context, session.meter.context_window
    how = "estimated from the text" if figure.estimated else "as the server counted the last request"
    if window:
        head = f"context: {figure.tokens:,} of {window:,} tokens ({figure.tokens / window:.0%}), {how}"
    else:
        head = (f"context: {figure.tokens:,} tokens, {how}; the window of {session.model} is "
                f"unknown, so {session.meter.working_window:,} tokens are assumed (set "
                "NEOCODE_CONTEXT_WINDOW to the real one)")
    lines = [head, ""]
    for part in session.meter.context_parts():
        lines.append(f"  {part.name:<24}{about(part.tokens):>9}  {_share(part.tokens, window)}")
    if left_out := session.meter.sent_from:
        lines.append(f"  {'left out (too long)':<24}{left_out:>9,}  of {len(session.messages):,} "
                     "messages: the oldest, kept on screen and in the session file")
    threshold = session.settings.compact_threshold
    lines += ["", f"The parts are estimates (about 4 characters a token). Past {threshold:.0%} "
              "the older history is summarised before the next request; /compact does it now."]
    return "\n".join(lines)


def _usage(usage: Usage) -> str:
    cached = f" ({usage.cached_input_tokens:,} cached)" if usage.cached_input_tokens else ""
    return f"↑{usage.input_tokens or 0:,}{cached} ↓{usage.output_tokens or 0:,}"


def cache_line(usage: Usage) -> str:
    """"cache: 83% of input tokens read from the cache (…), … written to it"."""
    read, written = usage.cached_input_tokens or 0, usage.cache_creation_input_tokens or 0
    rate = read / usage.input_tokens if usage.input_tokens else 0.0
    line = f"cache: {rate:.0%} of input tokens read from the server's cache ({read:,} of {usage.input_tokens or 0:,})"
    return line + (f", {written:,} written to it" if written else "")


def cost_report(session: CommandHost) -> str:
    entries = session.meter.costs
    counted = sum((entry.usage for entry in entries), Usage())
    earlier = (session.usage.input_tokens or 0) - (counted.input_tokens or 0)
    if not entries and earlier <= 0:
        return "\n\n".join(["cost: no requests yet in this session",
                            "\n".join(session.rate_limits.report())]).strip()
    lines = ["cost of this session's requests, per model:", ""]
    names = {id(entry): entry.model + (" (side work)" if entry.side else "") for entry in entries}
    width = max((len(name) for name in names.values()), default=0)
    for entry in entries:
        requests = f"{entry.requests} request{'s' * (entry.requests != 1)}"
        lines.append(f"  {names[id(entry)]:<{width}}  {requests:<12}  {_usage(entry.usage):<28}  "
                     f"{format_cost(entry.cost)}")
    lines += ["", f"  total: {format_cost(session.meter.cost)}", f"  {cache_line(counted)}"]
    if any(entry.side for entry in entries):
        lines.append("  side work: titles and summaries by the small model (small_model)")
    if earlier > 0:
        lines.append(f"  before this session was resumed: ↑{earlier:,} tokens (no model recorded, no price)")
    if any(entry.cost is None for entry in entries):
        lines.append("  – : no known price for this model (local or unlisted), so no dollar figure")
    lines.append(f"  prices: genai-prices {version('genai-prices')}")
    if limits := session.rate_limits.report():
        lines += ["", *limits]
    return "\n".join(lines)
