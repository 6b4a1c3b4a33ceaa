"""Running the agent's shell commands inside bubblewrap: the environment, the home, git and the
protected files it may not change."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.sandbox.bubblewrap import Sandbox, choose_sandbox, failure_note, probe_early, secret_free
    from neocode_tui.agent.sandbox.files import CreatedEntries, recover, recovered_note, set_aside_note

__all__ = [
    "CreatedEntries",
    "Sandbox",
    "choose_sandbox",
    "failure_note",
    "probe_early",
    "recover",
    "recovered_note",
    "secret_free",
    "set_aside_note",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "bubblewrap": ("Sandbox", "choose_sandbox", "failure_note", "probe_early", "secret_free",),
        "files": ("CreatedEntries", "recover", "recovered_note", "set_aside_note",),
    })
