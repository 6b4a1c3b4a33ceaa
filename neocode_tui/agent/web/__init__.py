"""Web pages for ``web_fetch``: where it may connect, fetching one page, and turning it into
Markdown within bounds."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.web.guard import AllowList, Refused, check, parse_url
    from neocode_tui.agent.web.page import TIME_LIMIT, fetch_page

__all__ = [
    "AllowList",
    "Refused",
    "TIME_LIMIT",
    "check",
    "fetch_page",
    "parse_url",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "guard": ("AllowList", "Refused", "check", "parse_url",),
        "page": ("TIME_LIMIT", "fetch_page",),
    })
