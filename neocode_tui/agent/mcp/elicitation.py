"""A server's question to the user (MCP elicitation), in terms every front end can show.

A server may ask for a few values in a flat form (strings, numbers, booleans, a choice).
The app shows a dialog, an editor is asked over ACP, and a run with no one to ask declines
with the reason said. A question whose form this client cannot show is declined too, never
answered with made-up values; nothing is ever accepted without the user.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
"""``choice``: one of ``choices``; ``choices``: several of them."""
Action = Literal["accept", "decline", "cancel"]
MAX_FIELDS = 20
MAX_MESSAGE = 2_000


@dataclass(frozen=True)
class Field:
    name: str
    kind: FieldKind
    title: str = ""
    description: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()
    default: Any = None


@dataclass(frozen=True)
class Question:
    server: str
    message: str
    fields: tuple[Field, ...] = ()


@dataclass(frozen=True)
class Answer:
    action: Action
    content: dict[str, Any] = field(default_factory=dict)


Elicitor = Callable[[Question], Awaitable[Answer]]
"""What a front end gives the session to ask the user a server's question."""
Asker = Callable[[str, str, "Question | None", str], Awaitable[Answer]]
"""The session's side, for a connection: server, message, the question (None when it
cannot be shown) and why not."""


class UnshowableForm(ValueError):
    """The requested schema is not a flat form of the kinds above."""


def question_of(server: str, message: str, schema: Mapping[str, Any]) -> Question:
    """The question as the front ends show it, or ``UnshowableForm``."""
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping) or len(properties) > MAX_FIELDS:
        raise UnshowableForm("the form has too many fields or none that can be shown")
    required = set(schema.get("required") or ())
    fields = tuple(_field(name, spec, name in required) for name, spec in properties.items())
    return Question(server=server, message=message[:MAX_MESSAGE], fields=fields)


def _field(name: str, spec: Any, required: bool) -> Field:
    if not isinstance(spec, Mapping):
        raise UnshowableForm(f"the field {name!r} has no schema")
    kind = spec.get("type")
    title, description = str(spec.get("title") or ""), str(spec.get("description") or "")
    items = spec.get("items")
    if kind == "array" and isinstance(items, Mapping) and (several := _choices(items)):
        return Field(name, "choices", title, description, required, several, spec.get("default"))
    if one := _choices(spec):
        return Field(name, "choice", title, description, required, one, spec.get("default"))
    if kind in ("string", "number", "integer", "boolean"):
        return Field(name, kind, title, description, required, (), spec.get("default"))
    raise UnshowableForm(f"the field {name!r} is of a kind that cannot be asked ({kind!r})")


def _choices(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The values of an ``enum``, or of a ``oneOf`` / ``anyOf`` of titled constants."""
    listed = spec.get("enum") or [option.get("const") for option in spec.get("oneOf") or spec.get("anyOf") or ()
                                  if isinstance(option, Mapping)]
    return tuple(listed) if listed and all(isinstance(value, str) for value in listed) else ()


def shown_default(item: Field) -> str:
    """A field's default as the user would type it."""
    if item.default is None:
        return ""
    if isinstance(item.default, list):
        return ", ".join(str(value) for value in item.default)
    if isinstance(item.default, bool):
        return "yes" if item.default else "no"
    return str(item.default)


def typed(question: Question, values: Mapping[str, str]) -> dict[str, Any]:
    """Text the user typed as the values the form asks for; ``ValueError`` naming the
    field that is missing or not a number."""
    content: dict[str, Any] = {}
    for item in question.fields:
        raw = values.get(item.name, "").strip()
        if not raw:
            if item.required:
                raise ValueError(f"{item.title or item.name} is required")
            continue
        if item.kind == "boolean":
            content[item.name] = raw.lower() in ("y", "yes", "true", "1", "on")
        elif item.kind in ("number", "integer"):
            try:
                content[item.name] = int(raw) if item.kind == "integer" else float(raw)
            except ValueError:
                raise ValueError(f"{item.title or item.name} must be a number") from None
        elif item.kind == "choice" and raw not in item.choices:
            raise ValueError(f"{item.title or item.name} must be one of {', '.join(item.choices)}")
        elif item.kind == "choices":
            picked = [value.strip() for value in raw.split(",") if value.strip()]
            wrong = [value for value in picked if value not in item.choices]
            if wrong:
                raise ValueError(f"{item.title or item.name}: {', '.join(wrong)} is not one of "
                                 f"{', '.join(item.choices)}")
            content[item.name] = picked
        else:
            content[item.name] = raw
    return content
