"""The ``tool_choice`` option (``NEOCODE_OPENAI_COMPAT``) as one request gets it, in either
wire format."""

from __future__ import annotations

from neocode_tui.chat import ChatRequest


def effective_tool_choice(request: ChatRequest, choice: str | None) -> str | None:
    """The ``tool_choice`` option as it applies to ``request``, in either dialect: the
    request's own "none" wins; a forcing choice (``required`` or a name) only answers the
    user (after tool results the model must be free to stop calling); ``None``: not sent."""
    if request.tool_choice == "none":
        return "none"
    if choice in (None, "auto", "none"):
        return choice
    answering_user = bool(request.messages) and request.messages[-1].role == "user"
    return choice if answering_user else None
