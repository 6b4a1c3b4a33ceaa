"""The conversation view: what the app mounts above the input box."""

from neocode_tui.tui.conversation.view import ConversationView

__all__ = ["ConversationView"]
