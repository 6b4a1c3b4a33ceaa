"""Keeping the API keys in use out of what tools return.

A tool result goes to the screen, the session file and the model, so a ``cat .env`` must
not carry the key along. Only the exact values in use are scrubbed: a pattern ("sk-...")
would also eat the example keys and test fixtures in the user's own code.
"""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "[redacted]"
MIN_SECRET = 8
"""Shorter values are not keys, and replacing them would garble ordinary text."""


class Redactor:
    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        values = {secret for secret in secrets if secret and len(secret) >= MIN_SECRET}
        self._secrets = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def optional(self, text: str | None) -> str | None:
        return None if text is None else self(text)
