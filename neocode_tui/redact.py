"""Keeping API keys out of everything shown, logged or saved.

A tool result goes to the screen, the session file and the model, so a ``cat .env`` must
not carry the key along: there only the exact values in use are scrubbed, since a pattern
("sk-...") would also eat the example keys and test fixtures in the user's own code. A
server's error message is different: it may echo a key we never had (a mistyped one), so
``provider_message`` also scrubs anything shaped like a key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
MIN_SECRET = 8
"""Shorter values are not keys, and replacing them would garble ordinary text."""
KEY_SHAPE = re.compile(r"\b(?:sk|gsk|xai|pk|rk)[-_][A-Za-z0-9_\-*.]{8,}")


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

    def provider_message(self, text: str) -> str:
        """A message from or about the provider: also scrub whatever looks like a key."""
        return KEY_SHAPE.sub(REDACTED, self(text))
