"""A stand-in chat-completions server: an OpenAI-compatible endpoint with no model behind it.

It answers ``POST /v1/chat/completions`` (and ``/chat/completions``) with whatever its
``responder`` says to the messages — scripted replies in tests, or by default `naive_reply`,
which reads the prompt's numbered lines and names one at random (a random player that speaks the
protocol). It lets an `LLMAgent` be tried end to end without a model, a GPU or a network::

    python -m fabula.research.agents.standin --port 8080 &
    fabula arena --players 4 --games 2 --bots random --agent openai:http://127.0.0.1:8080/v1:stand-in

The default responder is **seeded**: its reply is drawn from a generator seeded with the
request's ``seed`` (the server's own ``seed`` when a request has none) and the messages
(`seeded_reply`) — the same request gets the same reply, whatever came before it, in whatever
order or number of threads requests arrive. So a run with the same seed reproduces its figures
exactly, against a server just started or one that has answered other runs.

Standard library only (`http.server` in a thread); every request it got is kept in ``requests``.

>>> with StandIn(lambda messages: '{"vote": 2}') as server:
...     from fabula.bots.language.client import OpenAIChat
...     OpenAIChat(server.url, "any").complete([{"role": "user", "content": "hi"}])
'{"vote": 2}'
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from fabula.bots.language.prompt import Message, text_of

Responder = Callable[[list[Message]], str]

_CHOICE = re.compile(r"^\s+(?:slot )?(\d+): (.*)$", re.MULTILINE)


def naive_reply(messages: Sequence[Message], rng: random.Random | None = None) -> str:
    """A random choice among the prompt's numbered lines (never one marked as its own or its team's card), in the
    JSON the prompt asks for, with a clue when one is asked for."""
    rng = rng or random.Random()
    texts = [text_of(m) for m in messages if m["role"] == "user"]
    prompt = next((text for text in reversed(texts) if _CHOICE.search(text)), "")
    asked = texts[-1] if texts else ""
    numbers = [
        int(n) for n, text in _CHOICE.findall(prompt) if not text.endswith(("(your card)", "(your team's card)"))
    ]
    pick = rng.choice(numbers) if numbers else 1
    clue = rng.choice(["Journey", "Far away", "Once upon a time", "Silence", "Home"])
    if '"clue"' in asked and '"card"' not in asked:
        return json.dumps({"clue": clue})
    if '"clue"' in asked:
        return json.dumps({"card": pick, "clue": clue})
    if '"cards"' in asked:
        return json.dumps({"cards": rng.sample(numbers, 2) if len(numbers) >= 2 else numbers})
    for key in ("red", "vote", "card", "propose"):
        if f'"{key}"' in asked:
            return json.dumps({key: pick})
    return str(pick)


def seeded_reply(messages: Sequence[Message], seed: object = 0) -> str:
    """`naive_reply` drawn from a generator seeded with ``seed`` and the messages themselves: the
    same messages and seed, the same reply.

    >>> prompt = [{"role": "user", "content": 'Vote.\\n  1: a\\n  2: b\\n  3: c\\nReply with JSON only: {"vote": <n>}'}]
    >>> seeded_reply(prompt, 7) == seeded_reply(prompt, 7)
    True
    >>> len({seeded_reply(prompt, seed) for seed in range(20)})  # another seed, another draw
    3
    """
    key = json.dumps([seed, list(messages)], ensure_ascii=False, sort_keys=True)
    return naive_reply(messages, random.Random(hashlib.sha256(key.encode()).digest()))


class StandIn:
    """The server, on ``host`` and a free port (or ``port``), answering in a daemon thread until
    `close`. Without a ``responder`` it answers `seeded_reply` with each request's ``seed``, or
    ``seed`` when the request has none."""

    def __init__(
        self, responder: Responder | None = None, host: str = "127.0.0.1", port: int = 0, *, seed: int = 0
    ) -> None:
        #: the scripted responder, or None: `seeded_reply` with each request's seed
        self.responder: Responder | None = responder
        self.seed = seed
        self.requests: list[dict[str, Any]] = []
        #: the Authorization header of each request ("" when none was sent)
        self.authorizations: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://{host}:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, name="stand-in chat", daemon=True)
        self._thread.start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                    messages = list(body["messages"])
                except (ValueError, KeyError, TypeError):
                    self._send(400, {"error": {"message": "expected a JSON body with messages"}})
                    return
                with server._lock:
                    server.requests.append(body)
                    server.authorizations.append(self.headers.get("Authorization", ""))
                    if server.responder is not None:
                        reply = server.responder(messages)
                if server.responder is None:  # (no shared state: outside the lock)
                    reply = seeded_reply(messages, body.get("seed", server.seed))
                self._send(
                    200,
                    {
                        "id": f"stand-in-{len(server.requests)}",
                        "object": "chat.completion",
                        "model": body.get("model", ""),
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                        ],
                    },
                )

            def _send(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: a test or an arena run prints its own figures

        return Handler

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A stand-in OpenAI-compatible chat endpoint that plays at random.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument(
        "--seed", type=int, default=0, help="the replies' seed for a request that sends none (default 0)"
    )
    args = parser.parse_args(argv)
    server = StandIn(host=args.host, port=args.port, seed=args.seed)
    print(f"stand-in chat endpoint at {server.url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.close()


if __name__ == "__main__":
    main()
