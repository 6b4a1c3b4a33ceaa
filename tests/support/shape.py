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


def imported(module: Module, known: dict[str, Module]) -> Iterator[tuple[str, int]]:
    """The package's modules one module imports, anywhere in it (in functions too), with the
    line of each import. ``from pkg import name`` names ``pkg.name`` when that is a module."""
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
                elif base in known:
                    yield base, node.lineno


def graph(known: dict[str, Module]) -> dict[str, set[str]]:
    return {name: {target for target, _ in imported(module, known) if target != name}
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


def core_imports_of_front_ends(known: dict[str, Module]) -> Counter[str]:
    """How many import statements of the front ends name each core module."""
    named: Counter[str] = Counter()
    for name, module in known.items():
        if is_front_end(name):
            named.update(target for target, _ in imported(module, known) if not is_front_end(target))
    return named


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
    lines.append(f"front-end imports of the core: {sum(named.values())} naming {len(named)} modules")
    lines += [f"  {count:3}  {name}" for name, count in named.most_common()]
    for title, kinds in (("classes", (ast.ClassDef,)), ("functions", (ast.FunctionDef, ast.AsyncFunctionDef))):
        lines.append(f"largest {title} (lines):")
        lines += [f"  {size:4}  {name}" for size, name in largest(known, kinds)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
