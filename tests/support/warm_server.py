"""A warm ``neocode``: one interpreter that has imported NeoCode once and forks a fresh
process for each run a test asks of ``warm_launcher.py``.

    python tests/support/warm_server.py SOCKET

Each run is a real process of its own: the launcher's stdin, stdout and stderr (passed as
descriptors, so they are the very pipes or terminal the test holds), its environment, its
folder and its arguments, then ``neocode``'s own entry point and the interpreter's normal
exit. Only the interpreter's start and the imports (about a second of CPU on a busy
machine, paid hundreds of times by the suite) are shared. Each run forks from the state
right after the imports, never from another run. Run by path, like ``first_modules.py``:
nothing of the tests is imported into the runs.
"""

import gc
import importlib
import io
import json
import os
import pkgutil
import select
import signal
import socket
import struct
import sys

HEADER = struct.Struct("!I")
"""The length of the request that follows (JSON: argv, env, cwd)."""
STATUS = struct.Struct("!i")
"""The run's exit code, as ``subprocess`` gives it (negative: the signal that ended it)."""


def import_neocode() -> None:
    """Every module of NeoCode (and so what they import), as a run would import them."""
    import neocode_tui

    for module in pkgutil.walk_packages(neocode_tui.__path__, "neocode_tui."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)


def main() -> None:
    del sys.path[0]  # this folder: its modules are the tests', not NeoCode's
    import_neocode()
    from neocode_tui.cli.dispatch import main as neocode

    gc.freeze()  # a run's collections would touch, and so copy, every page of the imports

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sys.argv[1])
    listener.listen(64)
    os.write(1, b"ready\n")
    while True:
        # The test's worker holds our stdin: when it ends, so do we.
        ready, _, _ = select.select([listener, 0], [], [])
        reap()
        if 0 in ready:
            os._exit(0)
        connection, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            handle(connection)  # returns only in the run itself
            raise SystemExit(neocode())
        connection.close()


def reap() -> None:
    """Collects the runs that have ended, so that their CPU time counts as this process's
    children's (``time pytest`` measures the whole suite)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def handle(connection: socket.socket) -> None:
    """Starts the run asked for on ``connection``, then passes signals to it and its exit
    code back; returns only in the run's own process, set up as the launcher asked."""
    message, fds, _, _ = socket.recv_fds(connection, HEADER.size, 3)
    (length,) = HEADER.unpack(message)
    body = b""
    while len(body) < length:
        body += connection.recv(length - len(body))
    request = json.loads(body)
    pid = os.fork()
    if pid == 0:
        connection.close()
        become_run(fds, request)
        return
    for fd in fds:
        os.close(fd)
    watch(connection, pid)


def become_run(fds: list[int], request: dict) -> None:
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["neocode", *request["argv"]]
    standard_streams()
    signal.signal(signal.SIGINT, signal.default_int_handler)


def standard_streams() -> None:
    """``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` as the interpreter makes them at start,
    for the descriptors the run has now (a terminal is line-buffered; PYTHONUNBUFFERED)."""
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        old = getattr(sys, name)
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        if fd == 0:
            binary: io.RawIOBase | io.BufferedIOBase = io.BufferedReader(raw)
        else:
            binary = raw if unbuffered else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(
            binary, encoding=old.encoding, errors=old.errors,
            line_buffering=fd == 2 or (fd == 1 and os.isatty(fd)), write_through=unbuffered and fd > 0,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def watch(connection: socket.socket, pid: int) -> None:
    """Until the run ends: a byte from the launcher is a signal for the run, the launcher
    gone (killed) ends the run; then the run's exit code goes back."""
    pidfd = os.pidfd_open(pid)
    while True:
        ready, _, _ = select.select([connection, pidfd], [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            try:
                connection.sendall(STATUS.pack(os.waitstatus_to_exitcode(status)))
            finally:
                os._exit(0)
        data = connection.recv(16)
        for number in data or bytes([signal.SIGKILL]):
            os.kill(pid, number)
        if not data:
            os.waitpid(pid, 0)
            os._exit(0)


if __name__ == "__main__":
    main()
