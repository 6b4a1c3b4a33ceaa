"""Every git NeoCode itself runs (``/diff``, the status ``/undo`` and ``/rewind`` show) goes
through ``run_git``, which never lets the repository run a program.

A sandboxed command cannot write the repository's configuration (``sandbox_git``), and
still git here takes nothing from the folder on trust:

- it is pinned to the repository found when the session started (``GIT_DIR``,
  ``GIT_WORK_TREE``, ``GIT_COMMON_DIR``): a ``.git``, ``commondir`` or ``.git`` file written
  later is never followed, and a bare repository in the tree is never found
  (``safe.bareRepository=explicit``);
- the settings that make git run programs are set on its command line, which wins over
  every configuration file and reaches the git processes it starts: no fsmonitor, no hook,
  no pager, no transport (a partial clone's fetch of a missing object would run ssh and
  credential helpers); diffs take no external diff and no textconv; submodules are not
  entered (a repository a command made could be registered as one);
- replace refs are not followed (a command could make a diff show other contents), and
  no optional lock is taken (``status`` does not rewrite the index);
- the environment keeps only the ``GIT_*`` variables that say where your own
  configuration is and how far to look for a repository.

Filter drivers (``filter.<name>.clean``) stay: git has no switch for them, and their
commands come only from configuration the sandbox cannot write, yours or the
repository's (a ``.gitattributes`` in the tree can only pick one of those).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

GIT_LIMIT = 10.0
"""Seconds a git command may take (a huge repository); past that it is given up on."""
MAX_OUTPUT = 2_000_000

SAFE_CONFIG = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat",
    "protocol.allow=never", "safe.bareRepository=explicit", "core.quotepath=off",
)
SUBCOMMAND_FLAGS = {
    "diff": ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all"),
    "status": ("--ignore-submodules=all",),
}
KEPT_VARIABLES = frozenset({
    "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
    "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
})
SAFE_VARIABLES = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}


@dataclass(frozen=True)
class Repository:
    """A repository as found once: where its git folders and its work tree are."""

    git_dir: Path
    common_dir: Path
    work_tree: Path


async def find_repository(workspace: Path) -> Repository | None:
    """The repository ``workspace`` is in, as git finds it (None: none, or no git)."""
    found = await run_git(None, workspace, "rev-parse", "--path-format=absolute",
                          "--git-dir", "--git-common-dir", "--show-toplevel")
    lines = found.splitlines() if found else []
    if len(lines) != 3:
        return None
    git_dir, common_dir, work_tree = map(Path, lines)
    return Repository(git_dir, common_dir, work_tree)


async def run_git(
    repository: Repository | None, cwd: Path, *args: str, ok: tuple[int, ...] = (0,)
) -> str | None:
    """git's output for ``args`` run in ``cwd`` (in ``repository`` when given); None when
    git is missing, fails (an exit code not in ``ok``) or takes too long."""
    git = shutil.which("git")
    if git is None:
        return None
    configs = [part for setting in SAFE_CONFIG for part in ("-c", setting)]
    command, *rest = args
    process = await asyncio.create_subprocess_exec(
        git, "--no-pager", *configs, command, *SUBCOMMAND_FLAGS.get(command, ()), *rest,
        cwd=cwd, env=_environment(repository),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(GIT_LIMIT):
            out, _ = await process.communicate()
    except TimeoutError:
        return None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    if process.returncode not in ok:
        return None
    return out[:MAX_OUTPUT].decode("utf-8", "replace")


def _environment(repository: Repository | None) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("GIT_") or name in KEPT_VARIABLES}
    env.update(SAFE_VARIABLES)
    if repository is not None:
        env.update(GIT_DIR=str(repository.git_dir), GIT_COMMON_DIR=str(repository.common_dir),
                   GIT_WORK_TREE=str(repository.work_tree))
    return env
