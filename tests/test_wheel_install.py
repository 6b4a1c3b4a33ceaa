"""NeoCode installed as a user installs it: from a built wheel, into an environment of its own.

The wheel is built from a copy of the files a build reads (so the checkout gets no build/ or
.egg-info), without build isolation, since tests reach no package index. The fresh
environment takes the third-party dependencies from the test's own environment (a path in a
.pth file) but neocode_tui only from the wheel: the checkout is not on its path, and once the
wheel is uninstalled ``import neocode_tui`` fails there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from neocode_tui import __version__
from tests.support.waits import PATIENCE

ROOT = Path(__file__).resolve().parents[1]
BUILD_INPUTS = ("pyproject.toml", "README.md", "neocode_tui", "themes")
THEMES = sorted(path.name for path in (ROOT / "themes").glob("*.toml"))


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done.stdout


def build_wheel(folder: Path, version: str = __version__) -> Path:
    """The wheel of a copy of the checkout, with ``version`` as the package's own."""
    source = folder / "source"
    source.mkdir(parents=True)
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    init = source / "neocode_tui" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{__version__}"', f'"{version}"'))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
        "-q", "-w", folder / "dist", source, cwd=folder)
    [wheel] = (folder / "dist").glob("*.whl")
    return wheel


def pip(env: Path, *args: str | Path) -> str:
    """pip, run for the fresh environment's interpreter (it has no pip of its own)."""
    return run(sys.executable, "-m", "pip", "--python", env / "bin" / "python", *args, cwd=env)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_every_package_file_the_themes_and_the_command(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "neocode_tui").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert "neocode_tui/tui/app.tcss" in package
    assert package - names == set()  # the .py files and the data beside them (.tcss, .json, .sse)
    data = f"neocode_tui-{__version__}.data/data/share/neocode/themes/"
    assert sorted(name.removeprefix(data) for name in names if name.startswith(data)) == THEMES
    entry_points = zipfile.ZipFile(wheel).read(f"neocode_tui-{__version__}.dist-info/entry_points.txt")
    assert b"neocode = neocode_tui.cli.dispatch:main" in entry_points


@pytest.mark.timeout(400)
def test_installed_from_the_wheel_it_starts_with_its_themes_upgrades_and_uninstalls(
    wheel: Path, tmp_path: Path
) -> None:
    env = tmp_path / "env"
    run(sys.executable, "-m", "venv", "--without-pip", env, cwd=tmp_path)
    site = Path(run(env / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                    cwd=tmp_path).strip())
    (site / "third_party.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip(env, "install", "--no-deps", "--no-index", "-q", wheel)
    pip(env, "check")  # every dependency the wheel declares is there

    project = tmp_path / "project"
    project.mkdir()
    user = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTHONHOME")}
    neocode = env / "bin" / "neocode"

    where = run(env / "bin" / "python", "-c", "\n".join((
        "import sys, neocode_tui",
        "from neocode_tui.tui.themes import BUNDLED_THEMES, discover_themes",
        "print(neocode_tui.__file__)",
        "print(BUNDLED_THEMES)",
        "print(' '.join(sorted(theme.name for theme in discover_themes()[0])))",
        "print('\\n'.join(sys.path))",
    )), cwd=project, env=user).splitlines()
    assert Path(where[0]).is_relative_to(site)
    assert Path(where[1]) == env / "share" / "neocode" / "themes"
    assert where[2].split() == [name.removesuffix(".toml") for name in THEMES]
    # The only folder on its path that holds a neocode_tui package is its own site-packages.
    holders = [entry for entry in where[3:] if (project / entry / "neocode_tui").is_dir()]
    assert holders == [str(site)]

    assert run(neocode, "--version", cwd=project, env=user) == f"neocode {__version__}\n"
    answer = run(neocode, "-p", "hi", "--provider", "scripted", cwd=project, env=user)
    assert "I am NeoCode's **offline model**" in answer
    # The app itself, in the installed theme: the README's picture, drawn by the wheel.
    run(neocode, "demo", "showcase", "--record", tmp_path / "picture.svg", cwd=project, env=user)
    same = (tmp_path / "picture.svg").read_bytes() == (ROOT / "docs" / "neocode.svg").read_bytes()
    assert same, "the installed app draws the README's picture differently from the checkout"

    newer = build_wheel(tmp_path / "newer", version="99.0.0")
    pip(env, "install", "--upgrade", "--no-deps", "--no-index", "-q", newer)
    assert run(neocode, "--version", cwd=project, env=user) == "neocode 99.0.0\n"

    pip(env, "uninstall", "-y", "-q", "neocode-tui")
    assert not neocode.exists() and not (env / "share" / "neocode" / "themes").exists()
    gone = subprocess.run([env / "bin" / "python", "-c", "import neocode_tui"], cwd=project, env=user,
                          capture_output=True, text=True, timeout=PATIENCE)
    assert "No module named 'neocode_tui'" in gone.stderr
