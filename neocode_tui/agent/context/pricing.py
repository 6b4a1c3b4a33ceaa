"""What a model costs and how much it can read, from the ``genai-prices`` data.

The model is looked up by the server's URL first (so an OpenAI-compatible URL of DeepSeek,
Groq or OpenRouter prices as that provider), then by its name alone (a company gateway
serving ``gpt-4o`` under its own URL costs what OpenAI charges). A model neither finds has
no price: nothing is guessed. The package loads on the first look-up, not at start-up
(importing it takes about 0.1 s, which a headless run should not wait for before its
first request).
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, Provider

    from neocode_tui.events import Usage


@lru_cache(maxsize=64)
def find_model(model: str, base_url: str | None = None) -> tuple[Provider, ModelInfo] | None:
    """The provider and model ``genai-prices`` knows for this name, or None."""
    if not model:
        return None
    from genai_prices.data_snapshot import get_snapshot

    snapshot = get_snapshot()
    attempts = [(None, base_url)] if base_url else []
    for provider_id, api_url in [*attempts, (None, None)]:
        try:
            return snapshot.find_provider_model(model, None, provider_id, api_url)
        except LookupError:
            continue
    return None


def known_window(model: str, base_url: str | None = None) -> int | None:
    """The model's context window as ``genai-prices`` records it, or None."""
    found = find_model(model, base_url)
    return found[1].context_window if found else None


def request_cost(usage: Usage, model: str, base_url: str | None = None) -> Decimal | None:
    """The dollar price of one request's ``usage``; None when the model's price is unknown."""
    found = find_model(model, base_url)
    if found is None:
        return None
    import genai_prices

    provider, info = found
    priced = genai_prices.Usage(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cache_read_tokens=usage.cached_input_tokens or 0,
        cache_write_tokens=usage.cache_creation_input_tokens or 0,
    )
    try:
        return info.calc_price(priced, provider).total_price
    except (LookupError, ValueError, TypeError):
        return None  # a model listed without a price for these tokens


def format_cost(cost: Decimal | None) -> str:
    """``$0.0123`` (cents and below keep four places), "–" when unknown."""
    if cost is None:
        return "–"
    return f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}"
