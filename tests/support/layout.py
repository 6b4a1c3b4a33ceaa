"""What the tests' own modules import and define, read from their source with ``ast``: the
layout test holds them to it (a test module imports support, never another test module; a
conftest holds fixtures and hooks, never the helpers they use)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def python_files(root: Path = TESTS) -> Iterator[Path]:
    """Every Python file under ``root``, but those of installed node packages."""
    for path in sorted(root.rglob("*.py")):
        if "node_modules" not in path.parts:
            yield path


def imports_of_test_modules(root: Path = TESTS) -> list[str]:
    """``file: module`` for each import, in any file under ``root``, of a test module or a
    conftest (what they share belongs in tests/support)."""
    found = []
    for path in python_files(root):
        tree = ast.parse(path.read_text(), str(path))
        package = ".".join(path.relative_to(root.parent).parent.parts)
        for name in sorted(set(_imported(tree, package))):
            if name.startswith(f"{root.name}.") and name.rsplit(".", 1)[-1].startswith(("test_", "conftest")):
                found.append(f"{path.relative_to(root.parent)}: {name}")
    return found


def _imported(tree: ast.Module, package: str) -> Iterator[str]:
    """Every module (or name in a module) an import in ``tree`` names, relative ones resolved
    against ``package``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def helpers_in_conftests(root: Path = TESTS) -> list[str]:
    """``file:line: what`` for everything a conftest under ``root`` defines that is not a
    fixture, a ``pytest_*`` hook or a module constant."""
    found = []
    for path in python_files(root):
        if path.name != "conftest.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if not _allowed_in_conftest(node):
                name = getattr(node, "name", type(node).__name__)
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {name}")
    return found


def _allowed_in_conftest(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True  # the docstring
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name.startswith("pytest_") or any(_is_fixture(d) for d in node.decorator_list)
    return False


def _is_fixture(decorator: ast.expr) -> bool:
    """``@pytest.fixture``, ``@pytest_asyncio.fixture`` or ``@fixture``, called or not."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "fixture"
