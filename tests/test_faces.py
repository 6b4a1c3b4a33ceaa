"""Every package's face: a literal ``__all__`` whose names all load, a lazy face that loads
none of its modules until a name is read, and the front ends reaching the core only through
faces, with no import circle in the core (as httpx's tests hold its exported members)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest

from tests.support import shape

KNOWN = shape.modules()
PACKAGES = sorted(name for name, module in KNOWN.items() if module.is_package)


def literal_all(module: shape.Module) -> list[str]:
    for node in module.tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "__all__" for target in node.targets):
            names = ast.literal_eval(node.value)
            assert isinstance(names, list)
            return names
    raise AssertionError(f"{module.name} has no literal __all__")


def face_map(module: shape.Module) -> dict[str, set[str]]:
    """What a lazy face's ``face(__name__, {...})`` call gives each module, from its source."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "face":
            given = ast.literal_eval(node.args[1])
            return {sub: set(names) for sub, names in given.items()}
    return {}


def typed_imports(module: shape.Module) -> dict[str, set[str]]:
    """The names the face's ``if TYPE_CHECKING:`` block imports, by the module they come from."""
    found: dict[str, set[str]] = {}
    for node in module.tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    sub = statement.module.removeprefix(module.name + ".")
                    found.setdefault(sub, set()).update(alias.name for alias in statement.names)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_of_a_face_loads_and_is_no_module_of_its_package(package: str) -> None:
    names = literal_all(KNOWN[package])
    assert len(names) == len(set(names)), f"{package} lists a name twice"
    loaded = importlib.import_module(package)
    missing = [name for name in names if not hasattr(loaded, name)]
    assert missing == []
    shadowing = [name for name in names if f"{package}.{name}" in KNOWN]
    assert shadowing == [], "a name that is also a module's is replaced by the module once it is imported"


@pytest.mark.parametrize("package", [name for name in PACKAGES if face_map(KNOWN[name])])
def test_a_lazy_face_types_exactly_what_it_loads(package: str) -> None:
    module = KNOWN[package]
    lazy = face_map(module)
    assert {sub: names for sub, names in typed_imports(module).items() if sub in lazy} == lazy
    eager = {alias.asname or alias.name for node in module.tree.body if isinstance(node, ast.ImportFrom)
             for alias in node.names} | {node.name for node in module.tree.body
                                         if isinstance(node, ast.ClassDef | ast.FunctionDef)}
    assert set(literal_all(module)) <= set().union(*lazy.values()) | eager


LAZY = [name for name in PACKAGES if face_map(KNOWN[name]) and not any(
    isinstance(node, ast.ImportFrom) and (node.module or "").startswith(name + ".") for node in KNOWN[name].tree.body)]


@pytest.mark.parametrize("package", LAZY)
def test_importing_a_lazy_face_loads_none_of_its_modules_until_a_name_is_read(package: str) -> None:
    first = sorted(set().union(*face_map(KNOWN[package]).values()))[0]
    code = (f"import sys, {package} as face\n"
            f"def mine(): return sorted(m for m in sys.modules if m.startswith({package + '.'!r}))\n"
            f"before = mine(); face.{first}; print(before, mine())")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("] [")
    before, after = shown[0].strip("[]\n"), shown[1].strip("[]\n")
    assert before == ""
    assert after != ""


def test_the_core_has_no_import_circle() -> None:
    core = [group for group in shape.circles(shape.graph(KNOWN)) if not all(map(shape.is_front_end, group))]
    assert core == []


def test_the_front_ends_reach_the_core_only_through_faces() -> None:
    named = shape.core_imports_of_front_ends(KNOWN)
    assert [name for name in named if shape.past_a_face(name, KNOWN)] == []
