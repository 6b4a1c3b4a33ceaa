"""NeoCode TUI: a terminal shell for LLM coding agents."""

__all__ = ["__version__"]

__version__ = "0.1.0"
