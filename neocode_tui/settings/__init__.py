"""What a run is configured with, in one place: the model (``model``), its loading from flags,
environment, ``.env`` and ``config.toml`` (``load``), the user's file (``user_file``) and the
OpenAI-compatibility options (``compat``). Nothing here imports a provider: providers read
the settings, never the other way round."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.settings.compat import OpenAICompat
    from neocode_tui.settings.load import (
        HARMLESS,
        TIGHTENING,
        USER_ONLY,
        WORKSPACE_ENV,
        LoadedSettings,
        Origin,
        Profiles,
        TrustRequest,
        load_settings,
        setting_variables,
    )
    from neocode_tui.settings.model import NotifyMode, Settings, StatusLine
    from neocode_tui.settings.user_file import UserFile, config_file, read_user_file

__all__ = [
    "HARMLESS",
    "LoadedSettings",
    "NotifyMode",
    "OpenAICompat",
    "Origin",
    "Profiles",
    "Settings",
    "StatusLine",
    "TIGHTENING",
    "TrustRequest",
    "USER_ONLY",
    "UserFile",
    "WORKSPACE_ENV",
    "config_file",
    "load_settings",
    "read_user_file",
    "setting_variables",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "compat": ("OpenAICompat",),
        "load": (
            "HARMLESS",
            "LoadedSettings",
            "Origin",
            "Profiles",
            "TIGHTENING",
            "TrustRequest",
            "USER_ONLY",
            "WORKSPACE_ENV",
            "load_settings",
            "setting_variables",
        ),
        "model": ("NotifyMode", "Settings", "StatusLine",),
        "user_file": ("UserFile", "config_file", "read_user_file",),
    })
