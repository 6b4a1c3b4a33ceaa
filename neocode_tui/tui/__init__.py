"""The Textual app: the screen a person works in."""
