"""``@path`` in a prompt: the file (or folder) goes along with the request.

The prompt keeps the mention as the user typed it; what the model gets after it is each
mentioned file as ``read_file`` shows it (numbered lines, capped; an image as the image
itself) and each folder as ``list_dir`` does, read through the same confined, no-follow opens. A word after ``@``
that names nothing in the workspace (``@property`` in pasted code, an e-mail address) is
left alone; one that names something that cannot be attached (outside the workspace, a
binary file) is reported to the user, never sent. One a deny rule keeps from the model
(``Workspace.hidden``) is reported too, and the model gets a line saying it was withheld.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from neocode_tui.agent.tools.base import RESULT_CAP, Deadline, ToolError, cap_text
from neocode_tui.agent.tools.files import ListDir, ListDirArgs, ReadFile, ReadFileArgs
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace, withheld
from neocode_tui.chat import Image

MENTION = re.compile(r'(?<![\w@])@(?:"([^"\n]+)"|([^\s"]+))')
"""``@src/app.py`` or, for a name with spaces, ``@"my notes.md"``."""
TRAILING = ".,;:!?)]}'"
"""Punctuation that ends a sentence rather than a path: ``see @a.py.`` means ``a.py``."""
ATTACHED = "\n\nThe user attached these with @ (as read_file and list_dir show them):\n\n"
TOTAL_CAP = RESULT_CAP
"""Characters attached to one prompt, all mentions together."""


def mention_for(path: str) -> str:
    """How the picker writes ``path`` into the prompt."""
    return f'@"{path}"' if any(char.isspace() or char == '"' for char in path) else f"@{path}"


@dataclass
class Expanded:
    text: str
    """What the model is sent: the prompt, then what its mentions name."""
    attached: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    """The mentioned images, sent with the prompt (the text says where each came from)."""


def expand_mentions(
    text: str, workspace: Workspace, secrets: Callable[[str], str] = str
) -> Expanded:
    """``text`` with the content of each file and folder it mentions added after it,
    scrubbed by ``secrets`` (the run's holder) before it is cut."""
    result = Expanded(text)
    blocks: list[str] = []
    for match in MENTION.finditer(text):
        quoted, bare = match.groups()
        found = _attach(quoted, workspace) if quoted else _attach_bare(bare, workspace)
        if found is None:
            continue
        shown, block, problem = found[:3]
        if problem:
            result.problems.append(f"@{shown} was not attached: {problem}")
            if block and block not in blocks:  # withheld: the model is told so
                blocks.append(block)
        elif shown not in result.attached:
            result.attached.append(shown)
            blocks.append(block)
            result.images += found[3:]
    if blocks:
        attached = cap_text(secrets("\n\n".join(blocks)), TOTAL_CAP)
        result.text = f"{text}{ATTACHED}{attached}"
    return result


def typed_part(content: str) -> str:
    """A sent prompt as the user typed it, without what its mentions attached (a resumed
    conversation shows this)."""
    return content.split(ATTACHED, 1)[0]


Found = tuple[str, str, str] | tuple[str, str, str, Image]
"""(shown path, block, problem), and the image where the file is one."""


def _attach_bare(word: str, workspace: Workspace) -> Found | None:
    """A mention without quotes, tried as typed and then without trailing punctuation."""
    candidates = [word]
    stripped = word.rstrip(TRAILING)
    if stripped and stripped != word:
        candidates.append(stripped)
    for candidate in candidates:
        found = _attach(candidate, workspace)
        if found is not None:
            return found
    return None


def _attach(name: str, workspace: Workspace) -> Found | None:
    """What a mentioned name attaches; None when it names nothing."""
    try:
        path = workspace.resolve(name)
    except PathOutsideWorkspace as exc:
        return (name, "", str(exc)) if _exists(name, workspace) else None
    if not path.exists():
        return None
    shown = workspace.relative(path)
    if denied := workspace.hidden(path):
        return shown, withheld(shown, denied), denied
    try:
        if path.is_dir():
            listing = ListDir().run_sync(ListDirArgs(path=shown), workspace, Deadline())
            return shown, f'<folder path="{shown}">\n{listing.text}\n</folder>', ""
        content = ReadFile().run_sync(ReadFileArgs(path=shown), workspace, Deadline())
    except (ToolError, OSError) as exc:
        return shown, "", str(exc) if isinstance(exc, ToolError) else (exc.strerror or str(exc))
    if content.images:
        return shown, f'<image path="{shown}">{content.text}</image>', "", content.images[0]
    return shown, f'<file path="{shown}">\n{content.text}\n</file>', ""


def _exists(name: str, workspace: Workspace) -> bool:
    """A path outside the workspace is reported only if it names something real."""
    try:
        candidate = Path(name).expanduser()
        return (workspace.root / candidate).exists()
    except (OSError, RuntimeError, ValueError):
        return False
