"""Signing in as the ACP registry asks: the agent offers a terminal method, an editor runs
the agent with that method's arguments in a real terminal, the user answers there, and the
agent then authenticates and answers with the key saved, which never reached the screen."""

from __future__ import annotations

import asyncio
import os
import pty
import select
import stat
import sys
import time
from pathlib import Path

from acp import text_block

from tests.support.acp_editor import API_KEY, agent_env, editor
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE

KEY = "sk-login-" + "7f3a" * 6


class Terminal:
    """``neocode ARGS`` in a pseudo-terminal, as an editor starts a terminal method."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.pid, self.master = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "neocode_tui", *args], env)
        self.shown = b""

    def until(self, text: bytes | None) -> None:
        """Read until ``text`` is shown (None: until the program has closed the terminal)."""
        deadline = time.monotonic() + PATIENCE
        while text is None or text not in self.shown:
            assert time.monotonic() < deadline, f"never shown {text!r}: {self.shown[-500:]!r}"
            if select.select([self.master], [], [], 0.5)[0]:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the program exited: Linux says EIO
                    chunk = b""
                if not chunk:
                    assert text is None, f"ended before {text!r}: {self.shown[-500:]!r}"
                    return
                self.shown += chunk

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def exit_code(self) -> int:
        self.until(None)
        _, status = os.waitpid(self.pid, 0)
        os.close(self.master)
        return os.waitstatus_to_exitcode(status)


def login_env(model: Dialect, home: Path) -> dict[str, str]:
    env = agent_env(model.server.url, home, TERM="xterm-256color")
    for name in ("OPENAI_API_KEY", "NEOCODE_BASE_URL", "NEOCODE_PROVIDER"):
        env.pop(name)
    return env


async def test_the_registry_s_terminal_method_saves_the_key_and_the_agent_then_answers(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = login_env(model, home)
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('# mine\ntheme = "nord"\n')
    async with editor(env, workspace) as ed:
        methods = {method.id: method for method in ed.initialized.auth_methods}
    terminal = methods["login"]
    assert terminal.type == "terminal" and terminal.args == ["login"]

    term = await asyncio.to_thread(Terminal, terminal.args, {**env, **(terminal.env or {})}, workspace)
    await asyncio.to_thread(term.until, b"Provider [1]: ")
    term.type("1")
    await asyncio.to_thread(term.until, b"Server URL [https://api.openai.com/v1]: ")
    term.type(model.server.url + "/v1")
    await asyncio.to_thread(term.until, b"API key (not shown as you type): ")
    term.type(KEY)
    code = await asyncio.to_thread(term.exit_code)

    assert code == 0, term.shown
    assert b"Saved the openai key to" in term.shown
    assert KEY.encode() not in term.shown  # not echoed, not printed
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    saved = config.read_text()
    assert saved.startswith('# mine\ntheme = "nord"\n') and f'openai_api_key = "{KEY}"' in saved

    model.reply("Signed in.")
    async with editor(env, workspace) as ed:
        assert await ed.conn.authenticate(method_id="login") is not None
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("hi")]), PATIENCE)
    assert reply.stop_reason == "end_turn"
    assert model.server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert API_KEY not in saved


async def test_login_without_a_terminal_says_what_to_do_and_saves_nothing(
    model: Dialect, workspace: Path, home: Path
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "neocode_tui", "login", cwd=workspace, env=login_env(model, home),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 2 and out == b""
    assert "neocode login asks in a terminal" in err.decode()
    assert not (home / "config" / "config.toml").exists()


async def test_ctrl_c_at_the_key_saves_nothing(model: Dialect, workspace: Path, home: Path) -> None:
    term = await asyncio.to_thread(Terminal, ["login"], login_env(model, home), workspace)
    await asyncio.to_thread(term.until, b"Provider [1]: ")
    term.type("2")
    await asyncio.to_thread(term.until, b"Server URL [https://api.anthropic.com]: ")
    term.type("")
    await asyncio.to_thread(term.until, b"API key (not shown as you type): ")
    os.write(term.master, b"\x03")
    code = await asyncio.to_thread(term.exit_code)
    assert code == 1 and b"Nothing saved." in term.shown
    assert not (home / "config" / "config.toml").exists()
