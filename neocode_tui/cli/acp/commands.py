"""Slash commands over ACP: the core's built-in ones and the user's custom ones, offered to
the editor in ``available_commands_update`` and run from ``session/prompt``.

A built-in command answers without reaching the model: its report is the agent's message,
a question with a preview (``/undo``, ``/rewind N``) is a ``session/request_permission`` on
a tool call that shows the diff, and a list to pick from says how to pick by argument.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_tool_call,
)
from acp.helpers import update_current_mode
from acp.schema import (
    AllowedOutcome,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
    UnstructuredCommandInput,
)

from neocode_tui.agent.commands import COMMANDS, Confirm, Report, as_text, respond, run_command
from neocode_tui.agent.session import AgentSession
from neocode_tui.cli.acp.config_options import config_options, options_update
from neocode_tui.cli.acp.updates import Update, fenced

Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse | None]]
"""Sends a permission request; None when the editor could not answer."""
CANCEL = "cancel"


def commands_update(core: AgentSession) -> AvailableCommandsUpdate:
    """Every command the session takes (the built-in ones, then the custom ones and the MCP
    servers' prompts),
    for the editor's completion: ``/name args`` in a prompt runs one."""
    listed = [
        AvailableCommand(name=command.name, description=command.help, input=_input(command.argument))
        for command in COMMANDS.values()
    ]
    listed += [
        AvailableCommand(name=command.name, description=command.label,
                         input=_input(command.argument_hint or "arguments") if command.takes_arguments else None)
        for command in core.prompt_commands()
    ]
    return AvailableCommandsUpdate(session_update="available_commands_update", available_commands=listed)


def _input(hint: str) -> AvailableCommandInput | None:
    return AvailableCommandInput(UnstructuredCommandInput(hint=hint)) if hint else None


async def run_built_in(core: AgentSession, name: str, argument: str,
                       put: Callable[[Update], None], ask: Ask) -> None:
    """Run ``/name argument`` and put what it answers as the agent's message; a mode it
    changed (``/approval``) is the editor's current mode from then on, and a mode, model or
    effort it changed is in the editor's config options."""
    mode, options = core.approval, config_options(core)
    outcome = await run_command(core, name, argument)
    while isinstance(outcome, Confirm):
        outcome = await respond(outcome, await _confirm(outcome, put, ask))
    shown = as_text(outcome)
    text = shown.text
    if isinstance(outcome, Report) and outcome.prefill:
        text += f"\n\nThe prompt was:\n\n{outcome.prefill}"
    if text:
        put(update_agent_message_text(text))
    if core.approval != mode:
        put(update_current_mode(core.approval))
    if config_options(core) != options:
        put(options_update(core))


async def _confirm(outcome: Confirm, put: Callable[[Update], None], ask: Ask) -> str | None:
    """The preview as a tool call the editor shows, and its choices as permission options."""
    call_id = f"{outcome.kind}-{secrets.token_hex(4)}"
    diff = outcome.preview.diff.rstrip()
    shown = fenced(diff, "diff") if diff else "The files are already as they were."
    content: list[Any] = [tool_content(text_block(shown))]
    put(start_tool_call(call_id, outcome.question, kind="edit", status="pending", content=content))
    options = [PermissionOption(option_id=choice.id, name=choice.label, kind="allow_once")
               for choice in outcome.choices]
    options.append(PermissionOption(option_id=CANCEL, name="Cancel", kind="reject_once"))
    answer = await ask(ToolCallUpdate(tool_call_id=call_id, title=outcome.question, kind="edit",
                                      status="pending", content=content), options)
    picked = answer.outcome if answer is not None else None
    choice = picked.option_id if isinstance(picked, AllowedOutcome) and picked.option_id != CANCEL else None
    put(update_tool_call(call_id, status="completed" if choice else "failed"))
    return choice
