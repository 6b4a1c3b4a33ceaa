"""NeoCode's own notes to the model (a background command ended), sent as a user message
marked as not the user's words; front ends show one as a notice, in the words the user
was told."""

NOTICE_HEADER = "[NeoCode's notice, not the user's words; the user's message, if any, follows:]"


def notes_message(notes: list[str]) -> str:
    """The message's text: the header, then a line per note."""
    return NOTICE_HEADER + "".join(f"\n- {note}" for note in notes)


def notice_words(content: str) -> str:
    """A note NeoCode sent the model, as the user was told it: its lines, without its head."""
    _, _, lines = content.partition("\n")
    return "\n".join(line.removeprefix("- ") for line in lines.splitlines())
