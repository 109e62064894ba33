"""A chat client for any OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, vLLM,
llama.cpp's server, Ollama, LM Studio, …).

``POST {url}/chat/completions`` with ``{"model", "messages"}`` (and ``temperature``,
``max_tokens``, ``seed`` when set); the reply is ``choices[0].message.content``. The API key, if
any, is sent as ``Authorization: Bearer …``: given, or read from the ``FABULA_LLM_API_KEY``
environment variable, else ``OPENAI_API_KEY`` (a local server needs none). ``timeout`` bounds
each request (seconds); ``concurrency``, if given, how many requests may be in flight at once
(the connection pool's size: `fabula arena --concurrency`, one per game it plays at a time).

>>> chat = OpenAIChat("http://127.0.0.1:8080/v1/", "tiny", api_key="")
>>> chat.endpoint
'http://127.0.0.1:8080/v1/chat/completions'
>>> chat.close()
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol

import httpx

from .prompt import Message

#: Environment variables an API key is read from, first found wins.
API_KEY_VARIABLES = ("FABULA_LLM_API_KEY", "OPENAI_API_KEY")


#: Seconds a request may take by default.
DEFAULT_TIMEOUT = 120.0


class ChatError(RuntimeError):
    """The endpoint failed: unreachable, an HTTP error, or an answer with no message in it."""


class ChatClient(Protocol):
    def complete(self, messages: Sequence[Message]) -> str:
        """The assistant's reply to ``messages``; `ChatError` when none comes."""
        ...


def _content(data: Any) -> str:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ChatError("the answer holds no choices[0].message.content") from None
    if content is None:  # some servers answer a refusal or a tool call with null content
        return ""
    if not isinstance(content, str):
        raise ChatError("choices[0].message.content is not text")
    return content


class OpenAIChat:
    """One model behind one endpoint; thread-safe (one `httpx.Client`)."""

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        concurrency: int | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        base = url.rstrip("/")
        # A URL given with the path in full is taken as it is.
        self.endpoint = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        self.model, self.temperature, self.max_tokens, self.seed = model, temperature, max_tokens, seed
        self.timeout, self.concurrency = timeout, concurrency
        if api_key is None:
            api_key = next((os.environ[name] for name in API_KEY_VARIABLES if os.environ.get(name)), "")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # (None: httpx's own pool, 100 connections of which 20 kept open)
        limits = httpx.Limits(max_connections=concurrency or 100, max_keepalive_connections=concurrency or 20)
        self._http = httpx.Client(headers=headers, timeout=timeout, limits=limits, transport=transport)

    def complete(self, messages: Sequence[Message]) -> str:
        body: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.seed is not None:
            body["seed"] = self.seed
        try:
            response = self._http.post(self.endpoint, json=body)
        except httpx.HTTPError as error:
            raise ChatError(f"{self.endpoint}: {error}") from error
        if response.status_code != 200:
            raise ChatError(f"{self.endpoint}: HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = response.json()
        except ValueError:
            raise ChatError(f"{self.endpoint}: the answer is not JSON") from None
        return _content(data)

    def close(self) -> None:
        self._http.close()
