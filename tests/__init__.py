"""The tests. Their support (``tests.support``) asserts as a test does, so pytest rewrites its
asserts too: a failure there shows the values, not a bare AssertionError."""

import pytest

pytest.register_assert_rewrite("tests.support")
