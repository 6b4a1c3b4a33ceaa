"""The words a user picks from, defined once: approval modes and provider names.

Flags, settings, slash commands, completion and ACP all list their choices from here.
"""

from __future__ import annotations

from typing import Literal, get_args

ApprovalMode = Literal["ask", "auto-edit", "full-auto"]
"""What needs the user's yes: ``ask`` every write and command, ``auto-edit`` commands only,
``full-auto`` nothing. Reads never ask."""
APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)

ProviderName = Literal["openai", "anthropic", "scripted"]
"""``openai`` is any OpenAI-compatible server; ``scripted`` is the built-in offline model."""
PROVIDER_NAMES: tuple[ProviderName, ...] = get_args(ProviderName)

DialectName = Literal["openai", "anthropic"]
"""The two wire formats a provider or a recording speaks."""
DIALECT_NAMES: tuple[DialectName, ...] = get_args(DialectName)

SandboxMode = Literal["workspace-write", "read-only", "off"]
"""Where a command may write: the workspace (and a private /tmp), nowhere, or anywhere the
user may (no sandbox)."""
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
