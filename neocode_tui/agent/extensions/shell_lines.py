"""``!`command``` in a custom command or a skill the user runs: the command runs before the
prompt is sent and its output takes its place, as in Claude Code.

Each one is a ``bash`` call like the model's: the same permission rules, approval mode and
sandbox decide it, the user is asked where they would be, and it shows as a call of its own
(front ends draw it as any ``bash`` call, before the answer). One that is not run is replaced
by a line saying why. What ran is kept on the prompt's message (``Message.ran``), so a
resumed session draws the same calls. A command file from a folder the user has not trusted runs nothing
without the user's yes, whatever the mode: the repository's words start no process alone.
``!`` must begin a line or follow a space, so ``Password: `pa55!``` is no command.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any, Protocol

from neocode_tui.agent.loop_events import LoopEvent, ToolFinished, ToolStarted, ToolStatus
from neocode_tui.agent.tools import Tool, ToolError
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import Message, ToolCall
from neocode_tui.collector import CollectedToolCall
from neocode_tui.known_secrets import Secrets

LINE = re.compile(r"(?:^|(?<=\s))!`([^`\n]+)`", re.MULTILINE)
MAX_COMMANDS = 20
"""Commands run for one prompt; past them each is replaced by a line saying so."""
INDEX_BASE = 10_000
"""Where these calls' indexes start in the prompt's first turn, clear of the model's calls."""


class Gate(Protocol):
    @property
    def approver(self) -> object | None:
        """Who is asked; None: nobody can be (a headless run)."""
        ...

    async def refusal(self, tool: Tool[Any], args: object, call: CollectedToolCall,
                      hook: Any = None) -> str | None:
        """None when the call may run, else why not (the user may be asked first)."""
        ...


class ShellLines:
    def __init__(self, workspace: Workspace, secrets: Secrets, gate: Gate, *,
                 bash: Callable[[], Tool[Any] | None], turn: Callable[[], int],
                 emit: Callable[[LoopEvent], None]) -> None:
        """``bash``: the session's bash tool; ``turn``: the last turn's number (these calls
        are shown in the next one's, the prompt's)."""
        self._workspace, self._secrets, self._gate = workspace, secrets, gate
        self._bash, self._turn, self._emit = bash, turn, emit

    async def run(self, text: str, *, ask: bool) -> tuple[str, list[Message]]:
        """``text`` with each ``!`command``` replaced by its output, or by why it did not
        run, and the calls as ``Message.ran`` keeps them; ``ask``: the user says yes to each
        (a command file of an untrusted folder)."""
        found = list(LINE.finditer(text))
        if not found:
            return text, []
        parts, last, calls, results = [], 0, [], []
        for number, match in enumerate(found):
            parts.append(text[last:match.start()])
            output, ran = await self._one(match.group(1), number, ask)
            parts.append(output)
            if ran is not None:
                calls.append(ran[0])
                results.append(ran[1])
            last = match.end()
        parts.append(text[last:])
        kept = [Message(role="assistant", tool_calls=calls), *results] if calls else []
        return "".join(parts), kept

    async def _one(self, command: str, number: int, ask: bool) -> tuple[str, tuple[ToolCall, Message] | None]:
        """What takes the line's place, and the call and its result when it was shown as one."""
        bash = self._bash()
        if bash is None:
            return f"[!`{command}` was not run: there is no bash tool in this session]", None
        if number >= MAX_COMMANDS:
            return f"[!`{command}` was not run: only {MAX_COMMANDS} commands run for one prompt]", None
        arguments = {"command": command}
        call = CollectedToolCall(index=INDEX_BASE + number, id=f"inline-{secrets.token_hex(4)}",
                                 name=bash.name, arguments="", arguments_json=arguments)
        turn = self._turn() + 1
        args = bash.args_model.model_validate(arguments)
        if ask and self._gate.approver is None:
            why: str | None = ("the command file is the workspace's, this folder is not trusted, and "
                               "nobody can approve it in this run")
        else:
            why = await self._gate.refusal(bash, args, call, "ask" if ask else None)
        self._emit(ToolStarted(turn=turn, index=call.index, call_id=call.id, name=bash.name,
                               arguments=arguments))
        if why is not None:
            result, failed = f"[!`{command}` was not run: {why.removeprefix('not run: ')}]", True
        else:
            result, failed = await self._output(bash, args)
        status: ToolStatus = "denied" if why else "error" if failed else "ok"
        self._emit(ToolFinished(turn=turn, index=call.index, call_id=call.id, name=bash.name,
                                result=result, is_error=failed, status=status))
        return result, (ToolCall(id=call.id, name=bash.name, arguments=json.dumps(arguments)),
                        Message(role="tool", content=result, tool_call_id=call.id, name=bash.name,
                                is_error=failed, status=status))

    async def _output(self, bash: Tool[Any], args: object) -> tuple[str, bool]:
        try:
            output = await bash.run(args, self._workspace)
        except ToolError as exc:
            return self._secrets(f"[the command failed: {exc}]"), True
        return self._secrets(output.text.rstrip("\n")), output.is_error
