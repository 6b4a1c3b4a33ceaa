"""Keeping API keys out of everything shown, logged or saved.

A tool result goes to the screen, the session file and the model, so a ``cat .env`` must
not carry the key along: there only the known values are scrubbed (the holder,
``neocode_tui.known_secrets``, says which), since a pattern ("sk-...") would also eat the
example keys and test fixtures in the user's own code. A server's error message is
different: it may echo a key we never had (a mistyped one), so ``Secrets.provider_message``
also scrubs anything shaped like a key, and the credentials of any URL.

Not only whole keys: a cut (a capped output, a long line shortened) can leave a key's
start or end behind, and an edit can put a character into the middle of one. So any run
of ``MIN_FRAGMENT`` or more characters that also occurs in a key is scrubbed, unless it
lies entirely inside the key's public head (``sk-proj-``, ``sk-ant-api03-``), which every
key of that kind shares and the user's own code mentions.

Finding the runs stays linear and in C: each key is cut into short seeds at a fixed
stride, so that every run long enough must contain one whole seed; ``str.find`` looks
for the seeds, and only around a hit is the run grown character by character.

Credentials in a URL (``https://user:password@host``, ``?api_key=...``) are its secret
parts: ``url_secrets`` takes them out of a configured URL (so they are scrubbed like keys)
and ``redact_url`` blanks them wherever a URL is shown.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable
from urllib.parse import unquote

REDACTED = "[redacted]"
MIN_SECRET = 8
"""Shorter values are not keys, and replacing them would garble ordinary text."""
MIN_FRAGMENT = 8
"""A run this long that also occurs in a key is taken for part of it."""
SEED = 5
STRIDE = MIN_FRAGMENT - SEED + 1
"""Seeds of ``SEED`` characters every ``STRIDE``: a run of ``MIN_FRAGMENT`` holds one."""
KEY_SHAPE = re.compile(r"\b(?:sk|gsk|xai|pk|rk)[-_][A-Za-z0-9_\-*.]{8,}")
PUBLIC_HEAD = re.compile(r"(?:[a-z][a-z0-9]{0,7}[-_]){1,4}")
"""The scheme prefix of a key: lower-case words each ended by '-' or '_'."""
SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTHORIZATION"
    r"|COOKIE|(?:^|_)(?:KEY|AUTH|PAT|PWD|SIG|SIGNATURE)(?:_|$)"
)
"""A name (upper case, ``-`` read as ``_``) that says its value is a credential."""
_IN_URL = r"\[[^\s'\"<>\[\]]*\]|[^\s'\"<>\[\]"
URL = re.compile(rf"\b[A-Za-z][A-Za-z0-9+.-]*://(?:{_IN_URL}])*(?:{_IN_URL}.,:;!?)])")
"""A URL in text: brackets only in pairs (``[::1]``, ``[redacted]``), and not the
punctuation that ends a sentence after it."""
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")
_QUERY_PARAM = re.compile(r"([?&;])([^=&;#]*)=([^&;#]*)")
STREAM_WHOLE = 256
"""Text at least this long is searched for runs by the seeds' ``str.find`` (in C) rather
than window by window."""


class _Seeds:
    """Every key cut into seeds: seed text -> (key, where the seed starts in it)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.heads = [_head(key) for key in keys]
        self.seeds: dict[str, list[tuple[int, int]]] = {}
        for number, key in enumerate(keys):
            starts = {*range(0, len(key) - SEED + 1, STRIDE), len(key) - SEED}
            for start in sorted(starts):  # the last one: the stride may skip the end
                self.seeds.setdefault(key[start : start + SEED], []).append((number, start))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Spans of ``text``, in order, that are runs of a key worth scrubbing.

        A heap holds each seed's next hit; once a span is found the scan goes on from its
        end, so text full of key fragments costs no more than text with one.
        """
        heap = [(at, seed) for seed in self.seeds if (at := text.find(seed)) != -1]
        heapq.heapify(heap)
        spans: list[tuple[int, int]] = []
        done = 0
        while heap:
            at, seed = heap[0]
            if at < done:
                at = text.find(seed, done)
            else:
                span = self._grow(text, at, seed)
                if span is not None:
                    spans.append(span)
                    done = span[1]
                    continue
                at = text.find(seed, at + 1)
            if at == -1:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (at, seed))
        return spans

    def _grow(self, text: str, at: int, seed: str) -> tuple[int, int] | None:
        """The longest run around the hit of ``seed`` at ``at``, if it counts."""
        best: tuple[int, int] | None = None
        for number, start in self.seeds[seed]:
            key = self.keys[number]
            left = _common_suffix(text, at, key, start)
            right = SEED + _common_prefix(text, at + SEED, key, start + SEED)
            if left + right >= MIN_FRAGMENT and start + right > self.heads[number]:
                if best is None or at + right > best[1]:
                    best = (at - left, at + right)
        return best


def _common_prefix(text: str, at: int, key: str, start: int) -> int:
    """How many characters of ``text`` from ``at`` match ``key`` from ``start`` (the
    comparisons are slices, so done in C, by halving)."""
    low, high = 0, min(len(text) - at, len(key) - start)
    while low < high:
        middle = (low + high + 1) // 2
        if text[at : at + middle] == key[start : start + middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(text: str, at: int, key: str, start: int) -> int:
    """How many characters before ``at`` in ``text`` match those before ``start`` in ``key``."""
    low, high = 0, min(at, start)
    while low < high:
        middle = (low + high + 1) // 2
        if text[at - middle : at] == key[start - middle : start]:
            low = middle
        else:
            high = middle - 1
    return low


def _head(key: str) -> int:
    """How long the key's public head is: at most a quarter of the key, so a secret made
    of lower-case words (``my-secret-token-value``) is not taken for all head."""
    head = PUBLIC_HEAD.match(key)
    return head.end() if head and head.end() <= len(key) // 4 else 0


class Redactor:
    """Scrubs a fixed set of secrets; ``neocode_tui.known_secrets.Secrets`` holds the one a
    run uses and makes a new one when it learns a secret."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        values = {secret for secret in secrets if secret and len(secret) >= MIN_SECRET}
        self._secrets = sorted(values, key=len, reverse=True)
        self._seeds = _Seeds(self._secrets)
        self._pieces: frozenset[str] | None = None

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __call__(self, text: str) -> str:
        if not self._secrets:
            return text
        for secret in self._secrets:
            if secret in text:  # the common case, all in C
                text = text.replace(secret, REDACTED)
        out: list[str] = []
        done = 0
        for start, end in self._seeds.spans(text):
            if start > done or not out:
                out.append(text[done:start])
                out.append(REDACTED)
            done = max(done, end)
        if not out:
            return text
        out.append(text[done:])
        return "".join(out)

    def runs(self, text: str) -> list[tuple[int, int]]:
        """The spans of ``text`` that ``__call__`` would scrub, in order, not overlapping."""
        seeds = self._seeds
        if len(text) < STREAM_WHOLE:  # a streamed piece: its windows, in a set
            known = seeds.seeds
            for at in range(len(text) - SEED + 1):
                if text[at : at + SEED] in known:
                    return seeds.spans(text)
            return []
        return seeds.spans(text)

    def held(self, text: str) -> int:
        """How many characters at the end of ``text`` also occur in a key: the next ones
        may make them a run, so a stream holds them back until it knows."""
        pieces = self._pieces
        if pieces is None:
            pieces = self._pieces = frozenset(
                key[at : at + size] for key in self._secrets
                for size in range(1, MIN_FRAGMENT) for at in range(len(key) - size + 1)
            )
        end, size = len(text), 0
        while size < end and size < MIN_FRAGMENT - 1 and text[end - size - 1 :] in pieces:
            size += 1
        if size == MIN_FRAGMENT - 1:  # as long as a run: follow it through the keys
            while size < end and any(text[end - size - 1 :] in key for key in self._secrets):
                size += 1
        return size


def secret_name(name: str) -> bool:
    """Whether a variable, header or query parameter of this name holds a credential."""
    return SECRET_NAME.search(name.upper().replace("-", "_")) is not None


def url_secrets(url: str) -> list[str]:
    """The credentials in ``url``: its password (its user name when that stands alone, as
    in ``https://TOKEN@host``) and the values of parameters named like ``key`` or
    ``token``, as written and decoded."""
    found: list[str] = []
    userinfo = _USERINFO.match(url)
    if userinfo:
        user, _, password = userinfo.group(2).partition(":")
        found.append(password or user)
    for _, name, value in _QUERY_PARAM.findall(url.split("#", 1)[0]):
        if secret_name(unquote(name)):
            found.append(value)
    return [text for value in found for text in {value, unquote(value)} if text]


def redact_url(url: str) -> str:
    """``url`` as it may be shown: no user name or password, no value of a parameter
    named like a credential."""
    url = _USERINFO.sub(lambda match: f"{match.group(1)}{REDACTED}@", url, count=1)
    return _QUERY_PARAM.sub(_blank_credential, url)


def redact_urls(text: str) -> str:
    """``text`` with the credentials of every URL in it blanked (``redact_url``)."""
    return URL.sub(lambda match: redact_url(match.group()), text) if "://" in text else text


def url_host(url: str) -> str:
    """Where ``url`` points, for a message: host and port, never the user or password."""
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0].split("?", 1)[0].rpartition("@")[2] or url


def _blank_credential(match: re.Match[str]) -> str:
    mark, name, value = match.groups()
    return f"{mark}{name}={REDACTED}" if value and secret_name(unquote(name)) else match.group()
