"""Git worktrees NeoCode makes for a session (``neocode --worktree``) or a subagent
(``isolation: worktree``): Claude Code's layout with NeoCode's folder, a new branch
``worktree-NAME`` in ``<repository>/.neocode/worktrees/NAME``, made from ``HEAD``.

Every git call goes through ``run_git``, so the repository's hooks (``post-checkout``),
fsmonitor and pager never run: making or removing a worktree starts no program the
repository names. A worktree is removed only when git finds nothing in it that is not
committed and its branch has no commit of its own; otherwise it stays, and what is kept is
said."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from neocode_tui.agent.restore import run_git
from neocode_tui.errors import NeoCodeError
from neocode_tui.paths import WORKTREES as FOLDER
from neocode_tui.paths import worktree_project

BRANCH_PREFIX = "worktree-"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_WORDS = (
    ("bright", "quiet", "swift", "gentle", "bold", "calm", "clever", "eager", "keen", "lucky"),
    ("running", "jumping", "singing", "rolling", "flying", "humming", "dancing", "wading"),
    ("fox", "otter", "heron", "badger", "lynx", "wren", "marten", "hare", "newt", "owl"),
)


class WorktreeError(NeoCodeError):
    """A worktree that cannot be made as asked (bad usage: exit code 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Worktree:
    name: str
    path: Path
    branch: str
    base: str
    """The commit it was made from: commits after it are the worktree's own."""
    project: Path
    """The repository's top folder it was made in."""


def generated_name() -> str:
    """A name like ``bright-running-fox`` when none is given."""
    return "-".join(random.choice(words) for words in _WORDS)


async def make_worktree(folder: Path, name: str | None = None) -> Worktree:
    """A new worktree of the repository ``folder`` is in, on a new branch from its ``HEAD``."""
    if name is not None and not NAME.fullmatch(name):
        raise WorktreeError(f"{name!r} is not a worktree name: letters, digits, '.', '-' and '_', "
                            "at most 64, starting with a letter or digit")
    top = await run_git(None, folder, "rev-parse", "--path-format=absolute", "--show-toplevel")
    if not top or not top.strip():
        raise WorktreeError(f"a worktree needs a git repository, and {folder} is not in one "
                            "(or git is not installed)")
    project = Path(top.strip())
    base = (await run_git(None, project, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") or "").strip()
    if not base:
        raise WorktreeError("a worktree needs a commit to start from, and this repository has none yet")
    chosen = name or await _free_name(project)
    tree = Worktree(chosen, project / FOLDER / chosen, BRANCH_PREFIX + chosen, base, project)
    await _check_free(tree)
    _ignore_folder(project)
    made = await run_git(None, project, "worktree", "add", "--quiet", "-b", tree.branch, str(tree.path), base)
    if made is None:
        raise WorktreeError(f"git could not make the worktree {tree.path} on branch {tree.branch}")
    return tree


async def _free_name(project: Path) -> str:
    for _ in range(20):
        name = generated_name()
        if not (project / FOLDER / name).exists() and not await _branch_exists(project, BRANCH_PREFIX + name):
            return name
    return f"{generated_name()}-{random.randrange(10_000)}"


async def _branch_exists(project: Path, branch: str) -> bool:
    found = await run_git(None, project, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", ok=(0, 1))
    return bool(found and found.strip())


async def _check_free(tree: Worktree) -> None:
    if tree.path.exists() or tree.path.is_symlink():
        raise WorktreeError(f"the worktree {tree.name} already exists at {tree.path}; pick another "
                            f"name, or open it with: cd {tree.path} && neocode")
    if await _branch_exists(tree.project, tree.branch):
        raise WorktreeError(f"a branch {tree.branch} already exists; pick another worktree name")


def _ignore_folder(project: Path) -> None:
    """The worktrees stay out of the main checkout's ``git status`` (a ``.gitignore`` of
    ``*`` in their folder, as Claude Code advises adding for its own)."""
    folder = project / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists() and not ignore.is_symlink():
        ignore.write_text("*\n", encoding="utf-8")


async def changes(tree: Worktree) -> str:
    """What the worktree holds that is not in its base commit, in words ("" for nothing;
    a worktree git cannot read counts as changed, so it is kept)."""
    status = await run_git(None, tree.path, "status", "--porcelain", "--untracked-files=all")
    commits = await run_git(None, tree.path, "rev-list", "--count", f"{tree.base}..HEAD")
    if status is None or commits is None:
        return "git could not read it"
    parts = []
    if files := len(status.splitlines()):
        parts.append(f"{files} file{'s' if files != 1 else ''} not committed")
    if (count := int(commits.strip() or 0)) > 0:
        parts.append(f"{count} commit{'s' if count != 1 else ''}")
    return " and ".join(parts)


async def finish(tree: Worktree, keep: Callable[[str], bool] | None = None) -> str:
    """Remove a worktree with nothing new in it (and its branch); one with changes is kept
    unless ``keep``, asked with what changed, says no (the user's word: Claude Code asks
    too). The words say which, and where what was kept is."""
    changed = await changes(tree)
    if changed and (keep is None or keep(changed)):
        return f"worktree kept at {tree.path} on branch {tree.branch}: {changed}"
    force = ("--force",) if changed else ()
    removed = await run_git(None, tree.project, "worktree", "remove", *force, str(tree.path))
    if removed is None:
        return f"worktree kept at {tree.path} on branch {tree.branch}: git would not remove it"
    await run_git(None, tree.project, "branch", "-D", tree.branch)
    if changed:
        return f"worktree {tree.name} and its branch removed, with what they held: {changed}"
    return f"worktree {tree.name} removed: nothing changed in it"


async def found_worktree(folder: Path) -> Worktree | None:
    """The worktree NeoCode made that ``folder`` is, as ``/worktree`` shows it (None: the
    folder is no such worktree). Its base is where its project's ``HEAD`` is now."""
    folder = folder.resolve()
    project = worktree_project(folder)
    if project is None or not (folder / ".git").is_file():
        return None
    branch = await run_git(None, folder, "rev-parse", "--abbrev-ref", "HEAD")
    base = await run_git(None, project, "rev-parse", "HEAD")
    if branch is None or base is None:
        return None
    return Worktree(folder.name, folder, branch.strip(), base.strip(), project)


async def worktree_report(folder: Path) -> str:
    """``/worktree``: which worktree this session works in, and what it holds so far."""
    tree = await found_worktree(folder)
    if tree is None:
        return ("this session works in the project folder itself, not in a worktree; "
                "start one with: neocode --worktree [NAME]")
    changed = await changes(tree) or "nothing changed yet"
    return (f"worktree {tree.name} at {tree.path}\n  branch {tree.branch}, made from {tree.project}\n"
            f"  {changed}\n  on quitting it is removed if nothing changed, else kept")
