"""The settings are read before any provider is chosen: loading them loads no provider."""

from __future__ import annotations

import json
import subprocess
import sys


def test_loading_the_settings_loads_no_provider_module(tmp_path) -> None:
    code = ("import json, sys; from pathlib import Path; "
            "from neocode_tui.settings.load import load_settings; "
            "settings = load_settings(Path.cwd(), {'openai_compat': 'tool_choice=required'}).settings; "
            "print(json.dumps([settings.openai_compat.tool_choice, "
            "sorted(m for m in sys.modules if m.startswith('neocode_tui.providers'))]))")
    env = {"PATH": "/usr/bin:/bin", "NEOCODE_CONFIG_DIR": str(tmp_path / "config"),
           "NEOCODE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": ":".join(sys.path)}
    ran = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                         text=True, check=True)
    assert json.loads(ran.stdout) == ["required", []]
