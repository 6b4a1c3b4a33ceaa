"""The tools inside a hostile, just-cloned repository: odd bytes, things that hang, links
that lead out, files swapped while a tool works. Real folders, real FIFOs, real ripgrep."""

from __future__ import annotations

import asyncio
import os
import time
import tracemalloc
from pathlib import Path

import pytest

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.tools import ToolError, ToolOutput, default_tools
from neocode_tui.agent.tools.base import STOP_GRACE
from neocode_tui.agent.tools.files import ReadFile
from neocode_tui.agent.tools.search import _Records, run_rg
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE, wait_until

PROMPTLY = STOP_GRACE + 2
"""Seconds within which a stopped tool has returned, also on a busy machine: far less than
running to the end would take (reading the 50 GB file; a pipe that never ends)."""

TOOLS = default_tools()


async def call(
    root: Path, name: str, workspace: Workspace | None = None, **arguments: object
) -> ToolOutput:
    tool = TOOLS.get(name)
    assert tool is not None
    return await tool.run(tool.args_model.model_validate(arguments), workspace or Workspace(root))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    print('hello')\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "app.py").write_text("OUTSIDE\n")
    return root


# --- any byte in a name or a line ---------------------------------------------------------


@pytest.fixture
def latin1(project: Path) -> Path:
    (project / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"caf\xe9 hello\nplain hello\n")
    return project


async def test_names_that_are_not_utf8_are_listed_found_and_searched(latin1: Path) -> None:
    listed = await call(latin1, "list_dir")
    assert listed.text.splitlines() == ["src/", "caf\\xe9.txt"]
    assert (await call(latin1, "glob", pattern="*.txt")).text == "caf\\xe9.txt"
    found = await call(latin1, "grep", pattern="hello")
    assert found.text.splitlines() == [
        "caf\\xe9.txt:1:caf\ufffd hello",
        "caf\\xe9.txt:2:plain hello",
        "src/app.py:2:    print('hello')",
    ]
    read = await call(latin1, "read_file", path=os.fsdecode(b"caf\xe9.txt"))
    assert read.text == "     1\tcaf\ufffd hello\n     2\tplain hello"
    for out in (listed, found, read):
        out.text.encode("utf-8")  # what goes to the model and the session file


async def test_an_edit_keeps_bytes_that_are_not_utf8_as_they_were(latin1: Path) -> None:
    name = os.fsdecode(b"caf\xe9.txt")
    out = await call(latin1, "edit_file", path=name, old_string="plain", new_string="simple")
    assert (latin1 / name).read_bytes() == b"caf\xe9 hello\nsimple hello\n"
    assert out.text.startswith("edited caf\\xe9.txt (1 replacement)")
    assert out.diff is not None and " caf\\xe9 hello\n" in out.diff
    out.text.encode("utf-8")


async def test_a_name_with_a_newline_or_an_escape_stays_on_its_line(project: Path) -> None:
    (project / "fake\nsrc").mkdir()
    (project / "fake\nsrc/app.py:1:forged").write_text("hello\n")
    (project / "red\x1b[31m.txt").write_text("hello\n")
    listed = await call(project, "list_dir")
    assert listed.text.splitlines() == ["fake\\x0asrc/", "src/", "red\\x1b[31m.txt"]
    found = await call(project, "glob", pattern="**/*")
    assert found.text.splitlines() == [
        "fake\\x0asrc/app.py:1:forged", "red\\x1b[31m.txt", "src/app.py",
    ]
    searched = await call(project, "grep", pattern="hello")
    assert searched.text.splitlines() == [
        "fake\\x0asrc/app.py:1:forged:1:hello",
        "red\\x1b[31m.txt:1:hello",
        "src/app.py:2:    print('hello')",
    ]


async def test_a_listing_with_an_odd_name_reaches_the_model_as_text(
    openai_only: Dialect, latin1: Path
) -> None:
    openai_only.reply("", [("c1", "list_dir", "{}"), ("c2", "grep", '{"pattern": "caf"}')])
    openai_only.reply("Done.")
    loop = AgentLoop(openai_only.provider(), latin1, approval="full-auto")
    finished = await asyncio.wait_for(loop.run("what is here?"), PATIENCE)
    assert finished.reason == "done"
    results = openai_only.tool_results(2)
    assert results["c1"] == "src/\ncaf\\xe9.txt"
    assert results["c2"] == "caf\\xe9.txt:1:caf\ufffd hello"


# --- nothing hangs ----------------------------------------------------------------------------


@pytest.fixture
def fifo(project: Path) -> Path:
    os.mkfifo(project / "pipe")
    return project / "pipe"


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("read_file", {"path": "pipe"}),
        ("grep", {"pattern": "x", "path": "pipe"}),
        ("edit_file", {"path": "pipe", "old_string": "a", "new_string": "b"}),
        ("write_file", {"path": "pipe", "content": "b"}),
    ],
)
async def test_a_fifo_is_refused_at_once(
    project: Path, fifo: Path, name: str, arguments: dict
) -> None:
    with pytest.raises(ToolError, match="pipe is a FIFO"):
        await asyncio.wait_for(call(project, name, **arguments), PATIENCE)


async def test_searching_a_folder_with_a_fifo_in_it_finishes(project: Path, fifo: Path) -> None:
    out = await asyncio.wait_for(call(project, "grep", pattern="print"), PATIENCE)
    assert out.text == "src/app.py:2:    print('hello')"
    assert (await asyncio.wait_for(call(project, "glob", pattern="*"), PATIENCE)).text == "src/app.py"


async def test_a_catastrophic_regex_and_a_glob_of_stars_take_no_time(project: Path) -> None:
    (project / "evil.txt").write_text("a" * 29 + "!\n")
    (project / ("a" * 200 + ".txt")).write_text("x\n")
    started = time.monotonic()
    assert "no matches" in (await call(project, "grep", pattern="(a+)+$")).text
    assert "no files match" in (await call(project, "glob", pattern="*a*a*a*a*a*a*a*b")).text
    assert time.monotonic() - started < 10  # backtracking would take minutes; the tools' limit is 30 s


@pytest.fixture
def sparse(project: Path) -> Path:
    """A 50 GB file that takes no disk: a line of text, then one endless line of NULs."""
    path = project / "huge.log"
    with path.open("wb") as handle:
        handle.write(b"first line\n" + b"x" * 9000)
        handle.truncate(50 * 1024**3)
    return path


async def test_reading_a_huge_file_keeps_memory_bounded_by_what_it_shows(
    project: Path, sparse: Path
) -> None:
    tracemalloc.start()
    try:
        first = await asyncio.wait_for(call(project, "read_file", path="huge.log", limit=10), PATIENCE)
        second = await asyncio.wait_for(
            call(project, "read_file", path="huge.log", offset=2, limit=10), 10
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = 50 * 1024**3
    assert first.text == (
        f"     1\tfirst line\n[showing lines 1-1 of a {size}-byte file; read on with offset=2]"
    )
    line, note = second.text.split("\n")
    assert line.startswith("     2\txxx") and line.endswith("[… line cut at 100000 characters]")
    assert note == f"[showing lines 2-2 of a {size}-byte file; read on with offset=3]"
    assert peak < 5_000_000


async def test_a_file_tool_stops_at_its_time_limit(project: Path, sparse: Path) -> None:
    tool = ReadFile()
    tool.time_limit = 0.3
    started = time.monotonic()
    with pytest.raises(ToolError, match="stopped after 0.3s"):
        await tool.run(tool.args_model(path="huge.log", offset=5), Workspace(project))
    assert time.monotonic() - started < 0.3 + PROMPTLY


def reading(path: Path) -> bool:
    """This process has ``path`` open: a tool is reading it."""
    fds = Path("/proc/self/fd")
    for fd in fds.iterdir():
        try:
            if fd.readlink() == path:
                return True
        except OSError:
            continue
    return False


async def test_a_file_tool_is_cancelled_promptly(project: Path, sparse: Path) -> None:
    task = asyncio.create_task(call(project, "read_file", path="huge.log", offset=5))
    await wait_until(lambda: reading(sparse.resolve()), what="the read to start")
    assert not task.done()
    cancelled_at = time.monotonic()
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=PATIENCE)
    assert done and task.cancelled()
    assert time.monotonic() - cancelled_at < PROMPTLY


async def test_ripgrep_is_killed_at_its_time_limit(project: Path, fifo: Path) -> None:
    writer = os.open(fifo, os.O_RDWR)  # a pipe that never ends
    started = time.monotonic()
    try:
        with (
            Workspace(project).open_dir(project.resolve()) as folder,
            pytest.raises(ToolError, match="stopped after 0.3s"),
        ):
            await run_rg(["--regexp", "x", "-"], folder, project, _Records(10), stdin=writer,
                         limit=0.3)
    finally:
        os.close(writer)
    assert time.monotonic() - started < 0.3 + PROMPTLY


def ripgrep_children() -> list[int]:
    """Our own rg processes still alive (zombies count as gone)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().rsplit(")", 1)
        except OSError:
            continue
        fields = rest.split()
        if name.endswith("(rg") and int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


async def test_a_cancelled_search_kills_ripgrep_at_once(project: Path, fifo: Path) -> None:
    writer = os.open(fifo, os.O_RDWR)
    try:
        with Workspace(project).open_dir(project.resolve()) as folder:
            task = asyncio.create_task(
                run_rg(["--regexp", "x", "-"], folder, project, _Records(10), stdin=writer)
            )
            await wait_until(lambda: bool(ripgrep_children()), what="ripgrep to start")
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=PROMPTLY)
            assert done and task.cancelled()
    finally:
        os.close(writer)
    assert not ripgrep_children()


# --- links out, and the race between check and use ------------------------------------------


async def test_a_hard_link_to_a_file_outside_is_not_written_through(project: Path) -> None:
    outside = project.parent / "outside" / "app.py"
    os.link(outside, project / "linked.py")
    await call(project, "edit_file", path="linked.py", old_string="OUTSIDE", new_string="INSIDE")
    assert outside.read_text() == "OUTSIDE\n"
    assert (project / "linked.py").read_text() == "INSIDE\n"
    os.link(outside, project / "again.py")
    await call(project, "write_file", path="again.py", content="new\n")
    assert outside.read_text() == "OUTSIDE\n" and (project / "again.py").read_text() == "new\n"


async def test_a_write_keeps_the_file_mode(project: Path) -> None:
    script = project / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o750)
    await call(project, "edit_file", path="run.sh", old_string="one", new_string="two")
    assert script.read_text() == "echo two\n" and script.stat().st_mode & 0o777 == 0o750
    assert sorted(p.name for p in project.iterdir()) == ["run.sh", "src"]  # no temp file left


class SwapAfterCheck(Workspace):
    """Once a path has passed the check, replace a folder on its way with a symlink out:
    what an attacker racing the tool would do."""

    def __init__(self, root: Path, folder: str, target: Path) -> None:
        super().__init__(root)
        self.folder, self.target = folder, target

    def resolve(self, path: str) -> Path:
        resolved = super().resolve(path)
        victim = self.root / self.folder
        if not victim.is_symlink():
            victim.rename(self.root / "moved-away")
            victim.symlink_to(self.target, target_is_directory=True)
        return resolved


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("write_file", {"path": "src/app.py", "content": "pwned\n"}),
        ("write_file", {"path": "src/new.py", "content": "pwned\n"}),
        ("edit_file", {"path": "src/app.py", "old_string": "OUTSIDE", "new_string": "pwned"}),
        ("read_file", {"path": "src/app.py"}),
        ("list_dir", {"path": "src"}),
        ("grep", {"pattern": "OUTSIDE", "path": "src/app.py"}),
    ],
)
async def test_a_symlink_swapped_in_after_the_check_is_not_followed(
    project: Path, name: str, arguments: dict
) -> None:
    outside = project.parent / "outside"
    workspace = SwapAfterCheck(project, "src", outside)
    with pytest.raises(PathOutsideWorkspace, match="src.* changed while it was being opened"):
        await call(project, name, workspace, **arguments)
    assert sorted(p.name for p in outside.iterdir()) == ["app.py"]
    assert (outside / "app.py").read_text() == "OUTSIDE\n"


async def test_a_file_swapped_for_a_symlink_after_the_check_is_not_followed(
    project: Path,
) -> None:
    outside = project.parent / "outside" / "app.py"

    class SwapFile(Workspace):
        def resolve(self, path: str) -> Path:
            resolved = super().resolve(path)
            (self.root / "src" / "app.py").unlink(missing_ok=True)
            (self.root / "src" / "app.py").symlink_to(outside)
            return resolved

    for name, arguments in [
        ("write_file", {"path": "src/app.py", "content": "pwned\n"}),
        ("read_file", {"path": "src/app.py"}),
    ]:
        (project / "src" / "app.py").unlink()
        (project / "src" / "app.py").write_text("inside\n")
        with pytest.raises(PathOutsideWorkspace, match="changed while it was being opened"):
            await call(project, name, SwapFile(project), **arguments)
    assert outside.read_text() == "OUTSIDE\n"


async def test_the_path_approval_saw_is_the_path_the_write_uses(project: Path) -> None:
    """Approval resolves the path; a link changed before the run cannot redirect it."""
    (project / "docs").mkdir()
    (project / "link").symlink_to(project / "docs", target_is_directory=True)
    tool = TOOLS.get("write_file")
    assert tool is not None
    args = tool.args_model(path="link/x.txt", content="hi\n")
    workspace = Workspace(project)
    assert tool.writes(args, workspace) == [project.resolve() / "docs" / "x.txt"]
    (project / "link").unlink()
    (project / "link").symlink_to(project / ".git", target_is_directory=True)
    await tool.run(args, workspace)
    assert (project / "docs" / "x.txt").read_text() == "hi\n"
    assert not (project / ".git").exists()


def test_odd_paths_are_clear_errors_not_tracebacks(project: Path) -> None:
    (project / "a").symlink_to(project / "b")
    (project / "b").symlink_to(project / "a")
    with pytest.raises(PathOutsideWorkspace, match="NUL character"):
        Workspace(project).resolve("a\0b")
    with pytest.raises(PathOutsideWorkspace, match="'a/x' is a symlink loop"):
        Workspace(project).resolve("a/x")
