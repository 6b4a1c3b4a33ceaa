"""Fallback models, as a user of ``-p`` meets them: an overloaded or refused model hands the
prompt to the next one, said on stderr and in the session, priced at that model's rate."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from neocode_tui.agent.context.pricing import request_cost
from neocode_tui.events import Usage
from tests.support.dialects import Dialect
from tests.support.headless import neocode, session_files
from tests.support.model_server import Response, json_response
from tests.support.sse import anthropic_turn, openai_turn

MODELS = {"openai": ("gpt-4o", "gpt-4o-mini"), "anthropic": ("claude-sonnet-4-5", "claude-haiku-4-5")}
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def answer(dialect: Dialect, text: str, calls=(), *, tokens: tuple[int, int] = (1_000, 50)) -> Response:
    if dialect.name == "openai":
        return Response(body=openai_turn(text, calls, usage=tokens))
    return Response(body=anthropic_turn(text, calls, usage=tokens))


def models_asked(dialect: Dialect) -> list[str]:
    return [request.json["model"] for request in dialect.server.requests]


def assistant_records(data: Path) -> list[dict]:
    (path,) = session_files(data)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [r["message"] for r in records if r.get("type") == "message" and r["message"]["role"] == "assistant"]


async def test_an_overloaded_model_hands_the_prompt_to_the_fallback_at_its_price(
    dialect: Dialect, workspace: Path, tmp_path: Path
) -> None:
    model, fallback = MODELS[dialect.name]
    dialect.server.enqueue(json_response(529, OVERLOADED), answer(dialect, "Done by the fallback."))

    result = await neocode(dialect, workspace, "-p", "hi", "--output-format", "json",
                           "--model", model, "--fallback-model", fallback)

    assert result.code == 0, result.err
    assert models_asked(dialect) == [model, fallback]
    out = json.loads(result.out)
    assert out["result"] == "Done by the fallback."
    base_url = dialect.server.url + ("/v1" if dialect.name == "openai" else "")
    expected = request_cost(Usage(input_tokens=1_000, output_tokens=50), fallback, base_url)
    assert expected is not None and Decimal(str(out["cost_usd"])) == expected.quantize(Decimal(str(out["cost_usd"])))
    assert [m.get("model") for m in assistant_records(tmp_path / "data")] == [fallback]


async def test_the_run_stays_on_the_fallback_and_the_next_prompt_tries_the_model_again(
    dialect: Dialect, workspace: Path, tmp_path: Path
) -> None:
    model, fallback = MODELS[dialect.name]
    dialect.server.enqueue(
        json_response(503, {"error": {"message": "upstream unavailable"}}),
        answer(dialect, "", [("read_file", '{"path": "app.py"}')]),
        answer(dialect, "It prints hi."),
        answer(dialect, "The model again."),
    )

    first = await neocode(dialect, workspace, "-p", "what does app.py do?",
                          "--model", model, "--fallback-model", fallback)
    second = await neocode(dialect, workspace, "--continue", "-p", "thanks",
                           "--model", model, "--fallback-model", fallback)

    assert first.code == 0 and second.code == 0, first.err + second.err
    assert "It prints hi." in first.out and "The model again." in second.out
    assert f"{model} could not answer: this prompt goes on with {fallback}" in first.err
    assert "could not answer" not in second.err
    assert models_asked(dialect) == [model, fallback, fallback, model]
    assert [m.get("model") for m in assistant_records(tmp_path / "data")] == [fallback, fallback, None]


async def test_a_model_refused_by_name_falls_back_down_the_list(
    dialect: Dialect, workspace: Path
) -> None:
    refused = (json_response(404, {"error": {"message": "The model `gpt-9` does not exist or you do not "
                                              "have access to it.", "code": "model_not_found"}})
               if dialect.name == "openai" else
               json_response(404, {"type": "error",
                                   "error": {"type": "not_found_error", "message": "model: claude-9"}}))
    dialect.server.enqueue(refused, json_response(529, OVERLOADED), answer(dialect, "Third time."))

    result = await neocode(dialect, workspace, "-p", "hi", "--model", "gpt-9",
                           "--fallback-model", "second-model, third-model")

    assert result.code == 0, result.err
    assert models_asked(dialect) == ["gpt-9", "second-model", "third-model"]
    assert "Third time." in result.out


async def test_a_failure_of_the_request_itself_is_not_handed_on(dialect: Dialect, workspace: Path) -> None:
    dialect.server.enqueue(json_response(401, {"error": {"message": "invalid x-api-key"}}))

    result = await neocode(dialect, workspace, "-p", "hi", "--fallback-model", "other-model")

    assert result.code == 1
    assert models_asked(dialect) == ["test-model"]
    assert "other-model" not in result.err


async def test_the_last_fallback_failing_ends_the_prompt_with_its_error(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.server.enqueue(json_response(529, OVERLOADED), json_response(529, OVERLOADED))

    result = await neocode(dialect, workspace, "-p", "hi", "--fallback-model", "other-model")

    assert result.code == 1
    assert models_asked(dialect) == ["test-model", "other-model"]
    assert "529" in result.err or "verload" in result.err
