"""``isolation: worktree``: a subagent run in a git worktree of its own, so its edits never
meet the parent's or another child's; what it changed stays on its branch, and the task's
result says where."""

from __future__ import annotations

from neocode_tui.agent.tools import ToolError
from neocode_tui.agent.workspace import Workspace
from neocode_tui.agent.worktrees import Worktree, WorktreeError, changes, finish, make_worktree


async def child_worktree(parent: Workspace, agent: str, call_id: str) -> tuple[Worktree, Workspace]:
    """A new worktree of the parent's repository for one ``task`` call, and the child's
    workspace in it (the parent's deny rules hold there too)."""
    name = "agent-" + "".join(ch for ch in call_id if ch.isalnum())[-12:].lower()
    try:
        tree = await make_worktree(parent.root, name)
    except WorktreeError as exc:
        raise ToolError(f"not run: the {agent} agent works in a git worktree of its own, and {exc}") from exc
    workspace = Workspace(tree.path)
    workspace.hidden = parent.hidden
    return tree, workspace


async def worktree_words(tree: Worktree) -> str:
    """What became of the child's worktree, for the task's result: kept with what it holds,
    or removed because nothing changed."""
    changed = await changes(tree)
    if not changed:
        return (await finish(tree)).replace("worktree", "its worktree", 1)
    return (f"its changes are kept in the worktree {tree.path} on branch {tree.branch} ({changed}): "
            f"review them there, or merge the branch")
