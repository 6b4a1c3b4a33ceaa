"""What a typed prompt becomes before it is sent: a custom command's or an MCP server's
prompt for ``/name args``, the ``@server:uri`` resources and the ``@file`` mentions after
it, the mentioned images with it; and, once the hooks have run, their context after it.

Every piece that comes from the workspace or a server is scrubbed, and every problem is
said (through ``notice``) rather than sent, so the model gets exactly what the user sees.
A command file, a mentioned file or a local resource that a deny rule keeps from the model
(``Workspace.hidden``) is not sent; its @-mentions are expanded by the same check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from neocode_tui.agent.extensions.custom_commands import CustomCommands
from neocode_tui.agent.extensions.mentions import expand_mentions
from neocode_tui.agent.images import TEXT_ONLY
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.tools import ToolError
from neocode_tui.agent.workspace import Workspace, withheld
from neocode_tui.chat import Image
from neocode_tui.known_secrets import Secrets
from neocode_tui.vocabulary import NoticeLevel


@dataclass
class ExpandedPrompt:
    submitted: str
    """The prompt as the UserPromptSubmit hooks see it: commands expanded, resources attached."""
    text: str
    """What the model gets: the mentions' content added too."""
    images: list[Image] = field(default_factory=list)


class PromptExpansion:
    def __init__(
        self, workspace: Workspace, secrets: Secrets, mcp: McpManager, *,
        commands: Callable[[], CustomCommands], images: Callable[[], bool],
        notice: Callable[[NoticeLevel, str], None],
    ) -> None:
        """``commands``: the custom commands as last loaded; ``images``: whether the model
        takes images (else they are said not sent)."""
        self._workspace, self._secrets, self._mcp = workspace, secrets, mcp
        self._commands = commands
        self._images = images
        self._notice = notice

    async def expand(self, typed: str, images: list[Image]) -> ExpandedPrompt:
        """``ToolError`` or ``PromptArgumentsMissing`` when the command's prompt cannot be had."""
        text = self._command(typed) or await self._mcp.expand(typed) or typed
        text, problems = await self._mcp.attach(text, self._workspace.hidden)
        mentioned = await asyncio.to_thread(expand_mentions, text, self._workspace, self._secrets)
        for problem in [*problems, *mentioned.problems]:
            self._notice("warning", problem)
        images = images + mentioned.images
        if images and not self._images():
            self._notice("warning", f"{len(images)} image(s) not sent: {TEXT_ONLY}; the model is told")
        return ExpandedPrompt(text, mentioned.text, images)

    def _command(self, typed: str) -> str | None:
        """The custom command's prompt; ``ToolError`` when its file is one the model may
        not be sent (a deny rule on it, or on the file it links to)."""
        found = self._commands().named(typed)
        if found is None:
            return None
        command, arguments = found
        if why := self._workspace.hidden(command.path.resolve()):
            raise ToolError(f"/{command.name} was not run: {withheld(str(command.path), why)}")
        return command.expand(arguments)

    def with_context(self, text: str, contexts: Iterable[tuple[str, str]]) -> str:
        """``text`` with each hook's context after it, in a tag named for the hook."""
        for tag, context in contexts:
            if context:
                text += f"\n\n<{tag}>\n{self._secrets(context)}\n</{tag}>"
        return text
