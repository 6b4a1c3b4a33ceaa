"""What a run is configured with, in one place: the model (``model``), its loading from flags,
environment, ``.env`` and ``config.toml`` (``load``), the user's file (``user_file``) and the
OpenAI-compatibility options (``compat``). Nothing here imports a provider: providers read
the settings, never the other way round."""
