"""The app's own widgets (the conversation lives in ``neocode_tui.tui.conversation``)."""
