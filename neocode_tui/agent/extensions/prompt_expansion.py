"""What a typed prompt becomes before it is sent: a custom command's (or a skill's, or an MCP
server's) prompt for ``/name args`` with its ``!`command``` lines run (``shell_lines``), the
``@server:uri`` resources and the ``@file`` mentions after it, the mentioned images with it;
and, once the hooks have run, their context after it.

Every piece that comes from the workspace or a server is scrubbed, and every problem is
said (through ``notice``) rather than sent, so the model gets exactly what the user sees.
A command file, a mentioned file or a local resource that a deny rule keeps from the model
(``Workspace.hidden``) is not sent; its @-mentions are expanded by the same check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from neocode_tui.agent.extensions.custom_commands import CustomCommands
from neocode_tui.agent.extensions.mentions import expand_mentions
from neocode_tui.agent.extensions.shell_lines import ShellLines
from neocode_tui.agent.images import TEXT_ONLY
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.tools import ToolError
from neocode_tui.agent.workspace import Workspace, withheld
from neocode_tui.chat import Image, Message
from neocode_tui.known_secrets import Secrets
from neocode_tui.settings.model import Settings
from neocode_tui.vocabulary import NoticeLevel


@dataclass
class ExpandedPrompt:
    submitted: str
    """The prompt as the UserPromptSubmit hooks see it: commands expanded, resources attached."""
    text: str
    """What the model gets: the mentions' content added too."""
    images: list[Image] = field(default_factory=list)
    ran: list[Message] = field(default_factory=list)
    """The command's ``!`command``` calls, as ``Message.ran`` keeps them."""


class ExpansionHost(Protocol):
    """The session a prompt is typed into, read as each is expanded."""

    @property
    def commands(self) -> CustomCommands:
        """The custom commands as last loaded."""
        ...

    @property
    def settings(self) -> Settings:
        """Whether the model takes images (``images``; else they are said not sent)."""
        ...

    @property
    def id(self) -> str | None:
        """The session's id, for ``${CLAUDE_SESSION_ID}``."""
        ...

    def notice(self, level: NoticeLevel, message: str) -> None: ...


class SkillsInUse(Protocol):
    def add(self, folder: Path) -> None:
        """A skill's folder, from now on readable by read_file and in the sandbox."""


class PromptExpansion:
    def __init__(
        self, workspace: Workspace, secrets: Secrets, mcp: McpManager, host: ExpansionHost,
        skills: SkillsInUse, shell: ShellLines, *, trusted: bool,
    ) -> None:
        """``shell``: what runs a command's ``!`command``` lines; ``trusted``: the user
        trusts the folder, so its command files' lines are judged as any command is."""
        self._workspace, self._secrets, self._mcp = workspace, secrets, mcp
        self._host, self._skills, self._shell, self._trusted = host, skills, shell, trusted

    async def expand(self, typed: str, images: list[Image]) -> ExpandedPrompt:
        """``ToolError`` or ``PromptArgumentsMissing`` when the command's prompt cannot be had."""
        command, ran = await self._command(typed)
        text = command or await self._mcp.expand(typed) or typed
        text, problems = await self._mcp.attach(text, self._workspace.hidden)
        mentioned = await asyncio.to_thread(expand_mentions, text, self._workspace, self._secrets)
        for problem in [*problems, *mentioned.problems]:
            self._host.notice("warning", problem)
        images = images + mentioned.images
        if images and not self._host.settings.images:
            self._host.notice("warning", f"{len(images)} image(s) not sent: {TEXT_ONLY}; the model is told")
        return ExpandedPrompt(text, mentioned.text, images, ran)

    async def _command(self, typed: str) -> tuple[str | None, list[Message]]:
        """The custom command's prompt, its ``!`command``` lines run; ``ToolError`` when its
        file is one the model may not be sent (a deny rule on it, or on the file it links to)."""
        found = self._host.commands.named(typed)
        if found is None:
            return None, []
        command, arguments = found
        if why := self._workspace.hidden(command.path.resolve()):
            raise ToolError(f"/{command.name} was not run: {withheld(str(command.path), why)}")
        if command.skill is not None:
            self._skills.add(command.skill)
        text = command.expand(arguments, {"CLAUDE_SESSION_ID": self._host.id or ""})
        return await self._shell.run(text, ask=command.source == "project" and not self._trusted)

    def with_context(self, text: str, contexts: Iterable[tuple[str, str]]) -> str:
        """``text`` with each hook's context after it, in a tag named for the hook."""
        for tag, context in contexts:
            if context:
                text += f"\n\n<{tag}>\n{self._secrets(context)}\n</{tag}>"
        return text
