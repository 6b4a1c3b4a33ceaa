"""The words a user picks from, defined once: approval modes and provider names.

Flags, settings, slash commands, completion and ACP all list their choices from here.
"""

from __future__ import annotations

from typing import Literal, get_args

ApprovalMode = Literal["ask", "auto-edit", "full-auto", "plan"]
"""What needs the user's yes: ``ask`` every write and command, ``auto-edit`` commands only,
``full-auto`` nothing. Reads never ask. ``plan`` runs reads only: the model explores and
proposes a plan, and carries it out once the user leaves plan mode. Shift+Tab cycles them
in this order."""
APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)
MODE_DESCRIPTIONS: dict[ApprovalMode, str] = {
    "ask": "every file change and command asks first",
    "auto-edit": "file changes and sandboxed commands run; commands outside the sandbox ask",
    "full-auto": "nothing asks, not even a command outside the sandbox",
    "plan": "the agent only reads, then hands you a plan; nothing changes until you approve it",
}
"""What each mode means to the user, in the words every place that explains it uses: the
notice when the mode changes, ``--approval``'s help, the modes an editor offers over ACP, and
docs/permissions.md (a test holds them to these). Without a working sandbox no command is a
sandboxed one, so ``auto-edit`` asks for every command, as it says."""

PERMISSION_MODES: dict[ApprovalMode, str] = {
    "ask": "default", "auto-edit": "acceptEdits", "full-auto": "bypassPermissions", "plan": "plan",
}
"""Each mode by Claude Code's name for it, for the programs written for Claude Code that are
told the mode (hooks, status-line commands)."""


def mode_notice(mode: ApprovalMode) -> str:
    """What a front end says when the mode changes to ``mode``."""
    return f"mode: {mode} ({MODE_DESCRIPTIONS[mode]})"

ProviderName = Literal["openai", "anthropic", "scripted"]
"""``openai`` is any OpenAI-compatible server; ``scripted`` is the built-in offline model."""
PROVIDER_NAMES: tuple[ProviderName, ...] = get_args(ProviderName)
OFFLINE_PROVIDER: ProviderName = "scripted"


def is_offline(provider: str) -> bool:
    """The one rule for the built-in offline model: it is what runs exactly when the provider
    is ``scripted``, named (``--provider scripted``) or fallen back to (no key, no provider
    named). It is a tour for someone watching the app, so ``-p`` and ACP refuse it when
    it was only fallen back to (``Settings.fell_back_offline``)."""
    return provider == OFFLINE_PROVIDER


DialectName = Literal["openai", "anthropic"]
"""The two wire formats a provider or a recording speaks."""
DIALECT_NAMES: tuple[DialectName, ...] = get_args(DialectName)

CUT_SHORT = {
    "length": "the answer was cut off at the model's output token limit",
    "content_filter": "the answer was stopped by the provider's content filter",
}
"""The finish reasons that end an answer before the model did, and what the user is told
(live, and again where a resumed session's answer was cut)."""

NoticeLevel = Literal["info", "warning", "error"]
"""How much a notice to the user matters: every front end shows the three apart."""

SESSION_ID_CHARACTERS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz-")
"""What a session id (``20261130-081512-a1b2c3``) is made of: anything else is not one."""
SandboxMode = Literal["workspace-write", "read-only", "off"]
"""Where a command may write: the workspace (and a private /tmp), nowhere, or anywhere the
user may (no sandbox)."""
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
Effort = Literal["low", "medium", "high"]
"""How hard a reasoning model thinks before it answers (unset: the server's default)."""
EFFORTS: tuple[Effort, ...] = get_args(Effort)
