"""The provider a subagent runs on: the profile its agent file names, when it may name one
and the user has it (else the session's own, said when the profile cannot be loaded).

A profile's keys join the session's secrets before its provider exists, so whatever the
child streams is scrubbed of them as well.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from neocode_tui.agent.delegation.agent_files import AgentFile
from neocode_tui.errors import NeoCodeError
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers import Provider, make_provider
from neocode_tui.vocabulary import NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.settings.load import Profiles


class AgentProviders:
    def __init__(
        self, profiles: Profiles | None, secrets: Secrets, *, model: Callable[[], str],
        notice: Callable[[NoticeLevel, str], None],
    ) -> None:
        """``model``: the session's, named when a profile cannot be had."""
        self._profiles = profiles
        self._secrets = secrets
        self._model = model
        self._notice = notice

    def __call__(self, agent: AgentFile) -> Provider | None:
        """A provider for the profile ``agent`` names; None: the session's own."""
        profiles = self._profiles
        if not (agent.model and agent.model_allowed and profiles is not None
                and agent.model in profiles.names):
            return None
        try:
            settings = profiles.load(agent.model)
        except NeoCodeError as exc:
            self._notice("warning", f"agent {agent.name}: profile {agent.model}: {exc}; using {self._model()}")
            return None
        self._secrets.add(keys=settings.secrets)
        return make_provider(settings, secrets=self._secrets)
