"""The app's side of attaching images: pasted paths and Ctrl+V become chips above the
input, sent with the next prompt. A mixin of ``NeoCodeApp``, which owns the widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from neocode_tui.tui.widgets import ImageChips, PromptInput

if TYPE_CHECKING:
    from pathlib import Path

    from neocode_tui.tui.attachments import Attachment
    from neocode_tui.tui.conversation import ConversationView


class ImageAttaching(App[None]):
    image_chips: ImageChips
    prompt: PromptInput
    conversation: ConversationView
    workspace: Path
    _clipboard_told = False

    def on_prompt_input_images_pasted(self, event: PromptInput.ImagesPasted) -> None:
        self.run_worker(self._attach_paths(event.paths), group="images")

    def on_prompt_input_clipboard_requested(self, event: PromptInput.ClipboardRequested) -> None:
        self.run_worker(self._attach_clipboard(), group="images")

    async def _attach_paths(self, paths: list[Path]) -> None:
        from neocode_tui.agent import Workspace
        from neocode_tui.tui.attachments import load_paths

        loaded, problems = await load_paths(paths, Workspace(self.workspace))
        self.image_chips.add(loaded)
        for problem in problems:
            self.conversation.add_notice("warning", problem)

    async def _attach_clipboard(self) -> None:
        from neocode_tui.tui.attachments import Attachment, clipboard_image

        found = await clipboard_image()
        if isinstance(found, Attachment):
            self.image_chips.add([found])
            return
        if isinstance(found, str) and not self._clipboard_told:
            self._clipboard_told = True
            self.conversation.add_notice("warning", found)
        self.prompt.paste_text()  # no image there: Ctrl+V pastes text as it always did

    def take_images(self) -> list[Attachment]:
        return self.image_chips.take_all()
