"""Fixtures shared by every test folder."""

from tests.http_model_server import model_server

__all__ = ["model_server"]
