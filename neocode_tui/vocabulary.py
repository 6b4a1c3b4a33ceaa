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
MODE_NOTICES: dict[ApprovalMode, str] = {
    "ask": "mode: ask (every file change and command asks first)",
    "auto-edit": "mode: auto-edit (file changes run, commands ask)",
    "full-auto": "mode: full-auto (nothing asks)",
    "plan": "mode: plan (the agent reads and proposes a plan; it changes nothing until you leave "
    "plan mode with Shift+Tab)",
}
"""What a front end says when the mode changes to each."""

ProviderName = Literal["openai", "anthropic", "scripted"]
"""``openai`` is any OpenAI-compatible server; ``scripted`` is the built-in offline model."""
PROVIDER_NAMES: tuple[ProviderName, ...] = get_args(ProviderName)

DialectName = Literal["openai", "anthropic"]
"""The two wire formats a provider or a recording speaks."""
DIALECT_NAMES: tuple[DialectName, ...] = get_args(DialectName)

NoticeLevel = Literal["info", "warning", "error"]
"""How much a notice to the user matters: every front end shows the three apart."""

SESSION_ID_CHARACTERS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz-")
"""What a session id (``20261130-081512-a1b2c3``) is made of: anything else is not one."""
SandboxMode = Literal["workspace-write", "read-only", "off"]
"""Where a command may write: the workspace (and a private /tmp), nowhere, or anywhere the
user may (no sandbox)."""
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
