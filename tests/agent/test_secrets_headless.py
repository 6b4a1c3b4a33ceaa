"""``neocode -p`` as a user runs it: no secret NeoCode knows reaches the model, stdout,
stderr or the session file, whether a tool reads it or the model streams it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import Result, neocode, session_files, start
from tests.support.model_server import Response

OTHER_KEY = "sk-ant-api03-Othr9ProfileKey4Kq2Vx7Lm3Np8"
"""The key of a profile the run does not use."""


def pieces(key: str, text: str, size: int = 8) -> list[str]:
    """Every run of ``size`` characters of ``key`` in ``text``."""
    return [key[at : at + size] for at in range(len(key) - size + 1) if key[at : at + size] in text]


def everything(dialect: Dialect, data: Path, *outputs: str) -> str:
    """What the model was sent, what the run printed and what it saved, as one text."""
    sent = json.dumps([request.json for request in dialect.server.requests])
    return "\n".join([sent, *outputs, *(path.read_text() for path in session_files(data))])


def streamed(dialect: Dialect, text: str = "", calls=()) -> None:
    """The model's next turn, its text and arguments in 3-character deltas."""
    dialect.server.enqueue(Response(body=dialect.turn(text, calls, delta=3), chunk_sizes=[5, 11]))


async def test_another_profile_s_key_never_reaches_the_model_the_session_or_stdout(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    config = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[profiles.cloud]\nprovider = "anthropic"\nanthropic_api_key = "{OTHER_KEY}"\n')
    (workspace / "deploy.env").write_text(f"CLOUD_KEY={OTHER_KEY}\nCUT={OTHER_KEY[:20]}\n")
    dialect.reply("", [("r1", "read_file", '{"path": "deploy.env"}')])
    dialect.reply("It sets two keys.")
    dialect.reply("", [("r2", "bash", '{"command": "cat deploy.env"}')])
    dialect.reply("Same again.")

    results = [await neocode(dialect, workspace, "-p", "what is in deploy.env?", *options)
               for options in ((), ("--output-format", "stream-json", "--approval", "full-auto"))]

    assert all(result.code == 0 for result in results), results
    assert "CLOUD_KEY=[redacted]" in dialect.tool_results(2)["r1"]
    leaked = everything(dialect, isolated_dirs / "data", *(r.out + r.err for r in results))
    assert "[redacted]" in leaked and not pieces(OTHER_KEY, leaked)


@pytest.mark.parametrize("output", ["text", "stream-json"])
async def test_a_key_the_model_streams_three_characters_at_a_time_is_not_printed_or_saved(
    dialect: Dialect, workspace: Path, isolated_dirs: Path, output: str
) -> None:
    streamed(dialect, f"Your key is {API_KEY}, keep it safe. Its tail is {API_KEY[-12:]}.")

    result = await neocode(dialect, workspace, "-p", "what is my key?", "--output-format", output)

    assert result.code == 0, result.err
    if output == "text":
        assert result.out == "Your key is [redacted], keep it safe. Its tail is [redacted].\n"
    leaked = everything(dialect, isolated_dirs / "data", result.out, result.err)
    assert "keep it safe" in leaked and not pieces(API_KEY, leaked)


async def test_a_tool_call_carrying_a_key_shows_it_scrubbed_on_stderr(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    streamed(dialect, "", [("t1", "read_file", json.dumps({"path": f"keys/{API_KEY}.txt"}))])
    streamed(dialect, "There is no such file.")

    result = await neocode(dialect, workspace, "-p", "read my key file")

    assert result.code == 0, result.err
    assert "→ read keys/[redacted].txt" in result.err
    leaked = everything(dialect, isolated_dirs / "data", result.out, result.err)
    assert not pieces(API_KEY, leaked)  # the call as the model is sent it back, too


async def test_a_base_url_with_credentials_is_shown_without_them(
    openai_only: Dialect, workspace: Path
) -> None:
    """The server refuses (404) and echoes the URL it was asked for; the error names the
    host, never the user, the password or the key in the query."""
    openai_only.server.enqueue(Response(
        status=404, headers={"content-type": "application/json"},
        body=b'{"error": {"message": "no route: /v1?api_key=q-key-4f8a2b9c1d/chat/completions"}}'))
    host = openai_only.server.url.removeprefix("http://")
    base_url = f"http://alice:pw-3xq9Lz7Rk2@{host}/v1?api_key=q-key-4f8a2b9c1d"

    process = await start(openai_only, workspace, "-p", "hi", NEOCODE_BASE_URL=base_url)
    out, err = await process.communicate()
    result = Result(process.returncode or 0, out.decode(), err.decode())

    assert result.code == 1
    assert f"(HTTP 404 from {host})" in result.err and "no route: /v1?api_key=[redacted]" in result.err
    for secret in ("alice", "pw-3xq9Lz7Rk2", "q-key-4f8a2b9c1d"):
        assert secret not in result.out + result.err


async def test_a_key_the_user_pastes_into_the_prompt_is_scrubbed_everywhere(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    """A key pasted by mistake goes no further than the keyboard: the model, the session
    file, the prompt history and what is printed get ``[redacted]``."""
    streamed(dialect, "I will not need it.")

    result = await neocode(dialect, workspace, "-p", f"deploy with the key {API_KEY} please",
                           "--output-format", "stream-json")

    assert result.code == 0, result.err
    leaked = everything(dialect, isolated_dirs / "data", result.out, result.err)
    history = [path.read_text() for path in (isolated_dirs / "data").rglob("prompt_history*")]
    assert "deploy with the key [redacted] please" in json.dumps(dialect.server.requests[0].json)
    assert not pieces(API_KEY, leaked + "".join(history))
