"""A session in the home folder, ``/`` or a system folder is refused with a clear message,
by every front end (the app, ``-p``, an editor over ACP) and by the core itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from acp import RequestError

from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.workspace import WorkspaceTooWide
from neocode_tui.cli import build_parser
from neocode_tui.cli.app import run_app
from neocode_tui.settings.model import Settings
from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.headless import neocode

TOO_WIDE = "too wide to work in, since the agent could read and change every file in it"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.mark.parametrize(("where", "what"), [
    ("home", "is your home folder"),
    ("/", "is the root of the file system"),
    ("/usr", "is a system folder"),
    ("parent", "is a folder that holds your home folder"),
])
def test_the_app_refuses_before_drawing_anything(
    home: Path, where: str, what: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = {"home": home, "parent": home.parent}.get(where, Path(where))
    monkeypatch.chdir(folder)

    assert run_app(build_parser().parse_args([])) == 2

    err = capsys.readouterr().err
    assert err.startswith(f"neocode: {folder} {what}: {TOO_WIDE}")
    assert "Start neocode in a project folder instead" in err and "Traceback" not in err


async def test_a_headless_run_in_the_home_folder_is_refused(
    openai_only: Dialect, home: Path
) -> None:
    result = await neocode(openai_only, home, "-p", "tidy up my files")

    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"neocode: {home} is your home folder: {TOO_WIDE}")
    assert openai_only.server.requests == []  # nothing was sent anywhere

    in_project = await neocode(openai_only, home / "project", "-p", "hi")
    assert in_project.code != 2 and TOO_WIDE not in in_project.err


async def test_an_editor_asking_for_the_root_or_the_home_folder_is_refused(
    openai_only: Dialect, home: Path
) -> None:
    env = agent_env(openai_only.server.url, home, HOME=str(home),
                    PYTHONPATH=os.environ.get("PYTHONPATH", ""))  # this checkout's code
    async with editor(env, home / "project") as ed:
        for cwd, what in (("/", "is the root of the file system"), (str(home), "is your home folder")):
            with pytest.raises(RequestError) as refused:
                await ed.conn.new_session(cwd=cwd)
            assert refused.value.code == RequestError.invalid_params().code
            assert str(refused.value).startswith(f"{cwd} {what}: {TOO_WIDE}")
        session = await ed.conn.new_session(cwd=str(home / "project"))
        assert session.session_id


def test_the_core_refuses_such_a_session_too(home: Path) -> None:
    with pytest.raises(WorkspaceTooWide, match=f"is your home folder: {TOO_WIDE}"):
        AgentSession(Settings(provider="scripted"), home, save=False)
    with pytest.raises(WorkspaceTooWide, match="root of the file system"):
        AgentSession(Settings(provider="scripted"), Path(os.sep), save=False)
