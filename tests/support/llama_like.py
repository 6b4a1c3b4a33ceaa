"""A loopback model that bends the format the way llama-cpp-python's server does.

Measured against the real server (``compat/run.sh``): an assistant message whose
``content`` is null is refused with HTTP 500; ``tools`` are ignored unless ``tool_choice``
names a function; a streamed ``tool_choice: "auto"`` gets HTTP 200 and an empty body; no
usage is sent. Each request is answered from what it carries, like the real thing.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.model_server import Response, json_response
from tests.support.sse import openai_sse


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-llama", "object": "chat.completion.chunk", "model": "smollm2",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


class LlamaLike:
    """Call it with a request's JSON; ``arguments`` are what a forced call is given."""

    def __init__(self, arguments: dict[str, Any], answer: str = "Done.") -> None:
        self.arguments = arguments
        self.answer = answer

    def __call__(self, payload: dict[str, Any]) -> Response:
        for message in payload["messages"]:
            if message["role"] == "assistant" and message.get("content", "") is None:
                return json_response(500, {"error": {
                    "message": "1 validation error for ChatCompletionRequestAssistantMessage\n"
                               "content\n  Input should be a valid string [type=string_type, "
                               "input_value=None, input_type=NoneType]", "type": "internal_server_error"}})
        choice = payload.get("tool_choice")
        if choice == "auto":
            return Response(body=b"")
        if isinstance(choice, dict) and payload.get("tools"):
            name = choice["function"]["name"]
            arguments = json.dumps(self.arguments)
            call = {"index": 0, "id": "call_llama_1", "type": "function",
                    "function": {"name": name, "arguments": arguments}}
            return Response(body=openai_sse([_chunk({"role": "assistant", "tool_calls": [call]}),
                                             _chunk({}, "tool_calls")]))
        words = [self.answer[i:i + 3] for i in range(0, len(self.answer), 3)]
        return Response(body=openai_sse([_chunk({"role": "assistant", "content": ""})]
                                        + [_chunk({"content": word}) for word in words]
                                        + [_chunk({}, "stop")]))
