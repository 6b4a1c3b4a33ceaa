"""Who must say yes before a tool runs: the approval mode, per-session allowances, and the
paths that always ask.

Some files turn a write into a command run later: the workspace's protected files
(``neocode_tui.protected_files``: git's hooks and config, ``.mcp.json``, ``.neocode/``,
``.claude/``, ``.agents/``, ``AGENTS.md``, ``.env*``, ``.envrc``) and the user's config
folder. So a write to any of them asks in every mode short of ``full-auto``, even with the
tool allowed for the session: ``auto-edit`` would otherwise be ``full-auto`` by the back door.

The sandbox changes what a command can do, so it changes what it asks: a sandboxed command
is like a file edit (``auto-edit`` runs it, ``ask`` asks), and a call to run one outside
the sandbox asks in every mode short of ``full-auto``, even with the tool allowed for the
session. Without a sandbox (off, or unavailable) a command asks as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

from neocode_tui.agent.tools import Confinement, ToolKind
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import is_protected
from neocode_tui.vocabulary import ApprovalMode


def protected(path: Path, root: Path) -> bool:
    """Whether writing the resolved ``path`` (inside ``root``, or an added folder, whose
    every component is then looked at) must always be approved."""
    relative = path.relative_to(root) if path.is_relative_to(root) else PurePath(*path.parts[1:])
    return path.is_relative_to(config_dir().resolve()) or is_protected(relative)


def needs_approval(
    kind: ToolKind,
    mode: ApprovalMode,
    writes: Iterable[Path] = (),
    *,
    root: Path,
    allowed_for_session: bool = False,
    confinement: Confinement = "none",
) -> bool:
    """Reads never ask; ``auto-edit`` asks for unsandboxed commands only; ``full-auto``
    asks for nothing; a tool allowed for the session stops asking. A write to a protected
    path, or leaving the sandbox (see the module), asks in every mode but ``full-auto``."""
    if mode == "full-auto":
        return False
    if confinement == "escape" or any(protected(path, root) for path in writes):
        return True
    if kind == "read" or allowed_for_session:
        return False
    return mode == "ask" or (kind == "command" and confinement != "sandboxed")


def refusal_without_approver(
    name: str, writes: Iterable[Path] = (), root: Path | None = None,
    confinement: Confinement = "none", kind: ToolKind = "edit",
) -> str:
    """The result a headless run sends when nobody is there to ask: it names the mode that
    would have let the call run."""
    always_asks = confinement == "escape" or (
        root is not None and any(protected(path, root) for path in writes)
    )
    unconfined_command = kind == "command" and confinement == "none"
    option = "full-auto" if unconfined_command or always_asks else "auto-edit or full-auto"
    return (
        f"not run: {name} needs approval and nobody can approve it in this run "
        f"(rerun with --approval {option})"
    )
