"""What a streamed answer costs the real app in a real terminal, against reading the wire.

    .venv/bin/python bench/bench_stream_pty.py              # 3 rounds, 10k and 100k characters
    .venv/bin/python bench/bench_stream_pty.py --rounds 5

A model server on 127.0.0.1 streams an OpenAI-style answer of realistic Markdown (headings,
prose, lists, fenced Python; bench_screen.py's) in 4-character deltas, one SSE event per
write, as fast as the socket takes them or paced (``CASES``). Two readers take the same
bytes, in turn:

- **neocode**: ``python -m neocode_tui`` in a 100x30 pseudo-terminal (``TERM=xterm-256color``)
  with a fresh data folder, pointed at the server; the prompt is typed as bytes once its
start-up work is done (its CPU stands still). Its CPU (all
  threads, from ``/proc``) is counted from the moment the server takes the request until the
  answer's last word is on the terminal and the screen has gone quiet;
- **wire**: a Python process reading the same stream with httpx on asyncio, as the app does,
  and decoding every event's JSON: the least a client built on that stack can spend (what
  ``curl`` does, plus the event loop and the JSON).

Printed: CPU seconds per 10,000 streamed characters for each at each size, the ratio of
neocode to the wire, and how flat neocode's cost is from the small answer to the long one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench_screen import cut, realistic_markdown
from bench_startup import FRAME_END, TIMEOUT, pty_child, pty_output, scratch

END = "ZQXJ-END"
"""The answer's last word: seen on the terminal, the whole answer is drawn."""
PROMPT = "stream please"

WIRE = """
import asyncio, json, sys, time, httpx
async def main():
    body = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "hi"}], "tools": []}
    async with httpx.AsyncClient() as client:
        began = time.process_time()
        async with client.stream("POST", sys.argv[1] + "/chat/completions", json=body, timeout=60) as reply:
            async for line in reply.aiter_lines():
                if line.startswith("data: ") and line != "data: [DONE]":
                    json.loads(line[6:])
        print(time.process_time() - began)
asyncio.run(main())
"""


def answer(size: int) -> str:
    """About ``size`` characters of the Markdown, ending in ``END`` as a paragraph of its
    own (a fence the cut left open is closed first: in code the word is split by colours)."""
    text = realistic_markdown(size - len(END) - 6)
    if text.count("```") % 2:
        text += "\n```"
    return f"{text}\n\n{END}"


def events(text: str) -> list[bytes]:
    """The answer as SSE events, one per delta, the way servers flush them token by token."""
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    return [chunk({"role": "assistant", "content": ""}), *(chunk({"content": d}) for d in cut(text)),
            chunk({}, "stop"), b"data: [DONE]\n\n"]


class ModelServer(ThreadingHTTPServer):
    """Answers the request that carries tools (the agent's turn) with the long stream and any
    other (a session title) with one word; notes when the long one was taken."""

    daemon_threads = True

    def __init__(self, answer: list[bytes], rate: float | None = None) -> None:
        self.answer = answer
        self.rate = rate
        """Events per second (None: as fast as the socket takes them)."""
        self.taken = threading.Event()
        self.sent = threading.Event()
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A reader that hung up (the app killed at the end of a round) is no news."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ModelServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        long = "tools" in request
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if long:
            self.server.taken.set()
        began = time.perf_counter()
        for number, event in enumerate(self.server.answer if long else events("Streaming")):
            if long and self.server.rate:
                delay = began + number / self.server.rate - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            if self.server.rate:
                self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        if long:
            self.server.sent.set()


def cpu_seconds(pid: int) -> float:
    """User and system CPU of ``pid`` so far, all its threads."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def neocode_cpu(server: ModelServer) -> float:
    """CPU the real app spends from taking the request to the answer drawn and quiet."""
    server.taken.clear()
    server.sent.clear()
    with scratch() as (work, env):
        env.update(OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.url, NEOCODE_PROVIDER="openai",
                   NEOCODE_MODEL="bench", HOME=os.path.dirname(work))
        with pty_child(["-m", "neocode_tui"], work, env) as (began, master, pid):
            output = b""
            typed = False
            start = 0.0
            seen_at = 0.0
            for chunk in pty_output(master, began + TIMEOUT, quiet=0.1):
                output += chunk
                if not typed and FRAME_END.search(output) and _settled(pid):
                    os.write(master, PROMPT.encode() + b"\r")
                    typed = True
                if typed and not start and server.taken.is_set():
                    start = cpu_seconds(pid)
                if start and not seen_at and END.encode() in output:
                    seen_at = time.perf_counter()
                output = output[-4096:]  # a frame may cut the word in two: keep what ends it
                if seen_at and not chunk and time.perf_counter() - seen_at > 0.3:
                    return cpu_seconds(pid) - start
            raise RuntimeError(f"the answer's end never showed: {output[-1500:]!r}")


def _settled(pid: int) -> bool:
    """The app has done its start-up work (imports warmed after the first frame): its CPU
    stands still for 0.2 s. Only the answer's cost is counted."""
    before = cpu_seconds(pid)
    time.sleep(0.2)
    return cpu_seconds(pid) == before


def wire_cpu(server: ModelServer) -> float:
    done = subprocess.run([sys.executable, "-c", WIRE, server.url], check=True, capture_output=True, text=True)
    return float(done.stdout.strip())


CASES = {
    "10k, as fast as sent": (10_000, None),
    "100k, as fast as sent": (100_000, None),
    "10k at 1,000 events/s": (10_000, 1_000.0),
    "2k at 100 events/s": (2_000, 100.0),
}
"""Answers of 10,000 and 100,000 characters as fast as the server can send them, and two
paced like hosted models, where every event comes alone: a fast one (4,000 characters a
second) and a common one (400)."""


def measure(size: int, rate: float | None, rounds: int) -> dict[str, float]:
    """Median CPU seconds per 10,000 characters of each reader."""
    text = answer(size)
    server = ModelServer(events(text), rate)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        runs: dict[str, list[float]] = {"neocode": [], "wire": []}
        neocode_cpu(server)  # not counted: bytecode caches, the first Markdown of a process
        for _ in range(rounds):
            runs["neocode"].append(neocode_cpu(server))
            runs["wire"].append(wire_cpu(server))
        return {name: statistics.median(values) / size * 1e4 for name, values in runs.items()}
    finally:
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each (the median is kept)")
    args = parser.parse_args()
    rows = {name: measure(size, rate, args.rounds) for name, (size, rate) in CASES.items()}
    print(f"bench_stream_pty: realistic Markdown in 4-character deltas, 100x30 pty, median of {args.rounds}")
    print(f"{'CPU s per 10k characters':<28}{'neocode':>10}{'wire':>10}{'neocode/wire':>14}")
    for name, row in rows.items():
        print(f"{name:<28}{row['neocode']:10.3f}{row['wire']:10.3f}{row['neocode'] / row['wire']:14.1f}")
    small, long = (rows[name]["neocode"] for name in list(CASES)[:2])
    print(f"flat: neocode's cost per 10k at 100,000 / at 10,000 = {long / small:.2f}")


if __name__ == "__main__":
    main()
