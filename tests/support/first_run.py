"""Someone running ``neocode`` for the first time: an empty project and a bare environment."""

from __future__ import annotations

import os
from pathlib import Path


def first_run(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty project folder and the environment of someone running ``neocode`` for the
    first time there: no keys, no NEOCODE_ or Textual settings, fresh data and config folders."""
    workspace, data, config = (tmp_path / name for name in ("project", "data", "config"))
    for folder in (workspace, data, config):
        folder.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if "API_KEY" not in key and not key.startswith(("NEOCODE_", "TEXTUAL", "COLUMNS", "LINES"))}
    env.update(NEOCODE_DATA_DIR=str(data), NEOCODE_CONFIG_DIR=str(config))
    return workspace, env
