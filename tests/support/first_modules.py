"""``neocode ARGS`` run as a user runs it, writing down once the modules it has imported
at a moment of its start: ``request`` (it opens its first connection, to send its first
request) or ``acp`` (it begins to import the ACP SDK). At that moment it also writes
``MARK`` to stderr, so that a test reading stderr and stdout from one pipe sees what came
out before it.

    python tests/support/first_modules.py request OUT -p hi

Run as a script, by path: nothing of the tests is imported into the process it measures,
and an audit hook (``sys.addaudithook``) sees the moment without changing what runs.
"""

import os
import sys

MARK = b"first_modules: the moment\n"


def main() -> int:
    moment, out, *args = sys.argv[1:]
    written: list[str] = []

    def hook(event: str, details: tuple[object, ...]) -> None:
        if written:
            return
        connects = event == "socket.connect" and isinstance(details[1], tuple)
        sdk = event == "import" and details[0] == "acp"
        if (moment == "request" and connects) or (moment == "acp" and sdk):
            written.append(event)
            with open(out, "w", encoding="utf-8") as file:
                file.write("\n".join(sorted(sys.modules)))
            os.write(2, MARK)

    sys.addaudithook(hook)
    sys.argv = ["neocode", *args]
    from neocode_tui.cli import main as neocode

    return neocode()


if __name__ == "__main__":
    raise SystemExit(main())
