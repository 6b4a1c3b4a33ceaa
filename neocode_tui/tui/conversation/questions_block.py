"""``ask_user`` in the conversation: each question with the user's answer, so the exchange
reads as a conversation (a resumed session shows it the same way), not as raw JSON."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.blocks import ToolBlock
from neocode_tui.tui.conversation.palette import Palette

_ANSWERED = "The user answered your questions:"


class QuestionsBlock(ToolBlock):
    """While open: the questions being asked; then each with its answer, or why none came."""

    def renderable(self, palette: Palette) -> RenderableType:
        text = Text.assemble(("? ", f"bold {palette.primary}"), ("the agent asked you", "bold"))
        answers = self._answers()
        for number, question in enumerate(self._questions()):
            text.append(f"\n  {visible(question)}")
            if number < len(answers):
                text.append_text(Text.assemble("  → ", (visible(answers[number]), f"bold {palette.primary}")))
        if self.result is None:
            text.append("\n  waiting for your answer…", style=f"italic {palette.muted}")
        elif not answers:
            first = self.result.strip().splitlines()[0] if self.result.strip() else self.status
            style = palette.error if self.status != "ok" else f"italic {palette.muted}"
            text.append(f"\n  {visible(first)}", style=style)
        return text

    def _questions(self) -> list[str]:
        field = self.arguments.get("questions")
        questions = field.value() if field is not None else None
        if not isinstance(questions, list):
            return []
        return [q["question"] for q in questions if isinstance(q, dict) and isinstance(q.get("question"), str)]

    def _answers(self) -> list[str]:
        """What ``answers_text`` wrote after each question's arrow."""
        if self.result is None or not self.result.startswith(_ANSWERED):
            return []
        return [line.partition(" → ")[2] for line in self.result.splitlines() if line.startswith('- "')]

    @property
    def can_collapse(self) -> bool:
        return False

    def estimate(self, width: int) -> int:
        return 2 + len(self._questions())
