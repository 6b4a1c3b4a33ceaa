"""``neocode ARGS`` run by the warm server (``warm_server.py``): this process hands it its
stdin, stdout and stderr, its environment, folder and arguments, passes on the signals it
gets (a test's ``terminate()``, a Ctrl+C) and ends as the run ended.

    python -I -S tests/support/warm_launcher.py SOCKET ARGS...

Only the standard library, with ``-I -S``: this start costs a few milliseconds.
"""

import json
import os
import signal
import socket
import struct
import sys

HEADER = struct.Struct("!I")
STATUS = struct.Struct("!i")


def main() -> None:
    path, *argv = sys.argv[1:]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.connect(path)
    request = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    socket.send_fds(server, [HEADER.pack(len(request))], [0, 1, 2])
    server.sendall(request)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, lambda number, _frame: server.send(bytes([number])))
    status = b""
    while len(status) < STATUS.size:
        data = server.recv(STATUS.size - len(status))
        if not data:
            os._exit(1)  # the server went away: nothing to report
        status += data
    (code,) = STATUS.unpack(status)
    if code < 0:  # ended by a signal: so is this process
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    main()
