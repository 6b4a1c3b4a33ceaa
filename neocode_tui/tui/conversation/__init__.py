"""The conversation view: what the app mounts above the input box.

How it stays fast however long the answer and the session:

- ``view``: one ``ScrollView`` drawing pre-rendered lines (Line API); loop events are buffered
  by ``post`` and applied when the next frame is drawn, so any delta rate costs one update
  per frame.
- ``assembler``: what events mean on screen (segments, tool panels by (turn, index), retries,
  interruptions, errors, late events of a closed turn dropped).
- ``markdown_split``: cuts a streaming answer into top-level blocks (and long fences into
  40-line chunks) that never change again; only the open tail is parsed and drawn per frame.
- ``block_lines``: blocks in order with their rendered lines; start lines recomputed only
  from the first block that changed.
- ``blocks``, ``markdown``, ``palette``: how each block looks, with the theme's colours.
"""

from neocode_tui.tui.conversation.view import ConversationView

__all__ = ["ConversationView"]
