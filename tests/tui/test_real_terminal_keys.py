"""Every key the key overlay lists, typed as the bytes terminals send into the real
``neocode`` running in tmux (a real pseudo-terminal): what the user then sees on screen.

tmux sends Alt+Enter as ESC CR and Shift+Enter as plain CR; xterm with modifyOtherKeys sends
Shift+Enter as ``ESC[27;2;13~``, kitty, foot and WezTerm as ``ESC[13;2u``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE
from tests.support.tmux import Tmux
from tests.support.waits import wait_until

ALT_ENTER = b"\x1b\r"
CTRL_J = b"\n"
XTERM_SHIFT_ENTER = b"\x1b[27;2;13~"
KITTY_SHIFT_ENTER = b"\x1b[13;2u"
ENTER = b"\r"
UP, DOWN = b"\x1b[A", b"\x1b[B"
F1, SHIFT_TAB, ESC = b"\x1bOP", b"\x1b[Z", b"\x1b"
CTRL_C, CTRL_R, CTRL_T, CTRL_O, CTRL_P = b"\x03", b"\x12", b"\x14", b"\x0f", b"\x10"
PAGE_UP, PAGE_DOWN, END = b"\x1b[5~", b"\x1b[6~", b"\x1b[4~"


def in_prompt(screen: str) -> str:
    """The text in the input box: the last box drawn on screen."""
    lines = screen.splitlines()
    top = max((i for i, line in enumerate(lines) if line.startswith("╭")), default=len(lines))
    inside: list[str] = []
    for line in lines[top + 1 :]:
        if line.startswith("╰"):
            break
        inside.append(line.strip().removeprefix("│").removesuffix("│").strip())
    return "\n".join(inside).strip("\n")


class App:
    """The app's tmux window: type bytes, wait for the screen to show something."""

    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux
        self.shown = ""

    def type(self, *keys: bytes | str) -> None:
        data = b"".join(key.encode() if isinstance(key, str) else key for key in keys)
        self.tmux("send-keys", "-t", "t:app", "-H", *(f"{byte:02x}" for byte in data))

    async def shows(self, *parts: str, gone: tuple[str, ...] = (), prompt: str | None = None, what: str = "") -> str:
        """``prompt``: what the input box holds."""
        def now() -> bool:
            self.shown = self.tmux.screen("app")
            return (all(part in self.shown for part in parts) and not any(part in self.shown for part in gone)
                    and (prompt is None or in_prompt(self.shown) == prompt))

        try:
            await wait_until(now, what=what or f"{parts} on screen, {gone} not")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.shown}") from None
        return self.shown


async def test_every_listed_key_does_what_the_overlay_says_in_a_real_terminal(
    openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    openai_only.reply("Counting.", [("c1", "bash", json.dumps({"command": "seq 101 140"}))])
    openai_only.reply("Counted.")
    openai_only.reply("Second answer.")
    openai_only.reply("Vi answer.")
    tmux.window("app", f"cd {shlex.quote(str(workspace))} && {NEOCODE} --approval full-auto")
    tmux.go("app")
    app = App(tmux)
    await app.shows("type a task and press Enter", "full-auto")

    # Each new-line key breaks the line; none of them sends.
    app.type("alpha one", ALT_ENTER, "two", CTRL_J, "three\\", ENTER, "four", XTERM_SHIFT_ENTER,
             "five", KITTY_SHIFT_ENTER, "six")
    first = "alpha one\ntwo\nthree\nfour\nfive\nsix"
    await app.shows(prompt=first)
    assert openai_only.server.requests == []

    app.type(ENTER)
    await app.shows("Counted.", "more lines")
    assert openai_only.request(1)["messages"][-1]["content"].startswith(first)

    # Ctrl+T unfolds the command's output, and folds it back.
    app.type(CTRL_T)
    await app.shows("140", gone=("more lines",))
    app.type(CTRL_T)
    await app.shows("more lines")
    # Ctrl+O unfolds everything.
    app.type(CTRL_O)
    await app.shows("everything unfolded", "140")
    # PageUp scrolls back (the jump bar says more is below), PageDown and End come down.
    app.type(PAGE_UP)
    await app.shows("more below")
    app.type(PAGE_DOWN)
    await app.shows("140", gone=("more below",))
    app.type(PAGE_UP)
    await app.shows("more below")
    app.type(END)
    await app.shows("140", gone=("more below",))

    app.type("beta", ENTER)
    await app.shows("Second answer.")
    # Up walks the history back, Down forward to the empty draft; Ctrl+C clears the input.
    app.type(UP)
    await app.shows(prompt="beta")
    app.type(UP)
    await app.shows(prompt=first)
    app.type(DOWN)
    await app.shows(prompt="beta")
    app.type(CTRL_C)
    await app.shows(prompt="")
    # Ctrl+R finds the latest prompt holding what is typed.
    app.type("one", CTRL_R)
    await app.shows(prompt=first)
    app.type(CTRL_C, "zzz", CTRL_R)
    await app.shows("No earlier prompt holds 'zzz'")
    app.type(CTRL_C)

    # Shift+Tab cycles the mode (full-auto is never one key away: it goes to ask).
    app.type(SHIFT_TAB)
    await app.shows("ask", gone=("full-auto",))
    # F1 opens the key list, Esc closes it; ? on an empty prompt opens it, typing goes on.
    app.type(F1)
    await app.shows("Ctrl+R", "Alt+Enter")
    app.type(ESC)
    await app.shows(gone=("Alt+Enter",), prompt="")
    app.type("?")
    await app.shows("Alt+Enter")
    app.type("hello")
    await app.shows(gone=("Alt+Enter",), prompt="hello")
    app.type(CTRL_C)
    # Ctrl+P opens the command palette; / completes commands.
    app.type(CTRL_P)
    await app.shows("Search for commands")
    app.type(ESC)
    await app.shows(gone=("Search for commands",), prompt="")

    # Vi mode: Esc typed with the next key in one write (as a fast typist's terminal and tmux,
    # within its escape-time, deliver it: ESC 0, ESC b) is Esc then that key; Esc on its own
    # goes to NORMAL; Enter in NORMAL sends.
    app.type("/vim", ENTER)
    await app.shows("vi mode on", "─ INSERT ─")
    app.type("alpha beta gamma", ESC, "0dw")
    await app.shows("─ NORMAL ─", prompt="beta gamma")
    app.type("wcwomega")
    await app.shows("─ INSERT ─", prompt="beta omega")
    app.type(ESC)  # on its own: tmux holds it for its escape-time, then the app reads Esc
    await app.shows("─ NORMAL ─", gone=("─ INSERT ─",), prompt="beta omega")
    app.type("A delta", ESC, "bx")
    await app.shows("─ NORMAL ─", prompt="beta omega elta")
    app.type(ENTER)
    await app.shows("Vi answer.", "─ INSERT ─")
    assert openai_only.request(4)["messages"][-1]["content"].startswith("beta omega elta")

    app.type("/exi")
    await app.shows("/exit")
    app.type(ENTER)
    left = await app.shows("continue it with: neocode --continue")
    # The last answer stays in the terminal once the app's screen is gone, above the exit line.
    assert left.index("Vi answer.") < left.index("continue it with: neocode --continue")
