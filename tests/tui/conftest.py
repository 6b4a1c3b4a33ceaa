"""Fixtures shared by the app's tests."""

from tests.tui.test_real_terminal import tmux  # noqa: F401  (a tmux server of the test's own)
