"""``neocode config --reference``: every setting as Markdown, read from the settings model.

The names, variables, defaults, allowed values and meanings come from ``Settings`` (each
field's docstring, read from the source here: the model does not read them as it is built,
which every start would pay for), the flags from ``neocode``'s own parser, and what a folder's ``.env`` may
set from the loader's rules, so the reference cannot say something the code does not do.
docs/settings.md is this output, committed; a test regenerates it and compares the two.
"""

from __future__ import annotations

import ast
import inspect
import re
import types
from collections.abc import Iterable
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo

from neocode_tui.settings import HARMLESS, TIGHTENING, USER_ONLY, OpenAICompat, Settings, StatusLine

REGENERATE = "neocode config --reference > docs/settings.md"

_HEADER = f"""# Settings reference

<!-- Generated from the settings model by `{REGENERATE}`; a test keeps it in sync. -->

Each setting can be given, from the strongest to the weakest, as a flag (where it has one),
an environment variable, a line of the project folder's `.env` (see below), a key of your
`config.toml` (at its top or in a `[profiles.NAME]` table) or not at all (the default).
`neocode config` shows which one a run in the current folder would use.

"""


def settings_reference() -> str:
    flags = _setting_flags()
    lines = [
        _HEADER.rstrip("\n"), "",
        "| `config.toml` key | flag | variable | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for name, info in Settings.model_fields.items():
        flag = f"`{flags[name]}`" if name in flags else ""
        lines.append(
            f"| `{name}` | {flag} | `{info.validation_alias}` | {_default(info)} "
            f"| {_meaning(Settings, name)} *Values:* {_values(info)}. |"
        )
    lines += ["", *_workspace_rules(), "", *_compat_table(), ""]
    return "\n".join(lines)


def _setting_flags() -> dict[str, str]:
    """Each setting's flag as ``neocode --help`` spells it, from the parser itself."""
    from neocode_tui.cli.options import SETTING_FLAGS
    from neocode_tui.cli.parser import build_parser

    return {
        action.dest: action.option_strings[0]
        for action in build_parser()._actions
        if action.dest in SETTING_FLAGS and action.option_strings
    }


def _workspace_rules() -> list[str]:
    variables = {str(info.validation_alias): name for name, info in Settings.model_fields.items()}

    def names(chosen: Iterable[str]) -> str:
        return ", ".join(f"`{variables[variable]}`" for variable in sorted(chosen))

    tighter = "; ".join(
        f"`{variables[variable]}` only as one of {', '.join(f'`{value}`' for value in sorted(values))}"
        for variable, values in sorted(TIGHTENING.items())
    )
    return [
        "## In a project folder's `.env`",
        "",
        "The folder's `.env` is the repository's, not yours. Until you trust the folder (the app asks "
        f"once; `-p` runs take `--trust`) its lines may set only {names(HARMLESS)}, and {tighter} "
        "(values that only take power away); every other line is ignored, and said so. "
        f"Trusted or not, it never sets {names(USER_ONLY)}: only your environment, flags and "
        "`config.toml` do.",
    ]


def _compat_table() -> list[str]:
    lines = [
        "## `openai_compat` options",
        "",
        "Written `key=value` separated by commas (`NEOCODE_OPENAI_COMPAT=tool_choice=required,"
        "stream_options=false`, or the same text after `--openai-compat`), or as a table in "
        "`config.toml` (`openai_compat = { stream_options = false }`).",
        "",
        "| option | default | meaning |",
        "|---|---|---|",
    ]
    for name, info in OpenAICompat.model_fields.items():
        lines.append(
            f"| `{name}` | {_default(info)} | {_meaning(OpenAICompat, name)} *Values:* {_values(info)}. |")
    return lines


def _meaning(model: type[BaseModel], name: str) -> str:
    text = " ".join(_docstrings(model).get(name, "").split())
    if not text:
        raise ValueError(f"the setting {name!r} has no docstring to describe it")
    return _markdown(text)


@cache
def _docstrings(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring: the string right after its annotated line in the class."""
    body = ast.parse(inspect.getsource(model)).body[0]
    assert isinstance(body, ast.ClassDef)
    found: dict[str, str] = {}
    for line, after in zip(body.body, body.body[1:], strict=False):
        if (isinstance(line, ast.AnnAssign) and isinstance(line.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            found[line.target.id] = inspect.cleandoc(after.value.value)
    return found


def _markdown(text: str) -> str:
    """A docstring's ``code`` as Markdown's `code`, safe inside a table cell."""
    return re.sub(r"``(.+?)``", r"`\1`", text).replace("|", "\\|")


def _default(info: FieldInfo) -> str:
    value = info.get_default(call_default_factory=True)
    if value is None or value == [] or (isinstance(value, BaseModel) and not value.model_fields_set):
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    return '`""`' if value == "" else f"`{value}`"


def _values(info: FieldInfo) -> str:
    kind = _without_none(info.annotation)
    if get_origin(kind) is Literal:
        return ", ".join("`\"\"`" if choice == "" else f"`{choice}`" for choice in get_args(kind))
    if kind is bool:
        return "`true` or `false`"
    if kind is SecretStr:
        return "a key (never shown, logged or saved)"
    if kind is OpenAICompat:
        return "the options below"
    if kind is StatusLine:
        return ("a table: `command` (text), `refresh_seconds` (1 to 3600), `timeout_seconds` "
                "(up to 60, default 5); in a variable, the command alone")
    if get_origin(kind) is list:
        return "a list (in a variable or flag: separated by commas)"
    if kind is str:
        return "text"
    if kind is int or kind is float:
        return _number("a whole number" if kind is int else "a number", info.metadata)
    raise ValueError(f"no words yet for values of type {kind!r}")


def _without_none(annotation: Any) -> Any:
    """``X | None`` as ``X``: unset is said by the default."""
    if get_origin(annotation) not in (Union, types.UnionType):
        return annotation
    parts = [part for part in get_args(annotation) if part is not type(None)]
    return parts[0] if len(parts) == 1 else annotation


_BOUNDS = (("gt", "over"), ("ge", "at least"), ("lt", "under"), ("le", "at most"))
"""The limits pydantic keeps in a field's metadata (``Field(gt=0)``), in words."""


def _number(kind: str, metadata: list[Any]) -> str:
    bounds = [
        f"{words} {getattr(limit, key)}"
        for limit in metadata
        for key, words in _BOUNDS
        if getattr(limit, key, None) is not None
    ]
    return f"{kind} {', '.join(bounds)}" if bounds else kind
