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

Which writes are protected is decided here once (``always_asks``), on the paths as the call
names them, every link on the way, where they lead, and what the root's protected entries
lead to (``neocode_tui.protected_files``); it reads the disk, so it runs in a thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from neocode_tui.agent.tools import Confinement, ToolKind
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import LinkTargets, link_targets, protected_path, protected_way
from neocode_tui.vocabulary import ApprovalMode


def _protected(path: Path, root: Path, targets: LinkTargets) -> bool:
    """Whether writing the resolved ``path`` (inside ``root``, or an added folder, whose
    every component is then looked at) must always be approved; ``targets``: what the
    root's protected entries lead to."""
    if path.is_relative_to(config_dir().resolve()) or protected_path(root, path):
        return True
    return targets.reach(path)


def always_asks(writes: Iterable[Path], root: Path, named: Iterable[str] = ()) -> bool:
    """Whether a call writing the resolved ``writes``, named ``named`` by its arguments,
    writes a protected file; reads folders, so call it in a thread from async code."""
    if any(protected_way(root, name) for name in named):
        return True
    writes = list(writes)
    targets = link_targets(root) if writes else LinkTargets()
    return any(_protected(path, root, targets) for path in writes)


def needs_approval(
    kind: ToolKind,
    mode: ApprovalMode,
    writes: Iterable[Path] = (),
    *,
    root: Path,
    allowed_for_session: bool = False,
    confinement: Confinement = "none",
    named: Iterable[str] = (),
) -> bool:
    """Reads never ask; ``auto-edit`` asks for unsandboxed commands only; ``full-auto``
    asks for nothing; a tool allowed for the session stops asking. A write to a protected
    path, or leaving the sandbox (see the module), asks in every mode but ``full-auto``."""
    if mode == "full-auto":
        return False
    if confinement == "escape" or always_asks(writes, root, named):
        return True
    if kind == "read" or allowed_for_session:
        return False
    return mode == "ask" or (kind == "command" and confinement != "sandboxed")


def refusal_without_approver(
    name: str, writes: Iterable[Path] = (), root: Path | None = None,
    confinement: Confinement = "none", kind: ToolKind = "edit", named: Iterable[str] = (),
) -> str:
    """The result a headless run sends when nobody is there to ask: it names the mode that
    would have let the call run."""
    asks = confinement == "escape" or (root is not None and always_asks(writes, root, named))
    unconfined_command = kind == "command" and confinement == "none"
    option = "full-auto" if unconfined_command or asks else "auto-edit or full-auto"
    return (
        f"not run: {name} needs approval and nobody can approve it in this run "
        f"(rerun with --approval {option})"
    )
