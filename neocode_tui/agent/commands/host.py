"""What the slash commands need of the session that runs them: a narrow host, so the
commands do not import the session that holds their table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from neocode_tui.agent.context import Headroom, Meter
    from neocode_tui.agent.delegation import AgentCatalog
    from neocode_tui.agent.goal import Pursuit
    from neocode_tui.agent.loop import AgentLoop
    from neocode_tui.agent.loop_events import RunFinished
    from neocode_tui.agent.mcp import McpManager
    from neocode_tui.agent.permissions import Permissions
    from neocode_tui.agent.processes import BackgroundJobs, Job
    from neocode_tui.agent.restore import Restored, Restorer, UndoPreview
    from neocode_tui.agent.session.file import SessionFile
    from neocode_tui.agent.session.title import Titling
    from neocode_tui.agent.store import SessionInfo
    from neocode_tui.chat import Message
    from neocode_tui.events import Usage
    from neocode_tui.providers import Provider
    from neocode_tui.settings import Profiles, Settings
    from neocode_tui.vocabulary import ApprovalMode, Effort, NoticeLevel


class CommandHost(Protocol):
    """The session as the commands see it."""

    settings: Settings
    profiles: Profiles | None
    workspace: Path
    provider: Provider
    loop: AgentLoop
    file: SessionFile
    agents: AgentCatalog
    meter: Meter
    rate_limits: Headroom
    titling: Titling
    jobs: BackgroundJobs
    restore: Restorer
    mcp: McpManager
    permissions: Permissions
    goal: Pursuit
    approval: ApprovalMode
    model: str
    effort: Effort | None

    @property
    def messages(self) -> list[Message]: ...

    @property
    def title(self) -> str: ...

    @property
    def id(self) -> str | None: ...

    @property
    def usage(self) -> Usage: ...

    @property
    def saving(self) -> bool: ...

    def saved_sessions(self) -> list[SessionInfo]: ...

    async def use_settings(self, settings: Settings) -> None: ...

    async def compact(self, instructions: str = "") -> bool: ...

    def uncompact(self) -> bool: ...

    def clear(self) -> list[Job]: ...

    async def prompt(self, text: str) -> RunFinished: ...

    def resume(self, session_id: str | None = None) -> SessionInfo: ...

    async def rewind(self, preview: UndoPreview, *, files: bool) -> tuple[str, Restored]: ...

    def require_idle(self, what: str) -> None: ...

    def notice(self, level: NoticeLevel, message: str) -> None: ...
