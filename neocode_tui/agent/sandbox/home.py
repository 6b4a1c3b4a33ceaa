"""The home folder inside the sandbox: hidden, with only what a build needs bound back.

A list of credential files to hide is never complete: every tool keeps its own
(``~/.codex/auth.json``, ``~/.cargo/credentials.toml``, ``~/.pgpass``, a token under
``~/.cache``, shell history). So the home folder is replaced by an empty private one (a
tmpfs: a command may write there, and what it writes is gone when it ends), and only
toolchains, package caches and git's identity are bound back, read-only:
``HOME_TOOLCHAINS``, the folders of ``PATH`` inside the home, and the active virtualenv
or conda environment. Where a tool keeps credentials beside its toolchain, only the
toolchain's subfolders are listed (``~/.cargo/bin`` and ``registry``, not
``credentials.toml``; ``~/.m2/repository``, not ``settings.xml``).

Both the ``HOME`` of the environment and the account's home are hidden, when they
differ; a home holding the workspace is hidden around it (the workspace is bound back
after), but never one the workspace holds (that workspace is refused before any command,
see ``workspace.refuse_too_wide``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from neocode_tui.paths import home_folders

HOME_TOOLCHAINS = (
    # Python
    ".pyenv", ".local/bin", ".local/lib", ".local/share/uv", ".local/share/pipx",
    ".cache/pip", ".cache/uv", ".cache/pypoetry", ".conda", "miniconda3", "miniforge3",
    "anaconda3",
    # Rust
    ".rustup", ".cargo/bin", ".cargo/registry", ".cargo/git",
    # JavaScript
    ".nvm", ".volta", ".bun/bin", ".deno/bin", ".npm/_cacache", ".local/share/pnpm",
    ".cache/yarn",
    # Go
    "go", ".cache/go-build",
    # JVM
    ".sdkman/candidates", ".m2/repository", ".gradle/caches", ".gradle/wrapper",
    # Other languages and version managers
    ".asdf", ".local/share/mise", ".rbenv", ".gem/ruby", ".local/share/gem", ".dotnet",
    ".ghcup", ".elan", ".nix-profile",
    # git: who commits, aliases, ignore rules
    ".gitconfig", ".config/git",
)
"""Under each home folder, bound back read-only where they exist."""
ENV_PREFIXES = ("VIRTUAL_ENV", "CONDA_PREFIX")
"""Variables naming the active Python environment, bound back whole."""


def home_mounts(workspace: Path, env: Mapping[str, str]) -> list[str]:
    """bubblewrap's arguments hiding the home folders, with the toolchains bound back."""
    args: list[str] = []
    hidden = [home for home in home_folders() if not home.is_relative_to(workspace)]
    for home in hidden:
        args += ["--tmpfs", str(home)]
    for place, source in _bound_back(hidden, env):
        args += ["--ro-bind", str(source), str(place)]
    return args


def _bound_back(hidden: list[Path], env: Mapping[str, str]) -> Iterator[tuple[Path, Path]]:
    """(where it shows in the sandbox, what is bound there) for each toolchain path."""
    wanted = [home / name for home in hidden for name in HOME_TOOLCHAINS]
    wanted += [Path(folder) for folder in env.get("PATH", "").split(os.pathsep) if folder]
    wanted += [Path(env[name]) for name in ENV_PREFIXES if env.get(name)]
    seen: set[Path] = set()
    for wanted_path in wanted:
        if not wanted_path.is_absolute():
            continue
        try:
            source = wanted_path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        # Where the sandbox looks for it: the path as given if it is in a hidden home
        # (``~/.pyenv`` linked to /opt), else where it leads, if that is in one.
        place = Path(os.path.normpath(wanted_path))
        if not _inside(place, hidden):
            place = source
        if not _inside(place, hidden) or place in seen:
            continue  # outside the hidden homes, it is visible anyway
        if any(home.is_relative_to(source) for home in hidden):
            continue  # a link to the home itself (or above) would undo the hiding
        seen.add(place)
        yield place, source


def _inside(path: Path, hidden: list[Path]) -> bool:
    """Strictly inside one of the hidden homes."""
    return any(path != home and path.is_relative_to(home) for home in hidden)
