"""The editor's buffers over ACP: ``fs/read_text_file`` and ``fs/write_text_file``.

A file tool runs in a worker thread; each call here is sent on the event loop the
connection lives on and waited for in that thread, so the tool's code stays as it is for
the disk (see ``agent.buffers``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from acp import RequestError
from acp.interfaces import Client
from acp.schema import ClientCapabilities

from neocode_tui.agent import BufferError

ANSWER_WITHIN = 30.0
"""Seconds an editor has to answer a read or a write before the tool call fails."""

T = TypeVar("T")


def offers_buffers(capabilities: ClientCapabilities | None) -> bool:
    """Both ways or neither: a read from the buffer then a write to the disk would make the
    editor reload (or conflict with) the very text the model just read."""
    fs = capabilities.fs if capabilities is not None else None
    return bool(fs is not None and fs.read_text_file and fs.write_text_file)


class EditorBuffers:
    def __init__(
        self, client: Client, session_id: Callable[[], str], loop: asyncio.AbstractEventLoop
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._loop = loop

    def read(self, path: Path) -> str:
        answer = self._wait(self._client.read_text_file(
            session_id=self._session_id(), path=str(path)))
        return answer.content

    def write(self, path: Path, text: str) -> None:
        self._wait(self._client.write_text_file(
            session_id=self._session_id(), path=str(path), content=text))

    def _wait(self, call: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(call, self._loop)
        try:
            return future.result(ANSWER_WITHIN)
        except TimeoutError:
            future.cancel()
            raise BufferError(f"no answer within {ANSWER_WITHIN:g} s") from None
        except RequestError as exc:
            raise BufferError(str(exc)) from None
        except (OSError, ValueError) as exc:  # the connection went away, or a bad answer
            raise BufferError(str(exc) or type(exc).__name__) from None
