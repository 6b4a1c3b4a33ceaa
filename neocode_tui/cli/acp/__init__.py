"""``neocode acp``: the agent behind an editor, over the Agent Client Protocol on stdio."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.cli.acp.run import run_acp

__all__ = [
    "run_acp",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "run": ("run_acp",),
    })
