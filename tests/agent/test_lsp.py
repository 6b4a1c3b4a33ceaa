"""Language servers: real ones from the package indexes (python-lsp-server from PyPI,
typescript-language-server and typescript from npm) behind the ``lsp`` tool and the
diagnostics an edit's result carries, with a scripted model over real HTTP; and servers that
crash, hang or write garbage, which are named and never hold the turn."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from neocode_tui.agent.lsp import LanguageServers, load_server_configs
from neocode_tui.agent.lsp import server as lsp_server
from neocode_tui.agent.sandbox import Sandbox
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from neocode_tui.trust import trust
from tests.support.dialects import Dialect

PYLSP = str(Path(sys.executable).parent / "pylsp")
TS_SERVER = str(Path(__file__).parents[1] / "node" / "node_modules" / ".bin" / "typescript-language-server")


def user_servers(text: str) -> None:
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def command_table(name: str, command: list[str], extensions: list[str]) -> str:
    return f"[lsp.{name}]\ncommand = {json.dumps(command)}\nextensions = {json.dumps(extensions)}\n"


@pytest.fixture
def pylsp() -> None:
    user_servers(command_table("python", [PYLSP], [".py"]))


def session(dialect: Dialect, workspace: Path) -> AgentSession:
    return AgentSession(Settings(provider=dialect.name, approval="auto-edit"), workspace, FrontEnd(),
                        provider=dialect.provider(), save=False)


def call(call_id: str, name: str, **arguments: object) -> tuple[str, str, str]:
    return (call_id, name, json.dumps(arguments))


async def test_an_edit_that_breaks_python_comes_back_with_the_servers_error(
    openai_only: Dialect, workspace: Path, pylsp: None
) -> None:
    openai_only.reply("", [call("e1", "edit_file", path="app.py", old_string="print(greet())",
                                new_string="print(greet(), nope)")])
    openai_only.reply("", [call("e2", "edit_file", path="app.py", old_string=", nope)", new_string=")")])
    openai_only.reply("Fixed.")
    agent = session(openai_only, workspace)

    await agent.prompt("print more")
    await agent.aclose()

    broken = openai_only.tool_results(2)["e1"]
    assert broken.startswith("edited app.py (1 replacement)")
    assert broken.endswith("[1 error in this file now, from the language server python:\n"
                           "app.py:4:16: error: undefined name 'nope' [pyflakes]]")
    fixed = openai_only.tool_results(3)["e2"]
    assert "error" not in fixed.split("+++ app.py")[0] and "language server" not in fixed


async def test_the_lsp_tool_finds_definitions_references_hover_and_symbols(
    openai_only: Dialect, workspace: Path, pylsp: None
) -> None:
    openai_only.reply("", [
        call("d", "lsp", operation="definition", path="app.py", line=4, column=8),
        call("r", "lsp", operation="references", path="app.py", line=1, column=5),
        call("h", "lsp", operation="hover", path="app.py", line=4, column=8),
        call("s", "lsp", operation="symbols", path="app.py"),
        call("n", "lsp", operation="diagnostics", path="app.py"),
    ])
    openai_only.reply("Understood.")
    agent = session(openai_only, workspace)

    await agent.prompt("where is greet")
    await agent.aclose()

    results = openai_only.tool_results(2)
    assert results["d"] == "app.py:1:5"
    assert results["r"] == "app.py:1:5\napp.py:4:7"
    assert results["h"].startswith("greet()")
    assert results["s"] == "function greet (line 1)"
    assert results["n"] == "app.py: no problems found by python"


async def test_typescript_errors_come_back_after_a_write(openai_only: Dialect, workspace: Path) -> None:
    user_servers(command_table("typescript", [TS_SERVER, "--stdio"], [".ts"]))
    (workspace / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    source = 'export function greet(name: string): string {\n  return "hi " + name;\n}\nconst n: number = greet("x");\n'
    openai_only.reply("", [call("w", "write_file", path="greet.ts", content=source)])
    openai_only.reply("", [call("d", "lsp", operation="definition", path="greet.ts", line=4, column=20)])
    openai_only.reply("Written.")
    agent = session(openai_only, workspace)

    await agent.prompt("write greet.ts")
    await agent.aclose()

    assert openai_only.tool_results(2)["w"] == (
        "created greet.ts (4 lines)\n\n[1 error in this file now, from the language server typescript:\n"
        "greet.ts:4:7: error: Type 'string' is not assignable to type 'number'. [typescript]]")
    assert openai_only.tool_results(3)["d"] == "greet.ts:1:17"


async def test_a_server_that_crashes_is_named_with_its_exit_code(openai_only: Dialect, workspace: Path) -> None:
    crash = "import sys; sys.stderr.write('boom: cannot start\\n'); sys.exit(3)"
    user_servers(command_table("python", [sys.executable, "-c", crash], [".py"]))
    openai_only.reply("", [call("e", "edit_file", path="app.py", old_string="'hello'", new_string="'hi'")])
    openai_only.reply("", [call("n", "lsp", operation="diagnostics", path="app.py")])
    openai_only.reply("Noted.")
    agent = session(openai_only, workspace)

    await agent.prompt("change the greeting")
    await agent.aclose()

    edited = openai_only.tool_results(2)["e"]
    assert edited.startswith("edited app.py (1 replacement)")
    assert "[no diagnostics: the language server python stopped (exit code 3)" in edited
    assert (workspace / "app.py").read_text().startswith("def greet():\n    return 'hi'")
    assert "the language server python stopped (exit code 3)" in openai_only.tool_results(3)["n"]


async def test_a_server_that_hangs_or_writes_garbage_never_holds_the_turn(
    openai_only: Dialect, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    garbage = ("import sys, time; sys.stdout.write('Content-Length: 5\\r\\n\\r\\n{nope' * 50); "
               "sys.stdout.flush(); time.sleep(600)")
    user_servers(command_table("python", [sys.executable, "-c", garbage], [".py"]))
    monkeypatch.setattr(lsp_server, "START_LIMIT", 2.0)
    openai_only.reply("", [call("n", "lsp", operation="hover", path="app.py", line=1, column=5)])
    openai_only.reply("Moving on.")
    agent = session(openai_only, workspace)

    started = time.monotonic()
    await agent.prompt("hover greet")
    await agent.aclose()

    assert openai_only.tool_results(2)["n"] == "the language server python did not start within 2 s"
    assert time.monotonic() - started < 2.0 + 10, "the turn went on once the limit passed"
    assert openai_only.server.requests[-1].json["messages"][-1]["role"] == "tool"


async def test_no_server_for_a_file_says_how_to_add_one(openai_only: Dialect, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("plain\n")
    openai_only.reply("", [call("n", "lsp", operation="diagnostics", path="notes.txt")])
    openai_only.reply("Fine.")
    agent = session(openai_only, workspace)

    await agent.prompt("check the notes")
    await agent.aclose()

    assert openai_only.tool_results(2)["n"].startswith("no language server for .txt files (servers here: ")
    assert "add one as [lsp.NAME] in config.toml" in openai_only.tool_results(2)["n"]


def test_a_projects_servers_start_only_in_a_trusted_folder(workspace: Path) -> None:
    (workspace / ".neocode").mkdir()
    (workspace / ".neocode" / "config.toml").write_text(command_table("mine", ["/bin/sh", "-c", "true"], [".py"]))

    untrusted = load_server_configs(workspace, trusted=False)
    trust(workspace)
    trusted = load_server_configs(workspace, trusted=False)

    assert "mine" not in untrusted.servers
    assert untrusted.ignored == [".neocode/config.toml language servers not started (mine): "
                                 "this folder is not trusted"]
    assert trusted.servers["mine"].command == ("/bin/sh", "-c", "true") and not trusted.ignored


async def test_without_a_sandbox_servers_start_only_in_a_trusted_folder(workspace: Path, pylsp: None) -> None:
    servers = LanguageServers(workspace, load_server_configs(workspace, trusted=False), Sandbox("off"), [],
                              trusted=False)

    words = await servers.after_change(str(workspace / "app.py"), "print(nope)\n")

    assert words == ("[no diagnostics: language servers start only inside the sandbox or in a folder you "
                     "trust (bubblewrap is not available here)]")
    await servers.aclose()


def test_built_in_servers_are_the_ones_on_path(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(Path(PYLSP).parent))
    user_servers('[lsp.pylsp]\nextensions = [".py"]\n\n[lsp.gopls]\ndisabled = true\n')

    configs = load_server_configs(workspace, trusted=False)

    assert configs.servers["pylsp"].command == ("pylsp",)
    assert configs.for_file(workspace / "app.py") == "pylsp"
    assert "typescript" not in configs.servers and "gopls" not in configs.servers


async def test_a_server_gets_no_key_in_its_environment(
    openai_only: Dialect, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-lsp-secret-0123456789")
    monkeypatch.setenv("UPLOAD_TOKEN_FOR_TESTS", "sk-lsp-secret-0123456789")
    tell = ("import os, sys, time; sys.stderr.write('seen: ' + ','.join(sorted(name for name in os.environ "
            "if 'API_KEY' in name or 'UPLOAD_TOKEN' in name) or ['nothing']) + '\\n'); sys.stderr.flush(); "
            "time.sleep(600)")
    user_servers(command_table("python", [sys.executable, "-c", tell], [".py"]))
    monkeypatch.setattr(lsp_server, "START_LIMIT", 2.0)
    openai_only.reply("", [call("n", "lsp", operation="symbols", path="app.py")])
    openai_only.reply("Done.")
    agent = AgentSession(Settings(provider="openai", openai_api_key="sk-lsp-secret-0123456789", approval="auto-edit"),
                         workspace, FrontEnd(), provider=openai_only.provider(), save=False)

    await agent.prompt("outline app.py")
    await agent.aclose()

    assert openai_only.tool_results(2)["n"] == ("the language server python did not start within 2 s; "
                                                "it wrote: seen: nothing")
