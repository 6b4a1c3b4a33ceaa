"""The request options OpenAI-compatible servers disagree on, as one named, validated set.

Real servers bend the chat-completions format in different places: llama.cpp's Python
server ignores ``tools`` unless ``tool_choice`` names a function and answers a streamed
``"auto"`` with an empty body; others reject ``stream_options`` or ``parallel_tool_calls``,
want ``max_completion_tokens``, refuse an assistant ``content`` of null, or refuse the
``system`` role. The defaults work on OpenAI and on the servers the compatibility suite
runs; a user sets the rest with ``NEOCODE_OPENAI_COMPAT='tool_choice=required,...'``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError


def _tool_choice(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise ValueError("give auto, required, none, default or a function name")
    return None if value == "default" else value


class OpenAICompat(BaseModel):
    """Each field is one thing a server may need done differently."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_choice: Annotated[str | None, AfterValidator(_tool_choice)] = None
    """``None`` (written ``default``): not sent, so the server's default applies (auto on
    OpenAI). ``auto``, ``required``, ``none``, or a function name to force that tool.
    A forcing choice (``required`` or a name) applies only to a request that answers the
    user; after tool results the field is left out, or the model could never stop calling."""
    stream_options: bool = True
    """Send ``stream_options: {include_usage: true}`` (token counts at the end)."""
    tool_call_content: Literal["", "null", "omit"] = ""
    """The ``content`` of an assistant message that carries only tool calls: ``""`` is
    accepted everywhere tested; ``null`` is what OpenAI's SDK sends; ``omit`` drops the key."""
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    """The key a request's output limit goes under, when it has one: OpenAI's o-series and
    newer models take only ``max_completion_tokens``."""
    parallel_tool_calls: bool | None = None
    """``None``: not sent. ``true``/``false`` are sent as given."""
    system_role: Literal["system", "developer", "user"] = "system"
    """The role the system prompt is sent as, for servers that refuse ``system``."""
    reasoning_effort: bool | None = None
    """``None``: ``reasoning_effort`` is sent (when an effort is set) to models known to
    take it (o-series, gpt-5, gpt-oss); ``true``: to every model; ``false``: never."""
    prompt_cache_key: bool | None = None
    """``None``: a per-session ``prompt_cache_key`` goes to api.openai.com only (it routes
    a session's requests to one cache); ``true``: to every server; ``false``: never."""


_BOOLEANS = {"true": True, "yes": True, "on": True, "1": True,
             "false": False, "no": False, "off": False, "0": False}


def parse_compat(text: str) -> OpenAICompat:
    """``'tool_choice=required,stream_options=false'`` as options; ``ValueError`` with a
    message naming the bad key or value (and what is allowed) otherwise."""
    values: dict[str, Any] = {}
    allowed = ", ".join(OpenAICompat.model_fields)
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals:
            raise ValueError(f"{item!r} is not key=value (keys: {allowed})")
        if key not in OpenAICompat.model_fields:
            raise ValueError(f"unknown option {key!r} (keys: {allowed})")
        if key in values:
            raise ValueError(f"option {key!r} is given twice")
        values[key] = _value(key, value)
    try:
        return OpenAICompat(**values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}={values.get(str(e['loc'][0]))!r}: "
                             f"{e['msg'].removeprefix('Value error, ')}" for e in exc.errors())
        raise ValueError(problems) from None


def _value(key: str, raw: str) -> Any:
    annotation = OpenAICompat.model_fields[key].annotation
    if annotation in (bool, bool | None):
        if annotation is not bool and raw in ("default", ""):
            return None
        if raw.lower() not in _BOOLEANS:
            raise ValueError(f"option {key}={raw!r}: give true or false")
        return _BOOLEANS[raw.lower()]
    if key == "tool_call_content" and raw in ('""', "''", "empty"):
        return ""
    return raw
