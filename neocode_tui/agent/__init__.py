"""The agent: loop, tools, approvals, sessions. Imports no widget."""
