"""A ``SKILL.md``'s front matter, read as Claude Code reads it.

``name`` (else the folder's name), ``description`` (else the body's first paragraph) with
``when_to_use`` after it, ``argument-hint``, ``arguments``, ``disable-model-invocation`` and
``user-invocable`` are honoured. The fields Claude Code has that NeoCode does not act on are
named per skill (``/skills`` shows them), never silently dropped: ``allowed-tools`` grants
nothing here (a skill may not widen what runs without asking), and ``model``, ``effort``,
``context``, ``agent``, ``hooks``, ``paths`` and ``shell`` have no effect.
"""

from __future__ import annotations

from dataclasses import dataclass

from neocode_tui.agent.extensions.arguments import argument_names
from neocode_tui.agent.workspace import printable_name

IGNORED = ("allowed-tools", "model", "effort", "context", "agent", "hooks", "paths", "shell")
"""Claude Code's fields that have no effect here (docs/extending.md says why, each)."""
MAX_DESCRIPTION = 1024


@dataclass(frozen=True)
class SkillFront:
    name: str
    description: str
    argument_hint: str = ""
    arguments: tuple[str, ...] = ()
    model_invocable: bool = True
    """False: ``disable-model-invocation: true``, only the user runs it (``/name``)."""
    user_invocable: bool = True
    """False: ``user-invocable: false``, no ``/name``; the model may still load it."""
    ignored: tuple[str, ...] = ()


def read_front(data: dict[object, object], folder_name: str, body: str) -> SkillFront:
    """The fields of ``data`` (a parsed front matter); text values only, one line each."""
    name = _text(data.get("name")).strip() or folder_name
    description = " ".join(_text(data.get("description")).split()) or _first_paragraph(body)
    when = " ".join(_text(data.get("when_to_use")).split())
    if when:
        description = f"{description} {when}".strip()
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
    return SkillFront(
        name=name,
        description=printable_name(description),
        argument_hint=printable_name(" ".join(_text(data.get("argument-hint")).split())),
        arguments=argument_names(data.get("arguments")),
        model_invocable=not _flag(data.get("disable-model-invocation"), False),
        user_invocable=_flag(data.get("user-invocable"), True),
        ignored=tuple(key for key in IGNORED if key in data),
    )


def _text(value: object) -> str:
    """A scalar as text; a list or mapping is none (never printed: YAML aliases can make a
    small file stand for a structure too large to)."""
    return str(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else ""


def _flag(value: object, default: bool) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return default


def _first_paragraph(body: str) -> str:
    paragraph: list[str] = []
    for line in body.strip().splitlines():
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip().lstrip("#").strip())
    return " ".join(" ".join(paragraph).split())
