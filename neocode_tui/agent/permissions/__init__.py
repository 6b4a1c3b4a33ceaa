"""Who must say yes before a tool runs: permission rules, where they come from, the approval mode
and the gate each call passes."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.permissions.command_wrappers import PROGRAMS
    from neocode_tui.agent.permissions.gate import Approver, CallGate, GateHost, scrubbed_change
    from neocode_tui.agent.permissions.grants import Grant, grants_in, revoke
    from neocode_tui.agent.permissions.rules import Rule, RuleEntry
    from neocode_tui.agent.permissions.session_rules import Permissions, RunOptions
    from neocode_tui.agent.permissions.sources import split_rules

__all__ = [
    "Approver",
    "CallGate",
    "GateHost",
    "Grant",
    "PROGRAMS",
    "Permissions",
    "Rule",
    "RuleEntry",
    "RunOptions",
    "grants_in",
    "revoke",
    "scrubbed_change",
    "split_rules",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "command_wrappers": ("PROGRAMS",),
        "gate": ("Approver", "CallGate", "GateHost", "scrubbed_change",),
        "grants": ("Grant", "grants_in", "revoke",),
        "rules": ("Rule", "RuleEntry",),
        "session_rules": ("Permissions", "RunOptions",),
        "sources": ("split_rules",),
    })
