"""Code intelligence from language servers: the ``lsp`` tool and the diagnostics an edit's
result carries, from servers configured (``[lsp.NAME]``) or found on ``PATH``."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.lsp.config import BUILT_IN, ServerConfig, ServerConfigs, ServerProblem, load_server_configs
    from neocode_tui.agent.lsp.servers import LanguageServers
    from neocode_tui.agent.lsp.tool import LspTool

__all__ = [
    "BUILT_IN",
    "LanguageServers",
    "LspTool",
    "ServerConfig",
    "ServerConfigs",
    "ServerProblem",
    "load_server_configs",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "config": ("BUILT_IN", "ServerConfig", "ServerConfigs", "ServerProblem", "load_server_configs"),
        "servers": ("LanguageServers",),
        "tool": ("LspTool",),
    })
