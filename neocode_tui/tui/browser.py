"""Opening a web page in the user's browser, for a sign-in the user asked for.

``webbrowser`` may start a browser and wait for it, so it runs in a thread of its own;
where no browser can be opened (a remote shell) nothing happens, and the page's address
is on the screen already.
"""

from __future__ import annotations

import threading
import webbrowser
from contextlib import suppress
from urllib.parse import urlparse


def open_in_browser(url: str) -> None:
    """Only a web address: the page is named by a server, which is not trusted."""
    if urlparse(url).scheme not in ("http", "https"):
        return

    def open_it() -> None:
        with suppress(webbrowser.Error, OSError):
            webbrowser.open(url, new=2)

    threading.Thread(target=open_it, name="open sign-in page", daemon=True).start()
