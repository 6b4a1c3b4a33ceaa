"""The provider a subagent runs on, from its agent file's ``model``.

``inherit`` (or none) is the session's. A profile of the user's, where the file may name one,
is that profile's. Claude Code's alias (``sonnet``, ``opus``, ``haiku``) or a Claude model id
is that model of the session's own provider when it is Anthropic's (same address, same key).
Anything else runs on the session's model, and that is said once per session, about the call
it first happened in (front ends show it with that call, never as the agent's answer).

A profile's keys join the session's secrets before its provider exists, so whatever the
child streams is scrubbed of them as well.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Protocol

from neocode_tui.agent.delegation.agent_files import AgentFile
from neocode_tui.agent.delegation.claude_names import anthropic_model
from neocode_tui.chat import ChatRequest
from neocode_tui.errors import NeoCodeError
from neocode_tui.events import StreamEvent
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers import Provider, make_provider
from neocode_tui.vocabulary import NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.settings.load import Profiles


class Notify(Protocol):
    def __call__(self, level: NoticeLevel, message: str, *, call_id: str | None = None) -> None: ...


class OtherModel:
    """The session's provider asked for another model: same address, key and connections
    (closing it leaves the session's open)."""

    def __init__(self, inner: Provider, model: str) -> None:
        self.inner, self.name, self.model = inner, inner.name, model

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        return self.inner.stream(request.model_copy(update={"model": self.model}))

    async def aclose(self) -> None:
        """The session's provider stays open."""


class AgentProviders:
    def __init__(
        self, profiles: Profiles | None, secrets: Secrets, *, provider: Callable[[], Provider],
        notice: Notify,
    ) -> None:
        """``provider``: the session's, as it is when an agent runs."""
        self._profiles = profiles
        self._secrets = secrets
        self._provider = provider
        self._notice = notice
        self._told = False

    def _model(self) -> str:
        return self._provider().model

    def __call__(self, agent: AgentFile, call_id: str) -> Provider | None:
        """A provider for the model ``agent`` names; None: the session's own."""
        if not agent.model:
            return None
        if agent.model_allowed and self._profiles is not None and agent.model in self._profiles.names:
            return self._profile(agent, self._profiles, call_id)
        session = self._provider()
        claude = anthropic_model(agent.model)
        if claude is not None and session.name == "anthropic":
            return None if claude == session.model else OtherModel(session, claude)
        self._fall_back(agent, call_id)
        return None

    def _profile(self, agent: AgentFile, profiles: Profiles, call_id: str) -> Provider | None:
        try:
            settings = profiles.load(agent.model)
        except NeoCodeError as exc:
            self._notice("warning", f"agent {agent.name}: profile {agent.model}: {exc}; using {self._model()}",
                         call_id=call_id)
            return None
        self._secrets.add(keys=settings.secrets)
        return make_provider(settings, secrets=self._secrets)

    def _fall_back(self, agent: AgentFile, call_id: str) -> None:
        if self._told:
            return
        self._told = True
        provider = self._provider().name
        self._notice("info", f"agent {agent.name} asks for the model {agent.model!r}, which {provider} "
                     f"has no match for: agents whose model is not found run on {self._model()} "
                     "(said once per session)", call_id=call_id)
