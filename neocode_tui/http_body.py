"""A stranger's HTTP body, decoded here with a byte limit that holds at every step.

httpx inflates each network read whole: one read of a megabyte of gzip-of-gzip can become
gigabytes in a single call, before any count of the decoded bytes could stop it. So the
body is read raw and each coding of its ``Content-Encoding`` chain is undone by a zlib
decompressor asked for at most ``STEP`` bytes a call; the raw bytes, and what every step
makes of them, each stop at the same limit. A coding that cannot be decoded so is refused.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

ACCEPT_ENCODING = "gzip, deflate"
"""What a request may say it takes: exactly the codings ``decoded`` undoes."""
STEP = 64 << 10
"""The most one decompress call may make."""
MAX_CODINGS = 4
"""Codings one body may be wrapped in (``gzip, gzip`` is two)."""
_GZIP = ("gzip", "x-gzip")


class BodyError(Exception):
    """A body that cannot be read as it came; the message says why."""


class BodyTooLarge(BodyError):
    """The body, or a step of its decoding, passed the limit: what was yielded is its start."""


class _Inflater:
    """One coding undone, ``STEP`` bytes a call, never more than ``limit`` in all."""

    def __init__(self, coding: str, limit: int) -> None:
        self.coding = coding
        self.limit = limit
        self.made = 0
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS) if coding in _GZIP else None
        self._head = b""

    def pieces(self, data: bytes) -> Iterator[bytes]:
        if self._z is None:  # deflate: zlib-wrapped as the standard says, or raw as some send it
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            wrapped = data[0] & 0x0F == 8 and int.from_bytes(data[:2], "big") % 31 == 0
            self._z = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        while not self._z.eof:
            try:
                out = self._z.decompress(data, STEP)
            except zlib.error as exc:
                raise BodyError(f"the body is damaged {self.coding} data ({exc})") from None
            data = self._z.unconsumed_tail
            self.made += len(out)
            if self.made > self.limit:
                raise BodyTooLarge(f"decoding {self.coding} passed {self.limit} bytes")
            if out:
                yield out
            if not data and len(out) < STEP:
                return


def codings(response: httpx.Response) -> list[str]:
    """The codings to undo, last applied first; ``BodyError`` for one not decoded here."""
    named = [value.strip().lower() for value in
             response.headers.get_list("content-encoding", split_commas=True)]
    chain = [coding for coding in named if coding and coding != "identity"]
    if len(chain) > MAX_CODINGS:
        raise BodyError(f"the body is wrapped in {len(chain)} codings; at most {MAX_CODINGS} are undone")
    for coding in chain:
        if coding not in (*_GZIP, "deflate"):
            raise BodyError(f"the body is encoded as {coding!r}, which is not decoded here "
                            f"(only {ACCEPT_ENCODING})")
    return chain[::-1]


async def decoded(response: httpx.Response, limit: int) -> AsyncIterator[bytes]:
    """The body of a streamed ``response`` decoded, in pieces of at most ``STEP`` bytes and
    at most ``limit`` in all; ``BodyTooLarge`` after them when there was more."""
    stages = [_Inflater(coding, limit) for coding in codings(response)]
    raw = sent = 0
    async for chunk in response.aiter_raw():
        raw += len(chunk)
        for piece in _through(stages, chunk):
            room = limit - sent
            if len(piece) > room:
                if room:
                    yield piece[:room]
                raise BodyTooLarge(f"the body passed {limit} bytes")
            sent += len(piece)
            yield piece
        if raw > limit:
            raise BodyTooLarge(f"the body passed {limit} bytes as sent")


def _through(stages: list[_Inflater], data: bytes) -> Iterator[bytes]:
    if not stages:
        yield data
        return
    for piece in stages[0].pieces(data):
        yield from _through(stages[1:], piece)
