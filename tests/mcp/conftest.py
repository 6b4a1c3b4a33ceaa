"""Fixtures of the MCP tests (their servers: ``tests.support.mcp_launch``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from neocode_tui.agent.mcp import McpManager
from tests.support.mcp_launch import running_http_server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
async def managers() -> AsyncIterator[list[McpManager]]:
    """Managers a test makes; all stopped at its end, whatever happened."""
    made: list[McpManager] = []
    yield made
    for manager in made:
        await manager.aclose()


@pytest.fixture(scope="session")
def http_server() -> Iterator[str]:
    """The URL of the test server most tests share (one process for the whole run)."""
    with running_http_server() as (url, _):
        yield url
