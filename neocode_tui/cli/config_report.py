"""``neocode config``: the settings a run here would use, and where each one came from.

Keys are shown only as set or not set: neither their value nor a part of it is printed;
URLs are shown without their credentials.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from neocode_tui.cli.options import load_from_args
from neocode_tui.errors import SettingsError
from neocode_tui.redact import redact_url
from neocode_tui.settings import WORKSPACE_ENV, LoadedSettings, Origin, config_file, setting_variables
from neocode_tui.terminal_text import for_stream
from neocode_tui.trust import trust_file

SECRET_FIELDS = ("openai_api_key", "anthropic_api_key")


def print_config(args: argparse.Namespace) -> int:
    if args.reference:  # the same everywhere: no folder, file or variable is read
        from neocode_tui.cli.settings_reference import settings_reference

        print(settings_reference(), end="")
        return 0
    if args.keys:  # the user's own, the same in every folder
        from neocode_tui.cli.keys_report import print_keys

        return print_keys(args)
    workspace = Path.cwd()
    try:
        loaded = load_from_args(args, workspace)
    except SettingsError as exc:
        for problem in exc.problems:
            print(for_stream(f"neocode: {problem}", sys.stderr), file=sys.stderr)
        return exc.exit_code
    report = config_report(loaded, workspace)
    # The folder's .env may set the model: its text is shown escaped on a terminal.
    print(json.dumps(report, indent=2) if args.json else for_stream(config_text(report), sys.stdout))
    return 0


def config_report(loaded: LoadedSettings, workspace: Path) -> dict[str, Any]:
    """Everything ``neocode config`` shows, as plain data (``--json`` prints it as is)."""
    from neocode_tui.agent.sandbox import choose_sandbox
    from neocode_tui.tui import app_state_file, load_user_config

    settings = loaded.settings
    aliases = setting_variables()
    remembered = load_user_config().theme
    ignored: dict[str, list[str]] = {}
    for variable in loaded.ignored_names:
        ignored.setdefault(aliases[variable], []).append(variable)
    rows: dict[str, Any] = {}
    for name in type(settings).model_fields:
        origin = loaded.origin(name)
        value = _shown(name, getattr(settings, name))
        if name == "theme" and origin.kind == "default" and remembered:
            value, origin = remembered, Origin("default", "remembered by the app")
        rows[name] = {"value": value, "source": origin.kind, "where": origin.where,
                      "ignored": ignored.get(name, [])}
    sandbox = choose_sandbox(settings.sandbox, settings.sandbox_network)
    env_file = workspace / WORKSPACE_ENV
    user_file = loaded.user_file
    return {
        "workspace": str(workspace),
        "settings": rows,
        "in_use": {
            "provider": settings.resolved_provider, "model": settings.resolved_model,
            "base_url": redact_url(settings.resolved_base_url), "approval": settings.approval or "ask",
        },
        "profile": {"name": loaded.profile, "picked_by": loaded.profile_from or None,
                    "available": loaded.profiles},
        "sandbox": sandbox.describe(),
        "trust": {"trusted": loaded.trusted, "ignored": loaded.ignored},
        "files": {
            "config": {"path": str(config_file()), "exists": bool(user_file and user_file.exists)},
            "trusted_folders": {"path": str(trust_file()), "exists": trust_file().is_file()},
            "workspace_env": {"path": str(env_file), "exists": env_file.is_file()},
            "app_state": {"path": str(app_state_file()), "exists": app_state_file().is_file()},
        },
    }


def _shown(name: str, value: Any) -> Any:
    if name in SECRET_FIELDS:
        return "set" if value is not None else "not set"
    if name == "openai_compat":
        return value.model_dump(exclude_defaults=True)
    if name.endswith("base_url") and value is not None:
        return redact_url(value)
    return value


def config_text(report: dict[str, Any]) -> str:
    lines = [f"Settings for a run in {report['workspace']}", ""]
    rows = report["settings"]
    width = max(len(name) for name in rows) + 2
    for name, row in rows.items():
        lines.append(f"  {name:<{width}}{_value_text(row['value']):<28}{_source_text(row, report)}")
    used = report["in_use"]
    lines += ["", f"In use:   {used['provider']} · {used['model']} · {used['base_url'] or '(offline)'}"
              f" · approval {used['approval']}"]
    profile = report["profile"]
    available = ", ".join(profile["available"]) or "none"
    if profile["name"]:
        lines.append(f"Profile:  {profile['name']} (picked by {profile['picked_by']}); "
                     f"profiles: {available}")
    else:
        lines.append(f"Profile:  none (--profile NAME picks one); profiles: {available}")
    lines.append(f"Sandbox:  {_sandbox_text(report['sandbox'])}")
    trust = report["trust"]
    lines.append(
        "Folder:   trusted (its .env applies)" if trust["trusted"] else
        "Folder:   not trusted: its .env may set only the model, the theme and a tighter "
        "sandbox (trust it when neocode asks, or pass --trust)"
    )
    lines += [f"          {line}" for line in trust["ignored"]]
    lines += ["", "Files:"]
    names = {"config": "config.toml", "trusted_folders": "trusted folders",
             "workspace_env": "workspace .env", "app_state": "app state (theme)"}
    for key, label in names.items():
        entry = report["files"][key]
        lines.append(f"  {label:<20}{entry['path']}" + ("" if entry["exists"] else "  (none)"))
    return "\n".join(lines)


def _value_text(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return ",".join(f"{key}={_value_text(item)}" for key, item in value.items()) or "–"
    return str(value)


def _source_text(row: dict[str, Any], report: dict[str, Any]) -> str:
    kind, where = row["source"], row["where"]
    if kind == "environment":
        text = f"environment {where}"
    elif kind == "workspace":
        text = "workspace .env (trusted folder)" if report["trust"]["trusted"] else \
            "workspace .env (untrusted folder: allowed, as it grants nothing)"
    elif kind == "config":
        text = "config.toml"
    elif kind == "profile":
        text = f"profile {where} (config.toml)"
    else:
        text = where or kind
    if row["ignored"]:
        text += f"; {', '.join(row['ignored'])} in .env ignored (folder not trusted)"
    return text


def _sandbox_text(sandbox: dict[str, Any]) -> str:
    if sandbox["unavailable"]:
        return f"none: {sandbox['unavailable']} (every command asks for approval)"
    if sandbox["mode"] == "off":
        return "off (commands run unconfined)"
    return f"{sandbox['mode']}, network {'on' if sandbox['network'] else 'off'}"
