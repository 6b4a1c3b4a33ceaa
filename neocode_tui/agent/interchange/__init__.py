"""Sessions in other agents' formats: a saved session as an ATIF trajectory (what benchmark
harnesses keep), and Claude Code's and Codex's session files read into NeoCode sessions."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.interchange.atif import SCHEMA_VERSION, trajectory
    from neocode_tui.agent.interchange.importing import ImportProblem, read_transcript, save_imported
    from neocode_tui.agent.interchange.transcript import Imported

__all__ = [
    "Imported",
    "ImportProblem",
    "SCHEMA_VERSION",
    "read_transcript",
    "save_imported",
    "trajectory",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "atif": ("SCHEMA_VERSION", "trajectory",),
        "importing": ("ImportProblem", "read_transcript", "save_imported",),
        "transcript": ("Imported",),
    })
