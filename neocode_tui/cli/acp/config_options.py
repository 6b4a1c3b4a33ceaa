"""Session config options over ACP: the mode, the model and the effort as selectors an
editor draws (``configOptions``) and sets (``session/set_config_option``).

The protocol prefers these to the older ``modes`` field; both are sent, and kept in step,
for editors that only know the older one. Each choice goes through the session's own
setters, so the session file keeps it and a later ``session/load`` or ``session/resume``
comes back with it.
"""

from __future__ import annotations

from acp.schema import ConfigOptionUpdate, SessionConfigOptionSelect, SessionConfigSelectOption

from neocode_tui.agent.session import AgentSession
from neocode_tui.vocabulary import APPROVAL_MODES, EFFORTS, MODE_DESCRIPTIONS, ApprovalMode

MODE_NAMES: dict[ApprovalMode, str] = {
    "ask": "Ask", "auto-edit": "Auto-edit", "full-auto": "Full auto", "plan": "Plan",
}
"""How an editor's mode menu names each mode (its description is the app's own)."""
OFF = "off"
"""The effort value that sends none (the model's own default)."""
EFFORT_NAMES = {OFF: "Off", "low": "Low", "medium": "Medium", "high": "High"}


class BadOption(ValueError):
    """A config id or value the session has not offered; the message says what it offers."""


def sentence(words: str) -> str:
    return words[:1].upper() + words[1:]


def config_options(core: AgentSession) -> list[SessionConfigOptionSelect]:
    """Every option with its current value, the most used first (the editor keeps the order)."""
    return [
        SessionConfigOptionSelect(
            id="mode", name="Mode", category="mode", type="select", current_value=core.approval,
            description="When the agent asks before it changes files or runs commands",
            options=[SessionConfigSelectOption(value=mode, name=name,
                                               description=sentence(MODE_DESCRIPTIONS[mode]))
                     for mode, name in MODE_NAMES.items()],
        ),
        SessionConfigOptionSelect(
            id="model", name="Model", category="model", type="select", current_value=core.model,
            description=f"The model of {core.provider.name} each request goes to",
            options=[SessionConfigSelectOption(value=name, name=name) for name in model_choices(core)],
        ),
        SessionConfigOptionSelect(
            id="effort", name="Effort", category="thought_level", type="select",
            current_value=core.effort or OFF,
            description="How hard a reasoning model thinks (off: the model's own default)",
            options=[SessionConfigSelectOption(value=value, name=name) for value, name in EFFORT_NAMES.items()],
        ),
    ]


def options_update(core: AgentSession) -> ConfigOptionUpdate:
    """The whole set again, for the editor to redraw after the agent changed one."""
    return ConfigOptionUpdate(session_update="config_option_update", config_options=list(config_options(core)))


def model_choices(core: AgentSession) -> list[str]:
    """The model in use, then the ones the settings name besides it (the fallbacks and the
    small model), each once."""
    settings = core.settings
    names = [core.model, *settings.fallback_models, *([settings.small_model] if settings.small_model else [])]
    return list(dict.fromkeys(names))


def set_option(core: AgentSession, config_id: str, value: str | bool) -> None:
    """Set one option through the session (which saves it); ``BadOption`` for an id or a
    value it does not offer."""
    text = value if isinstance(value, str) else ""
    if config_id == "mode":
        mode = next((mode for mode in APPROVAL_MODES if mode == text), None)
        if mode is None:
            raise BadOption(f"no mode {value!r}: the modes are {', '.join(APPROVAL_MODES)}")
        core.approval = mode
    elif config_id == "model":
        if text not in model_choices(core):
            raise BadOption(f"no model {value!r} offered: the models are {', '.join(model_choices(core))}")
        core.model = text
    elif config_id == "effort":
        if text != OFF and text not in EFFORTS:
            raise BadOption(f"no effort {value!r}: the efforts are {', '.join(EFFORT_NAMES)}")
        core.effort = next((effort for effort in EFFORTS if effort == text), None)
    else:
        raise BadOption(f"no config option {config_id!r}: the options are mode, model and effort")
