"""The model bots a server's operator names: ``fabula serve --model-bot NAME=openai:URL:MODEL``.

A model bot is a seat played by `LLMAgent` on an OpenAI-compatible endpoint, which the host
adds like any bot (``add_bot`` with ``level: "model:NAME"``). The spec after ``NAME=`` is the
arena's ``--agent openai:URL:MODEL`` (`parse_openai_spec`); ``--model-bot-vision NAME`` marks the
models that take pictures. The API key is never part of the spec: it is read from the
environment (`ModelBot.api_key`), so it is never on a command line, in a log or on the wire.

>>> bot = parse_model_bot("qwen=openai:http://127.0.0.1:11434/v1:qwen2.5vl:3b")
>>> bot.name, bot.url, bot.model, bot.level
('qwen', 'http://127.0.0.1:11434/v1', 'qwen2.5vl:3b', 'model:qwen')
>>> parse_openai_spec("openai:http://127.0.0.1:8080/v1:llama3:8b")
('http://127.0.0.1:8080/v1', 'llama3:8b')
>>> parse_openai_spec("openai:https://api.example.com:qwen")
('https://api.example.com', 'qwen')
>>> parse_openai_spec("openai:http://127.0.0.1:8080/v1")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fabula.bots.language.models.AgentSpecError: 'openai:http://127.0.0.1:8080/v1' names no model: ...
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from fabula.bots.base import MODEL_LEVEL, MODEL_NAME

_OPENAI = re.compile(
    r"openai:(?P<url>https?://(?:\[[0-9a-fA-F:.]+\]|[^/:\s\[\]]+)(?::\d+)?(?:/[^:\s]*)?):(?P<model>\S+)", re.IGNORECASE
)
#: What is left of ``openai:URL`` without a model, split as ``openai:SCHEME://HOST:PORT[/PATH]``:
#: "a model" that is a port, and a path.
_PORT_AND_PATH = re.compile(r"\d+(?:/\S*)?")
_EXPECTED = "expected openai:URL:MODEL, e.g. openai:http://127.0.0.1:8080/v1:my-model"

#: Where a model bot's API key is read from, first found wins: its own variable (``{name}``: the
#: bot's name in capitals, other characters as ``_``), then the arena's.
KEY_VARIABLES = ("FABULA_MODEL_BOT_KEY_{name}", "FABULA_LLM_API_KEY", "OPENAI_API_KEY")


class AgentSpecError(ValueError):
    """A spec (``--agent``, ``--model-bot``) that names nothing that can play."""


#: (the name the server's options use)
ModelBotError = AgentSpecError


def parse_openai_spec(spec: str) -> tuple[str, str]:
    """(URL, model) of ``openai:URL:MODEL``; `AgentSpecError` when it is not one. The URL holds
    colons of its own (the scheme, a port) and a model's name may too (``llama3:8b``): the split
    is where the URL's authority and its path (which holds no colon) end."""
    match = _OPENAI.fullmatch(spec.strip())
    if not match:
        raise AgentSpecError(f"{spec!r}: {_EXPECTED}")
    if _PORT_AND_PATH.fullmatch(match["model"]):  # "openai:http://host:8080[/v1]": a URL, no model
        raise AgentSpecError(f"{spec!r} names no model: {_EXPECTED}")
    return match["url"], match["model"]


@dataclass(frozen=True, slots=True)
class ModelBot:
    """One named model: what the host picks (`level`) and where its moves come from. It holds no
    key (`api_key` reads it when a client is made)."""

    name: str
    url: str
    model: str
    #: the model takes pictures: it is shown the cards as small JPEGs, else their descriptions
    vision: bool = False

    @property
    def level(self) -> str:
        return MODEL_LEVEL + self.name

    def api_key(self, environ: Mapping[str, str] = os.environ) -> str:
        """The key sent to its endpoint ("" for none: a local server needs none)."""
        own = re.sub(r"[^A-Z0-9]", "_", self.name.upper())
        for variable in KEY_VARIABLES:
            found = environ.get(variable.format(name=own))
            if found:
                return found
        return ""


def parse_model_bot(spec: str, *, vision: bool = False) -> ModelBot:
    """``NAME=openai:URL:MODEL`` as a `ModelBot`; `AgentSpecError` saying what is wrong."""
    name, equals, rest = spec.strip().partition("=")
    if not equals:
        raise AgentSpecError(
            f"{spec!r}: expected NAME=openai:URL:MODEL, e.g. qwen=openai:http://127.0.0.1:8080/v1:qwen"
        )
    if not MODEL_NAME.fullmatch(name):
        raise AgentSpecError(
            f"{name!r}: a model bot's name is 1-32 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    url, model = parse_openai_spec(rest)
    return ModelBot(name, url, model, vision)


def model_bots(specs: Iterable[str], vision: Iterable[str] = ()) -> dict[str, ModelBot]:
    """The model bots of ``--model-bot`` specs by name, ``vision`` naming those that see;
    `AgentSpecError` for a bad spec, a name given twice or a vision name that names none.

    >>> sorted(model_bots(["a=openai:http://h:1/v1:m", "b=openai:http://h:2/v1:n"], ["b"]).items())[1][1].vision
    True
    """
    found: dict[str, ModelBot] = {}
    for spec in specs:
        bot = parse_model_bot(spec)
        if bot.name in found:
            raise AgentSpecError(f"--model-bot {bot.name!r} is given twice")
        found[bot.name] = bot
    for name in vision:
        if name not in found:
            raise AgentSpecError(f"--model-bot-vision {name!r}: no --model-bot has that name")
        found[name] = ModelBot(name, found[name].url, found[name].model, vision=True)
    return found
