"""The package's shape, counted from its source: modules per folder, import circles, what the
front ends import of the core, and the largest classes and functions.

``python -m tests.support.shape`` prints it; the layout tests hold the parts that must not grow
back (circles, front ends reaching past a face).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "neocode_tui"
FRONT_ENDS = ("neocode_tui.tui", "neocode_tui.cli")


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


def modules(root: Path = ROOT) -> dict[str, Module]:
    """Every module of the package by dotted name (a package by its own name)."""
    found: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts)
        found[name] = Module(name, path, ast.parse(path.read_text(), str(path)))
    return found


def face_homes(known: dict[str, Module]) -> dict[str, dict[str, str]]:
    """For each package, the module each name of its face comes from: ``from pkg import
    Name`` depends on that module, not on every module the face lists."""
    homes: dict[str, dict[str, str]] = {}
    for name, module in known.items():
        if module.is_package:
            homes[name] = {alias.asname or alias.name: node.module
                           for node in ast.walk(module.tree) if isinstance(node, ast.ImportFrom)
                           and node.module and node.module.startswith(name + ".") for alias in node.names}
    return homes


def imported(module: Module, known: dict[str, Module],
             homes: dict[str, dict[str, str]] | None = None) -> Iterator[tuple[str, int]]:
    """The package's modules one module imports, anywhere in it (in functions too), with the
    line of each import. ``from pkg import name`` names ``pkg.name`` when that is a module,
    else the module ``pkg``'s face takes ``name`` from."""
    homes = face_homes(known) if homes is None else homes
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    yield f"{base}.{alias.name}", node.lineno
                elif alias.name in homes.get(base, {}) and homes[base][alias.name] in known:
                    yield homes[base][alias.name], node.lineno
                elif base in known:
                    yield base, node.lineno


def graph(known: dict[str, Module]) -> dict[str, set[str]]:
    homes = face_homes(known)
    return {name: {target for target, _ in imported(module, known, homes) if target != name}
            for name, module in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(groups)


def is_front_end(name: str) -> bool:
    return any(name == end or name.startswith(end + ".") for end in FRONT_ENDS)


def named_by(module: Module, known: dict[str, Module]) -> Iterator[str]:
    """The package's modules an import statement of ``module`` names as written: a package
    named is its face, whatever the face's names come from."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module in known:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                yield full if full in known else node.module


def core_imports_of_front_ends(known: dict[str, Module]) -> Counter[str]:
    """How many imports of the front ends name each core module or face."""
    named: Counter[str] = Counter()
    for name, module in known.items():
        if is_front_end(name):
            named.update(target for target in named_by(module, known) if not is_front_end(target))
    return named


def past_a_face(name: str, known: dict[str, Module]) -> bool:
    """A module of a package below the top one: its package's face is the way in."""
    package = name.rpartition(".")[0]
    return not known[name].is_package and package != "neocode_tui" and package in known


def definitions(tree: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """Every class and function with its qualified name (``module.Class.method``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}.{node.name}", node
            yield from definitions(node, f"{prefix}.{node.name}")
        else:
            yield from definitions(node, prefix)


def largest(known: dict[str, Module], kinds: tuple[type[ast.AST], ...], count: int = 5) -> list[tuple[int, str]]:
    sizes = [(node.end_lineno - node.lineno + 1, qualified)  # type: ignore[attr-defined]
             for name, module in known.items() for qualified, node in definitions(module.tree, name)
             if isinstance(node, kinds)]
    return sorted(sizes, reverse=True)[:count]


def report() -> str:
    known = modules()
    folders = Counter(str(module.path.parent.relative_to(ROOT.parent)) for module in known.values())
    named = core_imports_of_front_ends(known)
    lines = ["modules per folder:"]
    lines += [f"  {count:3}  {folder}" for folder, count in sorted(folders.items())]
    found = circles(graph(known))
    lines.append(f"import circles: {len(found)}")
    lines += [f"  {' <-> '.join(group)}" for group in found]
    past = Counter({name: count for name, count in named.items() if past_a_face(name, known)})
    lines.append(f"front-end imports of the core: {sum(named.values())} naming {len(named)} modules or faces, "
                 f"{sum(past.values())} of them past a face, naming {len(past)} modules")
    lines += [f"  {count:3}  {name}{'  (past a face)' if name in past else ''}" for name, count in named.most_common()]
    for title, kinds in (("classes", (ast.ClassDef,)), ("functions", (ast.FunctionDef, ast.AsyncFunctionDef))):
        lines.append(f"largest {title} (lines):")
        lines += [f"  {size:4}  {name}" for size, name in largest(known, kinds)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
