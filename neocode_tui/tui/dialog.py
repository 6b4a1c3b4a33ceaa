"""The look every modal dialog shares: a framed box in the middle of the screen."""

from __future__ import annotations


def dialog_css(screen: str) -> str:
    """CSS for ``screen`` (a ``ModalScreen`` class name) whose box is the child ``#dialog``,
    with a bold ``#title`` and a muted ``#keys`` line."""
    return f"""
    {screen} {{ align: center middle; }}
    {screen} > #dialog {{
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: thick $primary 80%;
        background: $surface;
        padding: 0 1;
    }}
    {screen} #title {{ text-style: bold; margin-bottom: 1; }}
    {screen} #keys {{ margin-top: 1; color: $text-muted; }}
"""
