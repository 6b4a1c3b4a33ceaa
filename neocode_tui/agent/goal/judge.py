"""The judging request: a small one to the small model (else the main one), asking whether
the goal's condition holds on the evidence, answered as ``{"met": ..., "reason": ...}``."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Protocol

from neocode_tui.agent.context import Budget, Meter, estimate_tokens
from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import ErrorInfo, Usage
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers import Provider
from neocode_tui.terminal_text import without_controls

JUDGE = "goal"
"""Who the budget holds the judging request's estimate for."""
JUDGE_TOKENS = 300
JUDGE_INSTRUCTION = (
    "You judge whether a coding agent has reached its goal. You get the goal's condition and "
    "the evidence of the agent's latest turn: the commands it ran with the end of their "
    "output, the files it changed and its last words. Judge by the evidence alone: a claim "
    "without a command's output that shows it (tests not run, a build not tried) does not "
    "count. Answer with one JSON object and nothing else: "
    '{"met": true or false, "reason": "one short sentence: what shows it, or what is still missing"}'
)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Verdict:
    met: bool
    reason: str


class JudgeHost(Protocol):
    """Where the judging request goes and is counted: the session's side work."""

    def provider(self) -> Provider: ...

    def count(self, usage: Usage | None) -> None: ...


async def ask_judge(
    side: JudgeHost, budget: Budget, meter: Meter, secrets: Secrets, condition: str, evidence: str,
) -> Verdict | ErrorInfo:
    """The verdict on ``condition``; an ``ErrorInfo`` when it could not be asked (the
    budget, a failed request)."""
    prompt = f"The goal's condition:\n{condition}\n\nThe evidence:\n{evidence}"
    provider = side.provider()
    tokens = estimate_tokens(JUDGE_INSTRUCTION + prompt)
    refused = await budget.admit(JUDGE, lambda: meter.cost_of(tokens, JUDGE_TOKENS, provider.model))
    if refused is not None:
        return refused
    request = ChatRequest(model=provider.model, system=JUDGE_INSTRUCTION,
                          messages=[Message(role="user", content=prompt)], max_tokens=JUDGE_TOKENS)
    try:
        turn = await collect(secrets.stream(provider.stream(request)))
    except asyncio.CancelledError:
        budget.counted(False, JUDGE)
        raise
    side.count(turn.usage)
    budget.counted(turn.usage is not None, JUDGE)
    if not turn.ok:
        assert turn.error is not None
        return turn.error
    return verdict_of(turn.text)


def verdict_of(text: str) -> Verdict:
    """The judge's answer read leniently (a fenced or chatty object); one that cannot be read
    is "not met", saying so, so the agent goes on and the turn limit bounds it."""
    found = _OBJECT.search(text)
    try:
        parsed = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("met"), bool):
        return Verdict(False, "the judge's answer could not be read; keep working and show the evidence")
    reason = parsed.get("reason")
    said = " ".join(without_controls(reason).split())[:400] if isinstance(reason, str) else ""
    return Verdict(parsed["met"], said or ("the condition holds" if parsed["met"] else "not shown yet"))
