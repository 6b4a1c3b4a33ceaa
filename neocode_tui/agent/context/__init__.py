"""What the model's window holds and what it costs: the meter, the budget, prices, compaction."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.context.budget import TITLE, Budget, unpriced
    from neocode_tui.agent.context.compactor import Compactor
    from neocode_tui.agent.context.figure import ContextFigure, about, estimate_tokens
    from neocode_tui.agent.context.headroom import Headroom
    from neocode_tui.agent.context.meter import Meter
    from neocode_tui.agent.context.pricing import find_model, format_cost, request_cost
    from neocode_tui.agent.context.told import compaction_headline, compaction_words
    from neocode_tui.agent.context.uncompact import Uncompact

__all__ = [
    "Budget",
    "Compactor",
    "ContextFigure",
    "Headroom",
    "Meter",
    "TITLE",
    "Uncompact",
    "about",
    "compaction_headline",
    "compaction_words",
    "estimate_tokens",
    "find_model",
    "format_cost",
    "request_cost",
    "unpriced",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "budget": ("Budget", "TITLE", "unpriced",),
        "told": ("compaction_headline", "compaction_words",),
        "compactor": ("Compactor",),
        "figure": ("ContextFigure", "about", "estimate_tokens",),
        "headroom": ("Headroom",),
        "meter": ("Meter",),
        "pricing": ("find_model", "format_cost", "request_cost",),
        "uncompact": ("Uncompact",),
    })
