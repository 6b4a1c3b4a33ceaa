"""Each tool against a real temporary folder, called the way the loop calls it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from neocode_tui.agent.tools import ToolError, ToolOutput, default_tools
from neocode_tui.agent.tools.bash import Bash
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace
from tests.support.processes import TIME_LIMIT, process_alive, wait_dead
from tests.support.waits import PATIENCE, wait_for_file

TOOLS = default_tools()


async def call(workspace: Path, name: str, **arguments: object) -> ToolOutput:
    tool = TOOLS.get(name)
    assert tool is not None
    return await tool.run(tool.args_model.model_validate(arguments), Workspace(workspace))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    print('hello')\n")
    (root / "src" / "pkg" / "util.py").write_text("def helper():\n    return 42\n")
    (root / "README.md").write_text("# Demo\nhello world\n")
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.py").write_text("hello = 1\n")
    (root / ".git").mkdir()
    (root / ".git" / "config.py").write_text("hello = 2\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0hello\0")
    (tmp_path / "secret.txt").write_text("top secret\n")
    return root


# --- paths -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["../secret.txt", "src/../../secret.txt", "~/x", "~nobody-here/x"])
async def test_dotdot_out_of_the_workspace_is_refused(project: Path, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace, match="outside the workspace"):
        await call(project, "read_file", path=path)


async def test_absolute_path_outside_is_refused_and_inside_is_allowed(project: Path) -> None:
    with pytest.raises(PathOutsideWorkspace, match="outside the workspace"):
        await call(project, "read_file", path=str(project.parent / "secret.txt"))
    inside = await call(project, "read_file", path=str(project / "README.md"))
    assert "# Demo" in inside.text


async def test_symlink_leading_out_is_refused_for_reading_and_writing(project: Path) -> None:
    (project / "escape.txt").symlink_to(project.parent / "secret.txt")
    (project / "outdir").symlink_to(project.parent)
    with pytest.raises(PathOutsideWorkspace, match="symlink that leads outside"):
        await call(project, "read_file", path="escape.txt")
    with pytest.raises(PathOutsideWorkspace, match="symlink that leads outside"):
        await call(project, "write_file", path="outdir/new.txt", content="x")
    assert not (project.parent / "new.txt").exists()
    assert (project.parent / "secret.txt").read_text() == "top secret\n"


async def test_symlink_inside_the_workspace_is_followed(project: Path) -> None:
    (project / "link.py").symlink_to(project / "src" / "app.py")
    assert "print('hello')" in (await call(project, "read_file", path="link.py")).text


# --- reading -----------------------------------------------------------------------------


async def test_read_file_numbers_lines_and_reads_a_range(project: Path) -> None:
    (project / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    whole = await call(project, "read_file", path="src/app.py")
    assert whole.text == "     1\tdef main():\n     2\t    print('hello')"
    part = await call(project, "read_file", path="long.txt", offset=10, limit=3)
    assert part.text.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "[showing lines 10-12 of 100; read on with offset=13]" in part.text


async def test_read_file_caps_a_huge_file_and_says_where_to_go_on(project: Path) -> None:
    (project / "big.txt").write_text(("x" * 999 + "\n") * 500)
    out = await call(project, "read_file", path="big.txt")
    assert len(out.text) < 105_000
    assert "of 500; read on with offset=" in out.text


async def test_read_file_shows_the_start_of_a_line_longer_than_the_cap(project: Path) -> None:
    (project / "min.js").write_text("var a=1;" * 50_000 + "\nsecond line\n")
    out = await call(project, "read_file", path="min.js")
    assert out.text.startswith("     1\tvar a=1;var a=1;")
    assert "[… line cut at 100000 characters]" in out.text
    assert out.text.endswith("[showing lines 1-1 of 2; read on with offset=2]")


async def test_read_file_refuses_binaries_folders_and_missing_files(project: Path) -> None:
    with pytest.raises(ToolError, match="logo.png is a binary file"):
        await call(project, "read_file", path="logo.png")
    with pytest.raises(ToolError, match="src is a folder"):
        await call(project, "read_file", path="src")
    with pytest.raises(ToolError, match="no such file: nope.py"):
        await call(project, "read_file", path="nope.py")
    with pytest.raises(ToolError, match="offset 9 is past the end"):
        await call(project, "read_file", path="src/app.py", offset=9)


async def test_list_dir_shows_folders_first_with_markers(project: Path) -> None:
    out = await call(project, "list_dir")
    assert out.text.splitlines() == [
        "node_modules/", "src/", "README.md", "logo.png",
        "[1 ignored entries not shown (.git/); include_ignored=true lists them]",
    ]


async def test_glob_finds_nested_files_and_skips_dependencies(project: Path) -> None:
    assert (await call(project, "glob", pattern="**/*.py")).text.splitlines() == [
        "src/app.py", "src/pkg/util.py",
        "[1 more matching files are ignored (.gitignore, dependencies, caches); include_ignored=true lists them]",
    ]
    assert (await call(project, "glob", pattern="*.py", path="src/pkg")).text == "src/pkg/util.py"
    assert (await call(project, "glob", pattern="src/*.py")).text == "src/app.py"
    assert "no files match" in (await call(project, "glob", pattern="*.rs")).text


async def test_grep_searches_text_files_only_where_it_should(project: Path) -> None:
    (project / "escape.txt").symlink_to(project.parent / "secret.txt")
    out = await call(project, "grep", pattern=r"hel+o")
    assert out.text.splitlines() == [
        "README.md:2:hello world", "src/app.py:2:    print('hello')",
    ]
    assert (await call(project, "grep", pattern="top secret")).text == "no matches for 'top secret'"
    assert (await call(project, "grep", pattern="HELPER", ignore_case=True, include="*.py")).text == (
        "src/pkg/util.py:1:def helper():"
    )
    assert (await call(project, "grep", pattern="print", path="src/app.py", include="*.py")).text == (
        "src/app.py:2:    print('hello')"
    )
    (project / "crlf.txt").write_bytes(b"first end\r\nsecond\r\nthird end\r\n")
    anchored = await call(project, "grep", pattern=r"^\w+ end$", path="crlf.txt")
    assert anchored.text == "crlf.txt:1:first end\ncrlf.txt:3:third end"
    with pytest.raises(ToolError, match="look-around, .* is not supported"):
        await call(project, "grep", pattern=r"end(?!\s)", path="crlf.txt")
    with pytest.raises(ToolError, match="invalid regular expression"):
        await call(project, "grep", pattern="(unclosed")


# --- changing files ------------------------------------------------------------------------


async def test_write_file_creates_folders_and_the_preview_matches_the_change(project: Path) -> None:
    tool = TOOLS.get("write_file")
    assert tool is not None
    args = tool.args_model(path="docs/new/guide.md", content="# Guide\nstep one\n")
    preview = await tool.preview(args, Workspace(project))
    assert not (project / "docs").exists()  # a preview changes nothing
    out = await tool.run(args, Workspace(project))
    assert (project / "docs/new/guide.md").read_text() == "# Guide\nstep one\n"
    assert out.text == "created docs/new/guide.md (2 lines)"
    assert preview is not None and out.diff == preview.diff
    assert out.change == preview.change
    assert preview.change is not None and preview.change.before is None
    assert preview.change.after == "# Guide\nstep one\n"
    assert "+++ b/docs/new/guide.md" in preview.diff and "+step one" in preview.diff


async def test_edit_file_replaces_exact_text_and_returns_a_diff(project: Path) -> None:
    out = await call(project, "edit_file", path="src/app.py",
                     old_string="print('hello')", new_string="print('goodbye')")
    assert (project / "src/app.py").read_text() == "def main():\n    print('goodbye')\n"
    assert out.diff is not None
    assert "-    print('hello')\n+    print('goodbye')\n" in out.diff
    assert out.text.startswith("edited src/app.py (1 replacement)\n")


async def test_edit_file_fails_clearly_and_changes_nothing(project: Path) -> None:
    (project / "dup.py").write_text("x = 1\nx = 1\nx = 1\n")
    with pytest.raises(ToolError, match="old_string occurs 3 times in dup.py"):
        await call(project, "edit_file", path="dup.py", old_string="x = 1", new_string="x = 2")
    with pytest.raises(ToolError, match="old_string was not found in dup.py"):
        await call(project, "edit_file", path="dup.py", old_string="y = 1", new_string="y = 2")
    assert (project / "dup.py").read_text() == "x = 1\nx = 1\nx = 1\n"
    out = await call(project, "edit_file", path="dup.py", old_string="x = 1",
                     new_string="x = 2", replace_all=True)
    assert (project / "dup.py").read_text() == "x = 2\nx = 2\nx = 2\n"
    assert "(3 replacements)" in out.text


async def test_edit_file_keeps_windows_line_endings(project: Path) -> None:
    (project / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await call(project, "edit_file", path="win.txt", old_string="one\ntwo", new_string="1\n2")
    assert (project / "win.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


# --- bash ------------------------------------------------------------------------------------


async def test_bash_runs_in_the_workspace_and_reports_failure(project: Path) -> None:
    ok = await call(project, "bash", command="pwd; ls src; echo oops >&2")
    assert ok.text.splitlines() == [str(project.resolve()), "app.py", "pkg", "oops"]
    assert not ok.is_error
    failed = await call(project, "bash", command="echo partial; exit 3")
    assert failed.text == "partial\n[exit code 3]" and failed.is_error


async def test_bash_does_not_pass_api_keys_to_commands(project: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-do-not-leak")
    out = await call(project, "bash", command="env")
    assert "sk-test-do-not-leak" not in out.text


async def test_bash_timeout_kills_the_whole_process_group(project: Path) -> None:
    out = await call(project, "bash", command="sleep 60 & echo $! > child.pid; sleep 60", timeout=TIME_LIMIT)
    assert out.is_error and f"[timed out after {TIME_LIMIT}s" in out.text
    child = int((project / "child.pid").read_text())
    assert await wait_dead(child)


async def test_bash_cancel_kills_the_whole_process_group(project: Path) -> None:
    task = asyncio.create_task(
        call(project, "bash", command="sleep 60 & echo $! > child.pid; sleep 60")
    )
    child = int(await wait_for_file(project / "child.pid"))
    assert process_alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_dead(child)


async def test_bash_stops_background_jobs_left_behind(project: Path) -> None:
    out = await call(project, "bash", command="sleep 60 & echo $! > child.pid; echo started")
    assert out.text.startswith("started")
    assert await wait_dead(int((project / "child.pid").read_text()))


async def test_bash_stops_a_process_that_left_its_group_without_waiting(project: Path) -> None:
    command = "setsid sleep 300 & echo $! > escaped.pid; echo started"
    loop = asyncio.get_running_loop()
    started = loop.time()
    out = await call(project, "bash", command=command)
    escaped = int((project / "escaped.pid").read_text())
    assert out.text.startswith("started\n") and loop.time() - started < PATIENCE  # not the sleep's 300 s
    assert not process_alive(escaped)


async def test_bash_cancel_returns_at_once_even_with_a_process_outside_its_group(
    project: Path,
) -> None:
    command = "setsid sleep 300 & echo $! > escaped.pid; sleep 300"
    task = asyncio.create_task(call(project, "bash", command=command))
    escaped = int(await wait_for_file(project / "escaped.pid"))
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=PATIENCE)  # not the sleeps' 300 s
    assert done and task.cancelled()
    assert not process_alive(escaped)


async def test_bash_caps_output_keeping_head_and_tail(project: Path) -> None:
    tool = Bash(output_cap=1000)
    args = tool.args_model(command="seq 1 10000")
    out = await tool.run(args, Workspace(project))
    lines = out.text.splitlines()
    assert lines[0] == "1" and lines[-1] == "10000"
    assert any("bytes of output cut" in line for line in lines)
    assert len(out.text) < 1200


async def test_bash_passes_output_on_while_the_command_runs(project: Path) -> None:
    loop = asyncio.get_running_loop()
    arrivals: list[tuple[float, str]] = []
    tool = Bash(output_cap=1000)

    def on_output(text: str) -> None:
        arrivals.append((loop.time(), text))

    started = loop.time()
    args = tool.args_model(command="echo first; sleep 0.5; echo second; seq 1 10000")
    out = await tool.run(args, Workspace(project), on_output)
    ended = loop.time()

    assert arrivals[0][1] == "first\n" and arrivals[0][0] - started < 0.4 < ended - started
    live = "".join(text for _, text in arrivals)
    assert live.endswith("9999\n10000\n")  # all of it, live; the result keeps head and tail
    assert len(out.text) < 1200 and out.text.startswith("first\nsecond\n1\n")
    assert out.text.rstrip().endswith("10000")


def test_every_tool_has_a_json_schema_from_its_arguments() -> None:
    specs = {spec.name: spec for spec in TOOLS.specs()}
    assert set(specs) == {"read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "bash",
                          "bash_output", "kill_bash", "web_fetch", "skill"}
    edit = specs["edit_file"].parameters
    assert edit["type"] == "object"
    assert edit["required"] == ["path", "old_string", "new_string"]
    assert "title" not in edit and "title" not in edit["properties"]["path"]


async def test_search_follows_gitignore_says_what_it_left_out_and_can_include_it(project: Path) -> None:
    (project / ".gitignore").write_text("build/\n*.log\n")
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text("TOKEN = 1\n")
    (project / "debug.log").write_text("TOKEN in a log\n")
    (project / "src" / "conf.py").write_text("TOKEN = 2\n")

    found = await call(project, "glob", pattern="*.py")
    assert "build/gen.py" not in found.text and "src/conf.py" in found.text
    everything = await call(project, "glob", pattern="*.py", include_ignored=True)
    assert "build/gen.py" in everything.text and "ignored" not in everything.text
    listed = [line for line in found.text.splitlines() if not line.startswith("[")]
    left_out = len(everything.text.splitlines()) - len(listed)
    assert left_out >= 1
    assert f"[{left_out} more matching files are ignored (.gitignore, dependencies, caches)" in found.text

    hits = await call(project, "grep", pattern="TOKEN")
    assert hits.text.strip() == "src/conf.py:1:TOKEN = 2"
    all_hits = await call(project, "grep", pattern="TOKEN", include_ignored=True)
    assert {line.split(":")[0] for line in all_hits.text.splitlines()} == {
        "build/gen.py", "debug.log", "src/conf.py",
    }


async def test_list_dir_leaves_out_what_gitignore_ignores_and_says_so(project: Path) -> None:
    (project / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (project / "build").mkdir()
    (project / "debug.log").write_text("x\n")
    (project / "keep.log").write_text("x\n")
    (project / "src" / ".ignore").write_text("generated.py\n")
    (project / "src" / "generated.py").write_text("x = 1\n")

    top = (await call(project, "list_dir")).text.splitlines()
    assert "build/" not in top and "debug.log" not in top and ".git/" not in top
    assert "keep.log" in top and ".gitignore" in top
    assert top[-1] == "[3 ignored entries not shown (.git/, build/, debug.log); include_ignored=true lists them]"
    inner = (await call(project, "list_dir", path="src")).text.splitlines()
    assert "generated.py" not in inner and "app.py" in inner
    assert inner[-1] == "[1 ignored entries not shown (generated.py); include_ignored=true lists them]"
    everything = (await call(project, "list_dir", include_ignored=True)).text.splitlines()
    assert {"build/", "debug.log", ".git/"} <= set(everything)
