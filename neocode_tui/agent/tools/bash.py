"""``bash``: one shell command in the workspace, in its own process group.

Everything the command started is the unit of cleanup (``ProcessTree``: its group and any
process that left it, such as a ``setsid`` child): on timeout, on cancel, and once the
shell has exited, all of it is killed, so nothing the model started outlives the call.
Output is capped by keeping its head and its tail (an error is usually at the end) with a
note of how much was cut between them (``shell``). ``run_in_background``, or the user's
Ctrl+B while it runs, makes it a job (``neocode_tui.agent.processes.background``) that outlives the
call instead, until it ends, is stopped, or the session ends.

With a ``Sandbox`` in force the command runs inside it (``neocode_tui.agent.sandbox.bubblewrap``);
``unsandboxed: true`` runs it outside, which is asked for in every mode short of
``full-auto``. A sandboxed command that fails with a sign of the sandbox (a read-only file
system, no network) says so in its result, so the model can ask for that; one that made a
protected file at the workspace root has it renamed once it ends (``sandbox_files``), and
its result says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.permissions import PROGRAMS
from neocode_tui.agent.processes import BackgroundJobs, TooManyJobs
from neocode_tui.agent.sandbox import Sandbox, failure_note
from neocode_tui.agent.tools.base import Confinement, OutputCallback, Tool, ToolError, ToolOutput
from neocode_tui.agent.tools.shell import Capture, Ending, RunningCommand
from neocode_tui.agent.tools.skill import SkillFolders
from neocode_tui.agent.workspace import Workspace

OUTPUT_CAP = 30_000
"""Bytes of output kept per command: half from the start, half from the end."""


_SHELL_OPERATORS = re.compile(r"[;&|<>`$(){}\n\\*?]")
_RUNNERS = frozenset({
    "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "make", "just", "uv", "poetry",
    "python", "python3", "pip", "git", "docker", "dotnet", "mvn", "gradle", "./gradlew",
    "bundle", "rake", "mix", "deno", "swift", "tox", "nox", "hatch", "pdm",
})
"""Programs whose first argument says what they do: ``npm test`` is not ``npm publish``."""


class BashArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(description="The shell command, run by bash in the workspace root.")
    timeout: int = Field(120, ge=1, le=600, description="Seconds before the command is stopped.")
    unsandboxed: bool = Field(
        False,
        description="Run outside the sandbox. Only after a command failed because of the "
        "sandbox and must reach the network or files outside the workspace; the user is "
        "asked every time.",
    )
    run_in_background: bool = Field(
        False, description="Return at once with an id; no timeout.",
    )


class Bash(Tool[BashArgs]):
    name = "bash"
    description = (
        "Run a shell command with bash in the workspace root; stdout and stderr are "
        "returned together. No input is available (stdin is empty). Long output is cut "
        "in the middle. Jobs left running (&) are stopped at its end (see run_in_background). "
        "Commands may "
        "run in a sandbox: the workspace and /tmp writable, the rest read-only, no network."
    )
    kind = "command"
    args_model = BashArgs

    def __init__(
        self, output_cap: int = OUTPUT_CAP, sandbox: Sandbox | None = None,
        secrets: Sequence[str] = (), jobs: BackgroundJobs | None = None,
        skills: SkillFolders | None = None,
    ) -> None:
        self.output_cap = output_cap
        self.skills = skills or SkillFolders()
        """The skills in use, whose folders the sandbox shows read-only."""
        self.jobs = jobs or BackgroundJobs()
        """Where a command started in the background, or sent there, goes on."""
        self.sandbox = sandbox or Sandbox()
        self.secrets = secrets
        """NeoCode's own keys (the session's list, which grows): no variable holding one
        reaches a command."""

    def summary(self, args: Mapping[str, Any]) -> str:
        command = str(args.get("command", ""))
        first = command.strip().splitlines()[0] if command.strip() else ""
        outside = " [outside the sandbox]" if args.get("unsandboxed") and self.sandbox.active else ""
        away = " [runs in the background]" if args.get("run_in_background") is True else ""
        return first + (" …" if first != command.strip() else "") + outside + away

    def session_scope(self, args: BashArgs) -> str:
        """A yes for the session covers the command's program (and subcommand: ``npm test``,
        ``python -m pytest``), as Claude Code scopes it, never every command. A command with
        shell operators (``;``, ``&&``, pipes, substitutions, redirections), or run through
        a wrapper or a shell (``timeout 5 ls``, ``sh -c ls``), is allowed again only word for
        word: ``pytest; rm -rf ~`` is not ``pytest``, ``timeout 5 rm x`` not ``timeout 5 ls``."""
        command = " ".join(args.command.split())
        words = command.split(" ")
        if not command or _SHELL_OPERATORS.search(args.command) or words[0].rsplit("/", 1)[-1] in PROGRAMS:
            return f"bash: {command}"
        length = 1
        if words[0] in _RUNNERS and len(words) > 1:
            length = 3 if words[1] == "-m" and len(words) > 2 else 2
        return f"bash: {' '.join(words[:length])} …"

    def command(self, args: BashArgs) -> str | None:
        return args.command

    def confinement(self, args: BashArgs) -> Confinement:
        if not self.sandbox.active:
            return "none"
        return "escape" if args.unsandboxed else "sandboxed"

    async def run(
        self, args: BashArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        sandbox = Sandbox() if args.unsandboxed else self.sandbox
        if sandbox.active:
            sandbox = replace(sandbox, readable=self.skills.outside(workspace.root))
        if args.run_in_background:
            try:
                self.jobs.check_room()
            except TooManyJobs as exc:
                raise ToolError(str(exc)) from None
        started = self.jobs.clock()
        if args.run_in_background:
            running = await RunningCommand.start(
                args.command, sandbox, workspace.root, Capture(self.output_cap), self.secrets
            )
            return self._adopted(running, args.command, started, "running in the background")
        # Ctrl+B counts from the moment the call runs, the command's start included.
        with self.jobs.foreground() as detach:
            capture = Capture(self.output_cap, on_output)
            running = await RunningCommand.start(
                args.command, sandbox, workspace.root, capture, self.secrets
            )
            try:
                ending = await running.wait(args.timeout, detach)
                if ending == "detached":
                    return self._adopted(running, args.command, started, "sent to the background by the user")
                notes = await running.settle()
            except BaseException:  # a cancel, or a bug: nothing it started is left behind
                running.kill()
                running.close()
                raise
        return self._result(running, sandbox, args, ending, notes)

    def _result(
        self, running: RunningCommand, sandbox: Sandbox, args: BashArgs, ending: Ending,
        notes: list[str],
    ) -> ToolOutput:
        if ending == "timeout":
            notes.insert(0, f"[timed out after {args.timeout}s; the command and everything it "
                         "started were stopped]")
        code = running.returncode
        output = running.capture.text()
        if code != 0 and not notes:
            notes.append(f"[exit code {code}]")
            if hint := failure_note(sandbox, output):
                notes.append(hint)
        if note := running.close():
            notes.append(note)
        text = "\n".join([output or "(no output)", *notes])
        return ToolOutput(text, is_error=code != 0)

    def _adopted(self, running: RunningCommand, command: str, started: float, how: str) -> ToolOutput:
        so_far = running.capture.take(whole_lines=True)
        job = self.jobs.adopt(running, command, started, so_far)
        return ToolOutput(
            f"id: {job.id}\n[{how}: bash_output {job.id} reads its output, kill_bash {job.id} "
            f"stops it]\n{so_far or '(no output yet)'}", job=job.id,
        )


