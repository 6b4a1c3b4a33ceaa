"""Fixtures of the ACP tests (the editor they drive ``neocode acp`` with:
``tests.support.acp_editor``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.dialects import Dialect


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
async def model(model_server) -> Dialect:
    return Dialect("openai", model_server)
