"""What a line of ``--input-format stream-json`` may be, as Claude Code reads them.

A program drives a headless run by writing JSON lines on its stdin: a ``user`` message
(``{"type": "user", "message": {"role": "user", "content": "..."}}``, the content a string
or a list of ``text`` and base64 ``image`` blocks), a ``control_request`` (``interrupt``,
``set_permission_mode``, ``set_model``, ``initialize``) or the ``control_response`` that
answers a ``can_use_tool`` question. Fields these models do not name are ignored, as Claude
Code ignores them; a line that is none of these is described in one sentence, never raised.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest line taken: room for a few pasted images, base64."""
PERMISSION_MODES: dict[str, str] = {
    "default": "ask", "acceptEdits": "auto-edit", "bypassPermissions": "full-auto", "plan": "plan",
}
"""Claude Code's permission modes, as NeoCode's approval modes."""


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class TextBlock(_Line):
    type: Literal["text"]
    text: str


class ImageSource(_Line):
    type: Literal["base64"]
    media_type: str
    data: str


class ImageBlock(_Line):
    type: Literal["image"]
    source: ImageSource


Block = Annotated[TextBlock | ImageBlock, Field(discriminator="type")]


class UserMessage(_Line):
    role: Literal["user"]
    content: str | list[Block]

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(block.text for block in self.content if isinstance(block, TextBlock))

    @property
    def images(self) -> list[ImageBlock]:
        return [] if isinstance(self.content, str) else [
            block for block in self.content if isinstance(block, ImageBlock)]


class UserLine(_Line):
    """A message; while a run works, ``priority`` (the field of Claude Code's SDK messages)
    says where it goes: ``next`` joins the running turn at its next model request, ``now``
    stops the run and is answered first, none or ``later`` waits for the run to end."""

    type: Literal["user"]
    message: UserMessage
    session_id: str | None = None
    parent_tool_use_id: str | None = None
    priority: Literal["now", "next", "later"] | None = None


class ControlBody(_Line):
    subtype: Literal["interrupt", "set_permission_mode", "set_model", "initialize"]
    mode: str | None = None
    model: str | None = None


class ControlRequest(_Line):
    type: Literal["control_request"]
    request_id: str
    request: ControlBody


class Decision(_Line):
    """``can_use_tool``'s answer: ``allow``, or ``deny`` with a ``message`` for the model
    (``interrupt``: stop the run as well). For ``AskUserQuestion`` an ``allow`` carries the
    answers in ``updatedInput``, as Claude Code's SDK hosts send them."""

    behavior: Literal["allow", "deny"]
    message: str = ""
    interrupt: bool = False
    updatedInput: dict[str, Any] | None = None  # noqa: N815 (Claude Code's name)


class ResponseBody(_Line):
    subtype: Literal["success", "error"]
    request_id: str
    response: Decision | None = None
    error: str = ""


class ControlResponse(_Line):
    type: Literal["control_response"]
    response: ResponseBody


InputLine = Annotated[UserLine | ControlRequest | ControlResponse, Field(discriminator="type")]
_ADAPTER: TypeAdapter[InputLine] = TypeAdapter(InputLine)


class BadLine(ValueError):
    """A line that is not a message this run takes; its words say why."""


def parse_line(raw: bytes) -> UserLine | ControlRequest | ControlResponse:
    """One line of stdin as a message; ``BadLine`` says what is wrong with it."""
    try:
        return _ADAPTER.validate_json(raw)
    except ValidationError as exc:
        raise BadLine(_first_problem(exc)) from None


def _first_problem(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    error = max(errors, key=lambda each: len(each["loc"]))  # the deepest says the most
    where = _where(error["loc"])
    if error["type"] == "json_invalid":
        return f"not JSON ({error['msg'].removeprefix('Invalid JSON: ')})"
    if error["type"] in ("union_tag_invalid", "union_tag_not_found", "model_type", "dict_type") and not where:
        return 'not a message: "type" must be "user", "control_request" or "control_response"'
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return f'{where}: a block\'s "type" must be "text" or "image"'
    if where == "message.content":
        return "message.content: must be a string or a list of text and image blocks"
    return f"{where}: {error['msg']}" if where else str(error["msg"])


def _where(loc: tuple[int | str, ...]) -> str:
    """A field's path, without the names pydantic gives the union members it tried."""
    parts: list[str] = []
    for position, part in enumerate(loc):
        tag = (position == 0 or isinstance(loc[position - 1], int)) and isinstance(part, str)
        if not tag and part != "str" and not str(part).startswith("list["):
            parts.append(str(part))
    return ".".join(parts)
