"""``neocode acp``'s answer to ``initialize``, given before the ACP SDK is imported.

An editor starts ``neocode acp`` and waits for this answer before it shows the agent; the
SDK's schema alone (about 280 pydantic models) costs more CPU to import than the whole
start is allowed. So the first line is read here: an ``initialize`` of the plain shape
editors send is answered at once, and the SDK and the core load after. Any other first
message, or an ``initialize`` with something this module does not check, goes to the SDK
as it came, so what it answers (an error included) is what it always answered.

This module must not import the SDK (``acp``), the core or pydantic.
"""

from __future__ import annotations

from typing import Any

from neocode_tui import __version__
from neocode_tui.cli.acp.wire import JsonRpcLines

PROTOCOL_VERSION = 1
"""The newest ACP version this agent speaks: the SDK's ``acp.PROTOCOL_VERSION``."""
MAX_VERSION = 65535
"""The largest protocol version the schema takes."""
_TOP = frozenset({"protocolVersion", "clientCapabilities", "clientInfo"})
_FLAGS = {"fs": frozenset({"readTextFile", "writeTextFile"}), "auth": frozenset({"terminal"})}
"""The capability objects checked here, and the booleans each may hold."""
_CAPABILITIES = frozenset({*_FLAGS, "terminal", "_meta"})
_INFO = frozenset({"name", "title", "version", "_meta"})


AUTH_METHODS: list[dict[str, Any]] = [{
    "id": "api-key",
    "name": "API key in the environment",
    "description": "NeoCode reads the provider's key from the environment it is started in "
                   "(or from its config.toml); set one of these before the editor starts it",
    "vars": [{"name": "OPENAI_API_KEY", "label": "OpenAI-compatible API key", "secret": True,
              "optional": True},
             {"name": "ANTHROPIC_API_KEY", "label": "Anthropic API key", "secret": True, "optional": True}],
    "type": "env_var",
}, {
    "id": "login",
    "name": "Log in in a terminal",
    "description": "neocode login asks for the model provider and its API key and keeps them "
                   "in NeoCode's config.toml, readable by you only",
    "args": ["login"],
    "env": {},
    "type": "terminal",
}]
"""How an editor gets NeoCode a key: ACP's environment variable method, or its terminal
method (``neocode login``, what the ACP registry asks an agent to offer)."""


def initialize_answer(requested: int) -> dict[str, Any]:
    """The ``initialize`` result, keys in the order the SDK's models write them."""
    return {
        "protocolVersion": min(requested, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "delete": {}, "resume": {}, "close": {}},
        },
        "authMethods": AUTH_METHODS,
        "agentInfo": {"name": "neocode", "title": "NeoCode", "version": __version__},
    }


async def greet(lines: JsonRpcLines) -> dict[str, Any] | None:
    """Answer a plain first ``initialize``; its params, or None when the first message is
    anything else (put back for the SDK) or input ended first."""
    message = await lines.receive()
    if message is None:
        return None
    if not is_plain_initialize(message):
        lines.put_back(message)
        return None
    params: dict[str, Any] = message["params"]
    answer = initialize_answer(params["protocolVersion"])
    await lines.send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
    return params


def is_plain_initialize(message: dict[str, Any]) -> bool:
    """An ``initialize`` request that the SDK's schema takes as it stands: only fields
    checked here, each of the type the schema wants, nothing it would coerce or salvage."""
    params = message.get("params")
    if message.get("method") != "initialize" or "id" not in message or not isinstance(params, dict):
        return False
    version = params.get("protocolVersion")
    if type(version) is not int or not 0 <= version <= MAX_VERSION or not params.keys() <= _TOP:
        return False
    capabilities = params.get("clientCapabilities", {})
    info = params.get("clientInfo", {"name": "", "version": ""})
    return _plain_capabilities(capabilities) and _plain_info(info)


def _plain_capabilities(capabilities: Any) -> bool:
    return (isinstance(capabilities, dict) and capabilities.keys() <= _CAPABILITIES
            and type(capabilities.get("terminal", False)) is bool and _meta_or_absent(capabilities)
            and all(_flags(capabilities.get(name, {}), names) for name, names in _FLAGS.items()))


def _flags(value: Any, names: frozenset[str]) -> bool:
    return (isinstance(value, dict) and value.keys() <= names | {"_meta"}
            and all(type(value[name]) is bool for name in value.keys() & names)
            and _meta_or_absent(value))


def _plain_info(info: Any) -> bool:
    return (isinstance(info, dict) and info.keys() <= _INFO
            and type(info.get("name")) is str and type(info.get("version")) is str
            and type(info.get("title", "")) is str and _meta_or_absent(info))


def _meta_or_absent(fields: dict[str, Any]) -> bool:
    return isinstance(fields.get("_meta", {}), dict)
