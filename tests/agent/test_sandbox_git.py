"""A sandboxed command never gets git to run a program outside the sandbox.

Each attack is a real ``bash`` call the model makes, run in the real bubblewrap sandbox;
it writes a program into the workspace and tries to make git run it later. Then come
NeoCode's own ``/undo``, ``/rewind`` and ``/diff`` (the session functions they call) and
the user's own git (``git status``, ``git -p diff`` through the pager, ``git commit``
with its hooks). The program would add a line to a file outside the workspace (the
sandbox's /tmp is its own, so only a program run outside the sandbox can reach it).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from neocode_tui.agent.sandbox.bubblewrap import choose_sandbox
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.tools.bash import Bash, BashArgs
from neocode_tui.agent.workspace import Workspace
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.git_repo import committed_repository, run_git
from tests.support.waits import wait_until

PROGRAM = "$PWD/tool.sh"
"""Where each attack puts its program: in the workspace, which it may write."""
EDIT = ("e1", "edit_file", json.dumps({"path": "app.py", "old_string": "hello", "new_string": "hi"}))


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """The file the planted program writes to: outside the workspace."""
    (tmp_path / "outside").mkdir()
    return tmp_path / "outside" / "ran"


def program(marker: Path) -> str:
    """The shell lines that write the program into the workspace."""
    return f"printf '#!/bin/sh\\necho \"$0 $*\" >> {marker}\\ncat\\n' > tool.sh; chmod +x tool.sh; "


async def attacked(dialect: Dialect, workspace: Path, command: str) -> tuple[AgentSession, str]:
    """A session whose first prompt edits app.py and runs ``command`` sandboxed."""
    dialect.reply(calls=[EDIT, ("b1", "bash", json.dumps({"command": command}))])
    dialect.reply("Done.")
    session = AgentSession(Settings(provider=dialect.name, approval="full-auto"), workspace,
                           provider=dialect.provider())
    assert session.sandbox.active, session.sandbox.unavailable
    await session.prompt("improve it")
    return session, dialect.tool_results(2)["b1"]


async def neocode_and_user_git(session: AgentSession, workspace: Path) -> dict[str, str | None]:
    """/undo's and /rewind's status, /diff, then the user's own git; what each showed."""
    undo = await session.restore.undo_preview()
    assert undo is not None
    rewind = await session.restore.rewind_preview(1)
    diff = await session.restore.diff()
    shown: dict[str, str | None] = {
        "undo": undo.git_status, "rewind": rewind.git_status, "diff": diff.text,
        "diff source": diff.source, "app rewind": await session.restore.git_status(),
    }
    await session.aclose()
    shown["user status"] = run_git(workspace, "status", "--short", check=False).stdout
    shown["user diff"] = run_git(workspace, "-p", "diff", check=False).stdout
    shown["user commit"] = run_git(workspace, "commit", "-qam", "mine", check=False).stdout
    return shown


def assert_status_right(shown: dict[str, str | None]) -> None:
    for name in ("undo", "rewind", "app rewind", "user status"):
        assert " M app.py" in (shown[name] or ""), (name, shown[name])
    assert shown["diff source"] == "git"
    assert "+    return 'hi'" in (shown["diff"] or "") and "+    return 'hi'" in (shown["user diff"] or "")


ATTACKS = {
    "config": (
        f"git config core.fsmonitor {PROGRAM}; git config core.pager {PROGRAM}; "
        f"git config diff.external {PROGRAM}; git config core.hooksPath $PWD; "
        f"git config filter.x.clean {PROGRAM}; git config diff.x.textconv {PROGRAM}; "
        "echo '* filter=x diff=x' > .gitattributes; "
        "cp .git/config mine && git config --file mine core.fsmonitor tool.sh && mv -f mine .git/config",
        "could not write config file",
    ),
    "config.worktree": (
        f"printf '[core]\\n\\tfsmonitor = {PROGRAM}\\n' > .git/config.worktree; "
        "git config extensions.worktreeConfig true",
        ".git/config.worktree: Read-only file system",
    ),
    "commondir": (
        "git init -q --bare planted; cp -r .git/objects .git/refs .git/HEAD planted/; "
        f"git config --file planted/config core.fsmonitor {PROGRAM}; "
        f"git config --file planted/config core.pager {PROGRAM}; echo $PWD/planted > .git/commondir",
        ".git/commondir: Read-only file system",
    ),
    "hooks": (
        "for hook in pre-commit post-commit post-index-change; do cp tool.sh .git/hooks/$hook; done; "
        "mv .git/hooks .git/old; rm -rf .git/hooks; ln -s $PWD .git/hooks",
        "cannot move '.git/hooks' to '.git/old': Device or resource busy",
    ),
    ".git moved": (
        f"mv .git .git-old; git init -q; git config core.fsmonitor {PROGRAM}",
        "cannot move '.git' to '.git-old': Device or resource busy",
    ),
    "other worktrees": (
        "mkdir -p .git/worktrees/w; echo $PWD/planted > .git/worktrees/w/commondir",
        "Read-only file system",
    ),
    "HEAD at the root": (
        "git init -q --bare planted; mv planted/* .; git config --file config core.bare false; "
        f"git config --file config core.worktree $PWD; git config --file config core.fsmonitor {PROGRAM}",
        "cannot overwrite directory './HEAD'",
    ),
}


@pytest.mark.parametrize("route", list(ATTACKS))
async def test_a_command_cannot_plant_what_git_runs(
    openai_only: Dialect, workspace: Path, marker: Path, route: str
) -> None:
    committed_repository(workspace)
    config = (workspace / ".git" / "config").read_text()

    command, refusal = ATTACKS[route]
    session, result = await attacked(openai_only, workspace, program(marker) + command)
    shown = await neocode_and_user_git(session, workspace)

    assert not marker.exists(), (result, marker.read_text())
    assert refusal in result, result
    assert_status_right(shown)
    assert (workspace / ".git" / "config").read_text() == config
    assert not (workspace / ".git" / "commondir").exists()  # the stand-ins are gone again
    assert not (workspace / "HEAD").exists() and not (workspace / ".git" / "config.worktree").exists()


async def test_a_linked_worktree_keeps_its_git_file(
    openai_only: Dialect, tmp_path: Path, marker: Path
) -> None:
    main = tmp_path / "main"
    main.mkdir()
    (main / "app.py").write_text("def greet():\n    return 'hello'\n")
    committed_repository(main)
    workspace = tmp_path / "linked"
    run_git(main, "worktree", "add", "-q", str(workspace))
    pointer = (workspace / ".git").read_text()

    session, result = await attacked(openai_only, workspace, program(marker) + (
        f"git init -q --bare planted; git config --file planted/config core.fsmonitor {PROGRAM}; "
        "printf 'gitdir: %s\\n' $PWD/planted > .git; mv .git gone; rm -f .git"
    ))
    shown = await neocode_and_user_git(session, workspace)

    assert not marker.exists()
    assert "Read-only file system" in result and "Device or resource busy" in result, result
    assert (workspace / ".git").read_text() == pointer
    assert_status_right(shown)


@pytest.mark.parametrize("attack", [
    f"git init -q && git config core.fsmonitor {PROGRAM}",
    f"git init -q --bare . && git config --file config core.bare false && "
    f"git config --file config core.worktree $PWD && git config --file config core.fsmonitor {PROGRAM}",
    f"printf 'gitdir: %s\\n' $PWD/planted > .git; git init -q --bare planted; "
    f"git config --file planted/config core.fsmonitor {PROGRAM}",
])
async def test_no_repository_can_be_made_at_a_workspace_root_without_one(
    openai_only: Dialect, workspace: Path, marker: Path, attack: str
) -> None:
    session, result = await attacked(openai_only, workspace, program(marker) + attack)
    undo = await session.restore.undo_preview()
    diff = await session.restore.diff()
    await session.aclose()
    user = run_git(workspace, "status", "--short", check=False)

    assert not marker.exists(), result
    assert undo is not None and undo.git_status is None  # still no repository, for NeoCode
    assert diff.source == "checkpoints" and "+    return 'hi'" in diff.text
    assert "not a git repository" in user.stderr
    assert not (workspace / ".git").exists() and not (workspace / "HEAD").exists()  # no stand-in left


async def test_what_the_repository_config_points_to_stays_read_only(
    openai_only: Dialect, workspace: Path, marker: Path
) -> None:
    (workspace / "project.gitconfig").write_text("[core]\n\tautocrlf = false\n")
    (workspace / ".githooks").mkdir()
    (workspace / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "post-commit").write_text("#!/bin/sh\nexit 0\n")
    committed_repository(workspace)
    run_git(workspace, "config", "include.path", "../project.gitconfig")
    run_git(workspace, "config", "includeIf.onbranch:main.path", "../branch.gitconfig")
    run_git(workspace, "config", "core.hooksPath", ".githooks")
    (workspace / ".git" / "hooks" / "post-commit").symlink_to(workspace / "scripts" / "post-commit")

    session, result = await attacked(openai_only, workspace, program(marker) + (
        f"git config --file project.gitconfig core.fsmonitor {PROGRAM}; "
        f"printf '[core]\\n\\tpager = {PROGRAM}\\n' > branch.gitconfig; "
        "cp tool.sh .githooks/pre-commit; cp tool.sh scripts/post-commit"
    ))
    shown = await neocode_and_user_git(session, workspace)

    assert not marker.exists()
    assert "could not write config file project.gitconfig" in result
    for path in ("branch.gitconfig", ".githooks/pre-commit", "scripts/post-commit"):
        assert f"{path}: Read-only file system" in result or f"'{path}': Read-only file system" in result, result
    assert (workspace / "project.gitconfig").read_text() == "[core]\n\tautocrlf = false\n"
    assert not (workspace / "branch.gitconfig").exists()
    assert_status_right(shown)


async def test_git_global_config_a_command_writes_never_reaches_the_users_home(
    openai_only: Dialect, home: Path, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace may not be the home folder itself (it is too wide to work in); from a
    project inside it, what a command writes to the git configuration of its home is gone
    with the command (the sandbox's home is a throwaway one)."""
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    project = home / "project"
    project.mkdir()
    (project / "app.py").write_text("def greet():\n    return 'hello'\n")
    committed_repository(project)

    session, result = await attacked(openai_only, project, program(marker) + (
        f"git config --global core.fsmonitor {PROGRAM}; mkdir -p ~/.config/git; "
        f"printf '[core]\\n\\tpager = {PROGRAM}\\n' > ~/.config/git/config"
    ))
    shown = await neocode_and_user_git(session, project)

    assert not marker.exists()
    assert not (home / ".gitconfig").exists() and not (home / ".config" / "git").exists()
    assert_status_right(shown)


async def test_neocode_never_enters_a_submodule_a_command_made(
    openai_only: Dialect, workspace: Path, marker: Path
) -> None:
    """A command may make a repository in a subfolder and register it as a submodule
    (the index is writable: committing must work); NeoCode's git does not enter it."""
    committed_repository(workspace)

    session, result = await attacked(openai_only, workspace, program(marker) + (
        "git init -q sub && echo x > sub/f && git -C sub add f && "
        "git -C sub -c user.name=a -c user.email=a@b commit -qm s && "
        f"git -C sub config core.fsmonitor {PROGRAM} && git add sub && echo y > sub/f"
    ))
    undo = await session.restore.undo_preview()
    diff = await session.restore.diff()
    await session.aclose()

    assert not marker.exists(), result
    assert undo is not None and undo.git_status is not None and " M app.py" in undo.git_status
    assert "+    return 'hi'" in diff.text


async def test_committing_and_branching_still_work_in_the_sandbox(workspace: Path) -> None:
    committed_repository(workspace)
    bash = Bash(sandbox=choose_sandbox("workspace-write"))

    out = await bash.run(BashArgs(command=(
        "set -e; export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b; "
        "echo more >> app.py; git add -A; git commit -qm second; git switch -qc topic; "
        "echo new > new.txt; git add new.txt; git commit -qm third; git tag v1; "
        "echo wip >> app.py; git stash -q; git switch -q main; git merge -q --no-edit topic; "
        "git gc -q; git log --oneline --all | wc -l"
    )), Workspace(workspace))

    assert out.text == "5", out.text  # start, second, third, the stash and its index
    assert run_git(workspace, "log", "--format=%s", "main").stdout.split() == ["third", "second", "start"]
    assert run_git(workspace, "status", "--short").stdout == ""
    assert not (workspace / ".git" / "commondir").exists() and not (workspace / "HEAD").exists()


async def test_stand_ins_stay_while_any_sandboxed_command_runs(workspace: Path) -> None:
    committed_repository(workspace)
    bash = Bash(sandbox=choose_sandbox("workspace-write"))
    stand_in = workspace / ".git" / "commondir"
    fifo = workspace / "go"
    os.mkfifo(fifo)
    waiting = asyncio.create_task(bash.run(BashArgs(command="read line < go"), Workspace(workspace)))
    writer: list[int] = []

    def reader_waits() -> bool:
        try:
            writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # nobody reads it yet
            return False
        return True

    await wait_until(reader_waits, what="the first command waiting")
    second = await bash.run(BashArgs(command="echo $PWD/planted > .git/commondir"), Workspace(workspace))
    assert "Read-only file system" in second.text
    assert stand_in.read_text() == ".\n"  # the first command still runs: it still needs it
    os.write(writer[0], b"go\n")
    os.close(writer[0])
    assert not (await waiting).is_error

    assert not stand_in.exists() and not (workspace / "HEAD").exists()


async def test_a_submodule_keeps_its_git_file_and_config_while_commits_in_it_work(
    openai_only: Dialect, tmp_path: Path, workspace: Path, marker: Path
) -> None:
    library = tmp_path / "library"
    library.mkdir()
    (library / "lib.py").write_text("x = 1\n")
    committed_repository(library)
    committed_repository(workspace)
    run_git(workspace, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    run_git(workspace, "commit", "-qm", "with lib")
    pointer = (workspace / "lib" / ".git").read_text()

    session, result = await attacked(openai_only, workspace, program(marker) + (
        f"git -C lib config core.fsmonitor {PROGRAM}; cp tool.sh .git/modules/lib/hooks/pre-commit; "
        "git init -q --bare planted; cp -r .git/modules/lib/objects .git/modules/lib/refs planted/; "
        f"git config --file planted/config core.fsmonitor {PROGRAM}; "
        "printf 'gitdir: %s\\n' $PWD/planted > lib/.git; "
        "echo 'x = 2' > lib/lib.py; git -C lib -c user.name=a -c user.email=a@b commit -qam 'in lib' && "
        "echo committed in lib"
    ))
    shown = await neocode_and_user_git(session, workspace)

    assert not marker.exists(), result
    assert "committed in lib" in result, result
    assert "lib/.git: Read-only file system" in result
    assert (workspace / "lib" / ".git").read_text() == pointer
    assert_status_right(shown)
    assert " M lib" in (shown["user status"] or "")  # the submodule moved on, as git says


async def test_a_hostile_submodule_folder_does_not_stop_the_next_command(workspace: Path) -> None:
    committed_repository(workspace)
    bash = Bash(sandbox=choose_sandbox("workspace-write"))
    await bash.run(BashArgs(command=(
        "mkdir -p .git/modules/x/objects .git/modules/x/refs/heads .git/modules/x/hooks; "
        "echo 'ref: refs/heads/main' > .git/modules/x/HEAD; ln -s loop .git/modules/x/hooks/loop; "
        "printf '[include]\\n\\tpath = ~nobody-here/x\\n[core]\\n\\tworktree = ../../..\\n' "
        "> .git/modules/x/config"
    )), Workspace(workspace))

    out = await bash.run(BashArgs(command="echo fine > app.py && cat app.py"), Workspace(workspace))

    assert out.text == "fine"
    assert (workspace / ".git" / "modules" / "x" / "config").exists()
