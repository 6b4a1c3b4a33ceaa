"""``neocode login``: the model's provider and key, asked in the terminal and kept in the
user's ``config.toml``.

Editors that list agents from the ACP registry sign a user in through a terminal method:
they start the agent with its login arguments in a terminal and wait for it to exit 0. The
key is read without echo, never printed, and written to a file only the user can read; the
rest of the file (comments, profiles, rules) is kept as it was.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from neocode_tui.paths import write_private
from neocode_tui.settings import config_file

EXIT_NOTHING_SAVED = 1
EXIT_NO_TERMINAL = 2


@dataclass(frozen=True)
class Provider:
    name: str
    label: str
    key_field: str
    default_url: str


PROVIDERS = (
    Provider("openai", "OpenAI, or a server that speaks its API (vLLM, llama.cpp, OpenRouter...)",
             "openai_api_key", "https://api.openai.com/v1"),
    Provider("anthropic", "Anthropic", "anthropic_api_key", "https://api.anthropic.com"),
)


def run_login(args: argparse.Namespace) -> int:
    """Ask, save, say where; exit 0 only when the key was saved."""
    if not sys.stdin.isatty():
        print("neocode login asks in a terminal; elsewhere set OPENAI_API_KEY or "
              "ANTHROPIC_API_KEY in the environment instead", file=sys.stderr)
        return EXIT_NO_TERMINAL
    try:
        provider, url, key = _questions(input, getpass.getpass)
    except (EOFError, KeyboardInterrupt):
        print("\nNothing saved.", file=sys.stderr)
        return EXIT_NOTHING_SAVED
    path = config_file()
    save_login(path, provider, url, key)
    print(f"Saved the {provider.name} key to {path} (only you can read it). "
          "Start neocode, or reconnect your editor.")
    return 0


def _questions(ask: Callable[[str], str], ask_secret: Callable[[str], str]) -> tuple[Provider, str, str]:
    print("Which model provider?")
    for number, provider in enumerate(PROVIDERS, 1):
        print(f"  {number}. {provider.label}")
    while (answer := ask("Provider [1]: ").strip() or "1") not in {str(n) for n in range(1, len(PROVIDERS) + 1)}:
        print(f"  Type a number from 1 to {len(PROVIDERS)}.")
    provider = PROVIDERS[int(answer) - 1]
    url = ask(f"Server URL [{provider.default_url}]: ").strip()
    while not (key := ask_secret("API key (not shown as you type): ").strip()):
        print("  The key is empty; paste it, or press Ctrl+C to stop.")
    return provider, url, key


def save_login(path: Path, provider: Provider, url: str, key: str) -> None:
    """``provider``, its key and ``base_url`` (none: the provider's own) into the user's
    file, the rest of the file as it was."""
    import tomlkit

    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        document = tomlkit.document()
    document["provider"] = provider.name
    document[provider.key_field] = key
    if url:
        document["base_url"] = url
    elif "base_url" in document:  # Enter took the provider's own server
        del document["base_url"]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, tomlkit.dumps(document).encode())
