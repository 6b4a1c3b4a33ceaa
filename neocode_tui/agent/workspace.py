"""The folder the agent works in, and the one rule about paths: they stay inside it.

Every tool resolves the model's paths here, so the check lives in exactly one place.
Paths are resolved through symlinks before they are compared, which catches ``..``,
absolute paths and links that lead out with one test.
"""

from __future__ import annotations

from pathlib import Path


class PathOutsideWorkspace(ValueError):
    """The model asked for a path the agent may not touch."""


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def resolve(self, path: str) -> Path:
        """The absolute, symlink-free path for ``path``, or ``PathOutsideWorkspace``."""
        if not path.strip():
            raise PathOutsideWorkspace("the path is empty")
        try:
            candidate = Path(path).expanduser()
        except RuntimeError:  # "~someone" with no such user
            raise PathOutsideWorkspace(f"{path!r} is outside the workspace ({self.root})") from None
        if not candidate.is_absolute():
            candidate = self.root / candidate
        resolved = candidate.resolve()
        if resolved.is_relative_to(self.root):
            return resolved
        lexical = Path(*_normalise(candidate.parts))
        if lexical.is_relative_to(self.root):
            raise PathOutsideWorkspace(
                f"{path!r} is a symlink that leads outside the workspace ({self.root}); "
                "only files inside it can be used"
            )
        raise PathOutsideWorkspace(
            f"{path!r} is outside the workspace ({self.root}); only paths inside it can be used"
        )

    def relative(self, path: Path) -> str:
        """How a resolved path is shown to the model and the user: relative, with ``/``."""
        relative = path.relative_to(self.root).as_posix()
        return relative if relative != "." else "."


def _normalise(parts: tuple[str, ...]) -> list[str]:
    """``..`` folded away without touching the disk (so links are not followed)."""
    out: list[str] = []
    for part in parts:
        if part == "..":
            if len(out) > 1:
                out.pop()
        elif part != ".":
            out.append(part)
    return out
