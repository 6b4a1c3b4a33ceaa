"""Every secret a run knows, in the one holder every channel scrubs with.

The session makes one ``Secrets`` and hands the same object to the loop (tool results,
the streamed answer, diffs, notices), the providers (their error messages), ``bash`` and
the hooks (what their environment may not hold), and the MCP servers (their errors). It
only grows: ``/model PROFILE`` adds what the profile brings, and a key used earlier may
still turn up in a file.

What it knows:

- NeoCode's own keys: every ``*_api_key`` of the settings in use and of every profile and
  the top level of the user's ``config.toml``, used or not, and the credentials in every
  configured base URL (``redact.url_secrets``);
- MCP servers' credentials: header values, ``env`` values and ``--flag value`` arguments
  whose name says credential (``redact.secret_name``), and the credentials in their URLs;
- the environment's: variables whose name says credential (``GITHUB_TOKEN``,
  ``AWS_SECRET_ACCESS_KEY``, ``HF_TOKEN``, ``ANTHROPIC_AUTH_TOKEN``, ``PGPASSWORD``...) and
  the credentials of any URL a variable holds (``DATABASE_URL``, ``HTTPS_PROXY``).

A value found by its name (a variable, a header, an argument) counts by its words of
``MIN_TOKEN`` characters or more that are not paths (``Bearer`` is not a token, what follows
it is): shorter ones are too likely to be ordinary words, and since any 8 characters of a
secret are scrubbed, a password such as ``postgres`` would blank every mention of the
database.

Only NeoCode's own keys are ``keys``: no variable holding one reaches a command or a hook.
The other secrets are the user's own environment, which their tools may need; they are
scrubbed from everything shown, sent or saved.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from neocode_tui.redact import KEY_SHAPE, REDACTED, Redactor, redact_urls, secret_name, url_secrets

if TYPE_CHECKING:
    from neocode_tui.events import StreamEvent
    from neocode_tui.settings.model import Settings
    from neocode_tui.settings.user_file import UserFile

MIN_TOKEN = 12
_WORD = re.compile(r"[^\s;,'\"]+")
_NOT_A_SECRET = re.compile(r"_(?:PATH|FILE|DIR|HOME)$")
"""Names that say credential but hold where one is kept (``HF_TOKEN_PATH``)."""


class Secrets:
    """The holder: scrubs text (``secrets(text)``), a server's message, a stream."""

    def __init__(self, values: Iterable[str | None] = (), *, keys: Iterable[str | None] = ()) -> None:
        self._values: list[str] = []
        self._keys: list[str] = []
        self._redactor = Redactor()
        self.add(values, keys=keys)

    def add(self, values: Iterable[str | None] = (), *, keys: Iterable[str | None] = ()) -> None:
        """Scrub these too from now on; ``keys`` are NeoCode's own (see ``keys``)."""
        own = [key for key in dict.fromkeys(keys) if key]
        self._keys.extend(key for key in own if key not in self._keys)
        new = [value for value in dict.fromkeys([*own, *values]) if value and value not in self._values]
        if new:
            self._values += new
            self._redactor = Redactor(self._values)

    @property
    def keys(self) -> Sequence[str]:
        """NeoCode's own keys: the same list, grown in place, for ``bash`` and the hooks to
        keep out of environments."""
        return self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __call__(self, text: str) -> str:
        return self._redactor(text)

    def optional(self, text: str | None) -> str | None:
        return None if text is None else self._redactor(text)

    def provider_message(self, text: str) -> str:
        """A message from or about a server (a provider, an MCP server): it may echo a key
        we never had (a mistyped one) or a URL with credentials, so whatever looks like
        either is scrubbed as well."""
        return KEY_SHAPE.sub(REDACTED, redact_urls(self._redactor(text)))

    def stream(self, events: AsyncIterator[StreamEvent]) -> AsyncIterator[StreamEvent]:
        """``events`` scrubbed as they come (``neocode_tui.stream_redact``); as they are
        when there is nothing to scrub."""
        from neocode_tui.stream_redact import scrub_stream

        if not self._redactor:
            return events
        return scrub_stream(events, self._redactor, self.provider_message)


def known_secrets(settings: Settings, environ: Mapping[str, str] | None = None) -> Secrets:
    """A run's holder: the settings' keys, every key in the user's ``config.toml``, and the
    environment's credentials."""
    from neocode_tui.settings.user_file import read_user_file

    holder = Secrets(environment_secrets(os.environ if environ is None else environ))
    holder.add(keys=[*settings.secrets, *user_file_secrets(read_user_file())])
    return holder


def user_file_secrets(user_file: UserFile) -> list[str]:
    """Every key and URL credential in the file, top level and profiles alike."""
    found: list[str] = []
    for table in (user_file.values, *user_file.profiles.values()):
        for name, value in table.items():
            if isinstance(value, str) and name.endswith("api_key"):
                found.append(value)
            elif isinstance(value, str) and name.endswith("base_url"):
                found += url_secrets(value)
    return found


def environment_secrets(environ: Mapping[str, str]) -> list[str]:
    """The credentials among the variables (see the module's rule)."""
    return [secret for name, value in environ.items() for secret in named_secrets(name, value)]


def named_secrets(name: str, value: str) -> list[str]:
    """The credentials in the value of a variable, header or parameter called ``name``: the
    credentials of any URL in it, and its words if the name says credential."""
    found = [secret for url in _urls(value) for secret in url_secrets(url)]
    if secret_name(name) and not _NOT_A_SECRET.search(name.upper()):
        found += [word for word in _WORD.findall(value) if _token(word)]
    return found


def argument_secrets(args: Sequence[str]) -> list[str]:
    """Credentials among command-line arguments: ``--token VALUE``, ``--api-key=VALUE``."""
    found: list[str] = []
    for number, arg in enumerate(args):
        flag, equals, value = arg.partition("=")
        if not flag.startswith("-"):
            found += [secret for url in _urls(arg) for secret in url_secrets(url)]
        elif equals:
            found += named_secrets(flag.lstrip("-"), value)
        elif number + 1 < len(args):
            found += named_secrets(flag.lstrip("-"), args[number + 1])
    return found


def _urls(value: str) -> list[str]:
    return [word for word in value.split() if "://" in word] if "://" in value else []


def _token(word: str) -> bool:
    return len(word) >= MIN_TOKEN and "://" not in word and not word.startswith(("/", "~", "."))

