"""A server's prompts as slash commands: ``/mcp__server__prompt ARGS`` (Claude Code's form).

Each is listed beside the custom commands (completion, ``/help``, the palette, an editor's
command list) and runs the same way: typed as the first line of a prompt, it is replaced by
the messages the server returns for it. Its words fill the prompt's arguments in the order
the server declares them, the last one taking the rest; a required one missing is said
before anything is sent. What the server sends is the workspace's kind of text: scrubbed of
secrets and capped like a tool's result.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from neocode_tui.agent.mcp.text import capped
from neocode_tui.agent.mcp.tool import tool_name
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    import mcp_types

    from neocode_tui.agent.mcp.server_link import ServerLink

MAX_DESCRIPTION = 200


class PromptArgumentsMissing(ValueError):
    """A required argument of a server's prompt was not given."""


@dataclass(frozen=True)
class McpPrompt:
    """A server's prompt as the front ends list it (the same fields as a custom command)."""

    name: str
    """``mcp__server__prompt``, without the slash."""
    description: str
    arguments: tuple[str, ...]
    required: tuple[str, ...]
    connection: ServerLink
    remote_name: str

    @classmethod
    def of(cls, connection: ServerLink, prompt: mcp_types.Prompt) -> McpPrompt:
        declared = prompt.arguments or []
        description = visible(" ".join((prompt.description or prompt.title or "").split()))
        return cls(
            name=tool_name(connection.name, prompt.name),
            description=description[:MAX_DESCRIPTION],
            arguments=tuple(argument.name for argument in declared),
            required=tuple(argument.name for argument in declared if argument.required),
            connection=connection, remote_name=prompt.name,
        )

    @property
    def label(self) -> str:
        return f"{self.description or self.remote_name} (MCP {self.connection.name})"

    @property
    def argument_hint(self) -> str:
        return " ".join(f"<{name}>" if name in self.required else f"[{name}]" for name in self.arguments)

    @property
    def takes_arguments(self) -> bool:
        return bool(self.arguments)

    def arguments_of(self, typed: str) -> dict[str, str]:
        """Words in the declared order; the last argument takes what is left over."""
        try:
            words = shlex.split(typed)
        except ValueError:  # an unclosed quote: the words as typed
            words = typed.split()
        given: dict[str, str] = {}
        for number, name in enumerate(self.arguments):
            if number >= len(words):
                break
            last = number == len(self.arguments) - 1
            given[name] = " ".join(words[number:]) if last else words[number]
        missing = [name for name in self.required if name not in given]
        if missing:
            raise PromptArgumentsMissing(
                f"/{self.name} needs {', '.join(missing)}: /{self.name} {self.argument_hint}")
        return given

    async def render(self, typed: str) -> str:
        """The prompt's messages as the text sent to the model."""
        result = await self.connection.get_prompt(self.remote_name, self.arguments_of(typed))
        return capped("\n\n".join(_message_text(message) for message in result.messages))


def _message_text(message: mcp_types.PromptMessage) -> str:
    content = message.content
    resource = getattr(content, "resource", None)
    body = getattr(resource, "text", None)
    if content.type == "text":
        text = str(getattr(content, "text", ""))
    elif content.type == "resource" and isinstance(body, str):
        text = f"<resource uri={str(getattr(resource, 'uri', ''))!r}>\n{body}\n</resource>"
    else:
        text = f"[{content.type} content]"
    return text if message.role == "user" else f"(as the assistant) {text}"
