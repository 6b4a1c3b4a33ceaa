"""An MCP server's question, put to the editor as a permission request.

A question that only wants a yes or no is a tool call showing the server's message, with
Accept and Decline. One that asks for values is declined with the reason said: a
permission request has no fields to fill in.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from acp import start_tool_call, text_block, tool_content, update_agent_message_text, update_tool_call
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from neocode_tui.agent.mcp import Answer, Question
from neocode_tui.cli.acp.commands import Ask
from neocode_tui.cli.acp.updates import Update


async def ask_editor(question: Question, put: Callable[[Update], None], ask: Ask) -> Answer:
    title = f"The MCP server {question.server} asks"
    if question.fields:
        names = ", ".join(item.title or item.name for item in question.fields)
        put(update_agent_message_text(
            f"\n\n_{title} for {names}: declined, an editor's permission request has no "
            "fields to fill in (answer it in the neocode app)._\n\n"))
        return Answer("decline")
    call_id = f"elicitation-{secrets.token_hex(4)}"
    content: list[Any] = [tool_content(text_block(question.message))]
    put(start_tool_call(call_id, title, kind="other", status="pending", content=content))
    options = [PermissionOption(option_id="accept", name="Accept", kind="allow_once"),
               PermissionOption(option_id="decline", name="Decline", kind="reject_once")]
    answer = await ask(ToolCallUpdate(tool_call_id=call_id, title=title, kind="other",
                                      status="pending", content=content), options)
    picked = answer.outcome if answer is not None else None
    accepted = isinstance(picked, AllowedOutcome) and picked.option_id == "accept"
    put(update_tool_call(call_id, status="completed" if accepted else "failed"))
    return Answer("accept") if accepted else Answer("decline" if picked is not None else "cancel")
