"""Running the agent's shell commands inside bubblewrap, so they need no yes to be safe.

``workspace-write``: the workspace is writable, ``/tmp`` is private, everything else is
read-only; the home folder is an empty private one with only toolchains bound back
(``sandbox_home``), and NeoCode's own config and sessions, ``.env`` files above the
workspace and the agent sockets are replaced by empty unreadable ones; the environment is
an allow-list (``sandbox_env``); the network is off unless asked for; what git reads as
configuration or code stays read-only and no repository can be made at the workspace root
(``sandbox_git``), and so do the workspace's protected files (``sandbox_files``); a skill
in use has its folder bound back read-only wherever it lives; the
command gets no capability and its own process and IPC namespaces, and dies with NeoCode.
``read-only`` makes the workspace read-only too.

Where bubblewrap is missing or cannot make namespaces, the sandbox is unavailable and
says why: commands then run as they are and ask for approval, never pretend-sandboxed.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from neocode_tui.agent.sandbox import git as sandbox_git
from neocode_tui.agent.sandbox.env import allowed_environment
from neocode_tui.agent.sandbox.files import read_only_mounts
from neocode_tui.agent.sandbox.home import home_mounts
from neocode_tui.paths import config_dir, data_dir, home_folders
from neocode_tui.vocabulary import SandboxMode

SOCKET_PATHS = ("/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock")
PROBE_TIMEOUT = 10.0

NETWORK_SIGNS = (
    "Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
    "Name or service not known", "No address associated with hostname", "Connection refused",
    "getaddrinfo", "nodename nor servname",
)
WRITE_SIGNS = ("Read-only file system",)
ACCESS_SIGNS = ("Permission denied", "Operation not permitted")
MISSING_SIGN = "No such file or directory"


@dataclass(frozen=True)
class Sandbox:
    """How commands run: ``mode`` is what is in force ("off" when unavailable);
    ``unavailable`` says why a sandbox that was asked for cannot run."""

    mode: SandboxMode = "off"
    network: bool = False
    unavailable: str = ""
    bwrap: str = "bwrap"
    added: tuple[Path, ...] = ()
    """More folders commands may write, as the workspace (``--add-dir``)."""
    readable: tuple[Path, ...] = ()
    """Folders outside the workspace commands may read, bound read-only over whatever hides
    them (a skill's, while it is in use, so its bundled scripts run)."""

    @property
    def active(self) -> bool:
        return self.mode != "off"

    @property
    def label(self) -> str:
        """A few words for the status bar: none for the usual sandbox, so only a
        departure from it (weaker, or stronger) takes room."""
        if self.unavailable:
            return "no sandbox"
        if not self.active:
            return "sandbox off"
        if self.mode == "workspace-write" and not self.network:
            return ""
        return f"sandbox: {self.mode}" + (" + network" if self.network else "")

    def describe(self) -> dict[str, object]:
        return {"mode": self.mode, "network": self.network and self.active,
                "unavailable": self.unavailable or None}

    def command(self, argv: list[str], workspace: Path) -> list[str]:
        """``argv`` wrapped to run confined in ``workspace`` (unchanged when not active)."""
        if not self.active:
            return argv
        return [self.bwrap, *self._mounts(workspace.resolve()), *self._isolation(),
                "--chdir", str(workspace), "--", *argv]

    @contextmanager
    def prepared(self, workspace: Path) -> Iterator[None]:
        """Around a command's whole run: stand-ins where git's configuration is missing,
        so that a command cannot create it (``sandbox_git.standing_in``)."""
        if self.mode != "workspace-write":
            yield
            return
        with sandbox_git.standing_in(sandbox_git.guard(workspace.resolve())):
            yield

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """The command's environment: the allowed variables, temporary files in /tmp."""
        if not self.active:
            return dict(base)
        env = allowed_environment(base)
        env["TMPDIR"] = "/tmp"
        return env

    def _isolation(self) -> list[str]:
        flags = ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session",
                 "--cap-drop", "ALL"]
        return flags if self.network else [*flags, "--unshare-net"]

    def _mounts(self, workspace: Path) -> list[str]:
        args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        args += home_mounts(workspace, os.environ)
        bind = "--bind" if self.mode == "workspace-write" else "--ro-bind"
        args += [bind, str(workspace), str(workspace)]  # a workspace in /tmp stays visible
        for folder in self.added:
            args += [bind, str(folder), str(folder)]
            if self.mode == "workspace-write":
                args += read_only_mounts(folder)
        blank = _blanks()
        for path in _secrets(workspace):
            if path.is_dir():
                args += ["--perms", "0000", "--tmpfs", str(path)]
            else:
                args += ["--ro-bind", str(blank), str(path)]
        if self.mode == "workspace-write":
            args += sandbox_git.guard(workspace).mounts()
            args += read_only_mounts(workspace)
        for folder in self.readable:
            args += ["--ro-bind", str(folder), str(folder)]
        return args

    def failure_hint(self, output: str) -> str:
        """Why a failed command may have failed because of the sandbox ("" if no sign)."""
        if not self.active:
            return ""
        if not self.network and any(sign in output for sign in NETWORK_SIGNS):
            return "the network is off in the sandbox"
        if any(sign in output for sign in WRITE_SIGNS):
            where = "anywhere" if self.mode == "read-only" else "outside the workspace and /tmp"
            return f"writing {where} is blocked"
        if any(sign in output for sign in ACCESS_SIGNS):
            return ("the user's credential folders are hidden and files outside the "
                    "workspace are read-only")
        if MISSING_SIGN in output and any(str(home) in output for home in home_folders()):
            return ("the home folder is hidden in the sandbox, except toolchains and "
                    "package caches")
        return ""


def choose_sandbox(mode: SandboxMode | None, network: bool = False) -> Sandbox:
    """The sandbox for ``mode`` (None: ``workspace-write``), or why it cannot run here."""
    mode = mode or "workspace-write"
    if mode == "off":
        return Sandbox("off", network)
    if _early_probe is not None:
        _early_probe.join()
    bwrap, problem = probe()
    if bwrap is None:
        return Sandbox("off", network, unavailable=problem)
    return Sandbox(mode, network, bwrap=bwrap)


_early_probe: threading.Thread | None = None


def probe_early() -> None:
    """Start ``probe`` in a thread: bubblewrap's trial run goes on while the caller does
    other work (``neocode`` imports the app meanwhile); ``choose_sandbox`` waits for it."""
    global _early_probe
    if _early_probe is None:
        _early_probe = threading.Thread(target=probe, name="sandbox probe", daemon=True)
        _early_probe.start()


@functools.cache
def probe() -> tuple[str | None, str]:
    """bubblewrap's path if it can build the sandbox here (once per process), else why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed"
    trial = Sandbox("read-only", bwrap=bwrap).command(["true"], Path("/"))
    try:
        done = subprocess.run(trial, capture_output=True, timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap does not run: {exc}"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return None, "bubblewrap cannot make a sandbox here" + (f" ({reason[-1]})" if reason else "")
    return bwrap, ""


def _secrets(workspace: Path) -> Iterator[Path]:
    """Existing paths to hide, resolved; never one holding the workspace (it must stay)."""
    candidates = [config_dir(), data_dir(), *map(Path, SOCKET_PATHS)]
    candidates.append(Path(f"/run/user/{os.getuid()}"))
    for folder in workspace.parents:
        candidates += _env_files(folder)
    seen: set[Path] = set()
    for path in candidates:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if real in seen or workspace.is_relative_to(real) or real == Path("/"):
            continue
        seen.add(real)
        yield real


def _env_files(folder: Path) -> list[Path]:
    try:
        return [entry for entry in folder.iterdir()
                if entry.name == ".env" or entry.name.startswith(".env.")]
    except OSError:
        return []


@functools.cache
def _blanks() -> Path:
    """An empty file nobody may read, bound over secret files (once per process)."""
    folder = Path(tempfile.mkdtemp(prefix="neocode-sandbox-"))
    blank = folder / "hidden"
    blank.touch(mode=0)
    blank.chmod(0)
    atexit.register(shutil.rmtree, folder, True)
    return blank


def failure_note(sandbox: Sandbox, output: str) -> str:
    """The line added to a failed sandboxed command's result, or ""."""
    hint = sandbox.failure_hint(output)
    if not hint:
        return ""
    return (f"[this may have failed because of the sandbox: {hint}. If it must run outside "
            "the sandbox, call bash again with \"unsandboxed\": true; the user will be asked]")


def secret_free(env: Mapping[str, str], secrets: Iterable[str]) -> dict[str, str]:
    """``env`` without API key variables and without any value holding a configured key."""
    keys = [key for key in secrets if key]
    return {
        name: value for name, value in env.items()
        if "API_KEY" not in name.upper() and not any(key in value for key in keys)
    }
