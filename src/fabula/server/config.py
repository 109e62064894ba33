"""Every setting of `fabula serve`: a command-line option, or an environment variable
``FABULA_<NAME>`` (the option's name in capitals, dashes as underscores). The command line wins.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_type_hints
from urllib.parse import urlsplit

from fabula.bots.base import BOT_LEVELS
from fabula.bots.language.models import ModelBot, ModelBotError, model_bots


@dataclass(frozen=True, slots=True)
class Config:
    host: str = field(default="127.0.0.1", metadata={"help": "address to listen on (0.0.0.0: every interface)"})
    port: int = field(default=8000, metadata={"help": "port to listen on (0: any free port)"})
    data: Path = field(default=Path("data"), metadata={"help": "data folder: the room database, imported decks"})
    public_url: str = field(
        default="", metadata={"help": "the URL players open, for join links and QR codes (default: from the request)"}
    )
    database: str = field(
        default="",
        metadata={
            "help": "postgresql://user:password@host:5432/name — keep rooms in PostgreSQL, so that several "
            "processes can serve them (with --redis); default: SQLite in the data folder"
        },
    )
    redis: str = field(
        default="",
        metadata={
            "help": "redis://host:6379/0 — tell the other processes of this deployment about every change "
            "(needs --database); default: this process is the only one"
        },
    )
    namespace: str = field(
        default="fabula",
        metadata={
            "help": "the PostgreSQL schema and the prefix of the Redis keys and channels: every process of one "
            "deployment uses the same (lower-case letters, digits, _)"
        },
    )
    room_owners: bool = field(
        default=True,
        metadata={
            "help": "with --redis: one process at a time makes each room's entries (its owner) and the others "
            "send their clients' changes to it, so that they never collide; off: each makes them itself and "
            "the database settles collisions (slower when a room's players are spread over processes)"
        },
    )
    relay: bool = field(
        default=True,
        metadata={
            "help": "with room owners: a client connection to a room another process owns is passed on whole "
            "to that process, so that each room is served by one process; off: each process serves its own "
            "clients and sends only their changes to the owner (every process then applies every entry)"
        },
    )
    peer_host: str = field(
        default="127.0.0.1",
        metadata={
            "help": "with room owners: the address of this machine that the other processes of the deployment "
            "reach it at (it listens there, at a free port, for their requests; on several machines, the "
            "private network's address)"
        },
    )
    compression: str = field(
        default="shared",
        metadata={
            "help": "WebSocket compression: 'shared': a message is compressed once for every connection that "
            "gets it (a state for 2,000 watchers once, not 2,000 times: about half the CPU per watcher), each "
            "message alone (a state is some 6 times the bytes it is compressed against the one before); "
            "'per-connection': each connection keeps its compressor (the fewest bytes, the most CPU)",
            "choices": ("shared", "per-connection"),
        },
    )
    durability: str = field(
        default="process",
        metadata={
            "help": "'process': every acknowledged action survives any crash of the server process; "
            "'power': also an operating-system crash or power loss (an fsync per action)",
            "choices": ("process", "power"),
        },
    )
    room_idle_seconds: float = field(
        default=6 * 3600, metadata={"help": "a room with nobody connected is deleted after this long"}
    )
    disconnect_grace_seconds: float = field(
        default=60, metadata={"help": "a bot moves for a seat whose player has been away this long"}
    )
    bot_delay_seconds: float = field(default=1.0, metadata={"help": "how long a bot 'thinks' before its move"})
    bot_reveal_seconds: float = field(
        default=12.0,
        metadata={
            "help": "after a reveal, a bot storyteller waits this long before its clue while a person is at the "
            "table: the table looks at the reveal and talks (the chat closes again at the clue)"
        },
    )
    teammate_wait_seconds: float = field(
        default=20.0,
        metadata={
            "help": "team mode: a bot that proposed its card leaves the choice to a person teammate at the "
            "table, and plays only after nobody has moved for this long (or at the turn's deadline)"
        },
    )
    bot_memory: bool = field(
        default=True,
        metadata={
            "help": "hard bots learn from the clues and votes of games finished on this server "
            "(only once a game is over; the games are kept in the store, so the memory survives restarts)"
        },
    )
    bot_memory_rounds: int = field(
        default=20_000,
        metadata={"help": "the most rounds of kept games the bots' memory takes at start (the newest; ~6 KB each)"},
    )
    model_bot: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "NAME=openai:URL:MODEL — a bot the host can add that plays on a language model behind an "
            "OpenAI-compatible chat endpoint (Ollama, llama.cpp's server, vLLM, LM Studio), as 'a bot on NAME'; "
            "repeat for more. Its API key, if any, comes from the environment only: FABULA_MODEL_BOT_KEY_<NAME> "
            "(NAME in capitals, other characters as _), else FABULA_LLM_API_KEY, else OPENAI_API_KEY",
            "metavar": "NAME=openai:URL:MODEL",
        },
    )
    model_bot_vision: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "NAME — a --model-bot whose model takes pictures: it is shown the cards as small JPEGs (a "
            "group's own photos too), else their descriptions and captions; repeat for more",
            "metavar": "NAME",
        },
    )
    model_bot_seconds: float = field(
        default=20.0,
        metadata={
            "help": "the most a model bot's move may take (its corrective retry included); after it the fallback "
            "level moves for it"
        },
    )
    model_bot_in_flight: int = field(
        default=4,
        metadata={"help": "model bots' moves this process asks its models for at once (the others wait, in time)"},
    )
    model_bot_fallback: str = field(
        default="normal",
        metadata={
            "help": "the built-in level that moves for a model bot whose model did not give a legal move in time",
            "choices": ("random", "easy", "normal", "hard"),
        },
    )
    max_message_bytes: int = field(default=16_384, metadata={"help": "largest WebSocket message accepted"})
    messages_per_second: float = field(default=10, metadata={"help": "sustained messages per connection"})
    message_burst: int = field(default=40, metadata={"help": "messages per connection allowed in a burst"})
    chat_messages_per_second: float = field(default=1, metadata={"help": "sustained chat messages per connection"})
    chat_burst: int = field(default=5, metadata={"help": "chat messages per connection allowed in a burst"})
    max_rooms_per_address: int = field(default=20, metadata={"help": "open rooms one address may create"})
    max_connections_per_address: int = field(
        default=64, metadata={"help": "WebSocket connections one address may hold"}
    )
    max_picture_bytes: int = field(
        default=32 * 2**20, metadata={"help": "largest picture file a host may upload (bytes; a zip's members too)"}
    )
    max_upload_bytes: int = field(
        default=256 * 2**20,
        metadata={"help": "largest upload request (bytes, all its files together; read as it streams in)"},
    )
    max_deck_pictures: int = field(default=300, metadata={"help": "pictures a room's own deck may hold"})
    max_picture_decks: int = field(
        default=1000, metadata={"help": "rooms' own decks this server's picture store may hold at once"}
    )
    max_picture_store_bytes: int = field(
        default=4 * 2**30, metadata={"help": "bytes of pictures this server's picture store may hold, all decks"}
    )
    linked_deck_seconds: float = field(
        default=7 * 86400,
        metadata={"help": "a deleted room's pictures are kept this long if its host made a link to them"},
    )
    shared_album_seconds: float = field(
        default=30 * 86400,
        metadata={"help": "an album shared by a link is readable this long (its room may be gone sooner)"},
    )
    uploads_per_minute: int = field(
        default=30,
        metadata={"help": "picture upload requests one address may make a minute (the lobby sends 10 files a request)"},
    )
    allow_origin: tuple[str, ...] = field(
        default=(),
        metadata={"help": "extra allowed WebSocket Origins, e.g. https://fabula.example (the server's own is allowed)"},
    )
    sweep_seconds: float = field(default=60, metadata={"help": "how often idle rooms are looked for"})
    log_level: str = field(default="info", metadata={"help": "debug, info, warning or error"})
    log_format: str = field(
        default="auto",
        metadata={
            "help": "'plain': a line a person reads (time, level, message, its fields); 'json': a JSON object a "
            "line, for a log collector; 'auto': plain on a terminal, JSON otherwise",
            "choices": ("auto", "plain", "json"),
        },
    )
    shutdown_seconds: int = field(
        default=5,
        metadata={
            "help": "on SIGTERM or Ctrl+C: how long requests under way (an upload, a move being saved) may take "
            "to finish before the server stops anyway; WebSocket clients are told at once to connect again"
        },
    )

    def __post_init__(self) -> None:
        if self.durability not in ("process", "power"):
            raise ValueError(f"--durability is 'process' or 'power'; got {self.durability!r}")
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            raise ValueError(f"--log-level is debug, info, warning or error; got {self.log_level!r}")
        if self.log_format not in ("auto", "plain", "json"):
            raise ValueError(f"--log-format is auto, plain or json; got {self.log_format!r}")
        if not 0 <= self.shutdown_seconds <= 3600:
            raise ValueError(f"--shutdown-seconds is between 0 and 3600; got {self.shutdown_seconds!r}")
        if self.database and urlsplit(self.database).scheme not in ("postgresql", "postgres"):
            raise ValueError(f"--database is a postgresql:// URL; got {redacted(self.database)!r}")
        if self.redis and urlsplit(self.redis).scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"--redis is a redis:// (or rediss://, unix://) URL; got {redacted(self.redis)!r}")
        if self.redis and not self.database:
            # Processes share rooms through the database; SQLite is one file of one process.
            raise ValueError("--redis needs --database: processes share their rooms through PostgreSQL")
        if not 1 <= self.model_bot_seconds <= 600:
            raise ValueError(f"--model-bot-seconds is between 1 and 600; got {self.model_bot_seconds!r}")
        if not 1 <= self.model_bot_in_flight <= 1000:
            raise ValueError(f"--model-bot-in-flight is between 1 and 1000; got {self.model_bot_in_flight!r}")
        if self.model_bot_fallback not in BOT_LEVELS:
            raise ValueError(f"--model-bot-fallback is one of {', '.join(BOT_LEVELS)}; got {self.model_bot_fallback!r}")
        try:
            model_bots(self.model_bot, self.model_bot_vision)
        except ModelBotError as error:
            raise ValueError(f"--model-bot: {error}") from None
        if not _NAMESPACE.fullmatch(self.namespace):
            raise ValueError(
                f"--namespace: lower-case letters, digits and _, not starting with a digit; got {self.namespace!r}"
            )

    @property
    def sqlite_path(self) -> Path:
        """The room database when no --database is given."""
        return self.data / "rooms.sqlite3"

    @property
    def pictures_path(self) -> Path:
        """The rooms' own pictures when no --database is given."""
        return self.data / "pictures.sqlite3"

    @property
    def sounds_path(self) -> Path:
        """The storytellers' recorded clues when no --database is given."""
        return self.data / "sounds.sqlite3"

    @property
    def model_bots(self) -> dict[str, ModelBot]:
        """The model bots the host may add, by name (`fabula.bots.language.models`)."""
        return model_bots(self.model_bot, self.model_bot_vision)

    @property
    def scaled_out(self) -> bool:
        """Several processes may serve the same rooms: each tells the others through Redis."""
        return bool(self.redis)


_NAMESPACE = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def redacted(url: str) -> str:
    """``url`` without its password, to show in messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for spec in fields(Config):
        flag = "--" + spec.name.replace("_", "-")
        env = "FABULA_" + spec.name.upper()
        help_text = f"{spec.metadata.get('help', '')} [env {env}; default {_show(spec.default)}]"
        if spec.name == "allow_origin":
            parser.add_argument(flag, action="append", default=None, metavar="ORIGIN", help=help_text)
        elif spec.type in (tuple[str, ...], "tuple[str, ...]"):
            parser.add_argument(flag, action="append", default=None, metavar=spec.metadata["metavar"], help=help_text)
        elif spec.type in (bool, "bool"):
            parser.add_argument(flag, default=None, metavar="yes|no", help=help_text)
        else:
            parser.add_argument(flag, default=None, help=help_text, choices=spec.metadata.get("choices"))


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "none" if not value else ",".join(value)
    return str(value) if value != "" else "none"


def from_arguments(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> Config:
    """The configuration from parsed arguments, then environment variables, then defaults;
    `ValueError` naming the setting for a value of the wrong kind."""
    hints = get_type_hints(Config)
    values: dict[str, Any] = {}
    for spec in fields(Config):
        given = getattr(args, spec.name, None)
        if given is None:
            given = environ.get("FABULA_" + spec.name.upper())
        if given is None:
            continue
        values[spec.name] = _convert(spec.name, hints[spec.name], given)
    return Config(**values)


def _convert(name: str, kind: Any, value: str | Sequence[str]) -> Any:
    try:
        if kind is Path:
            return Path(str(value))
        if kind is int:
            return int(str(value))
        if kind is float:
            return float(str(value))
        if kind is bool:
            word = str(value).strip().lower()
            if word in ("1", "true", "yes", "on"):
                return True
            if word in ("0", "false", "no", "off"):
                return False
            raise ValueError(word)
        if kind == tuple[str, ...]:
            parts = value.split(",") if isinstance(value, str) else list(value)
            # (an origin without its trailing slash; a model bot's spec as given)
            return tuple(
                part.strip().rstrip("/") if name == "allow_origin" else part.strip() for part in parts if part.strip()
            )
        return str(value)
    except ValueError:
        raise ValueError(f"--{name.replace('_', '-')}: {value!r} is not a valid {kind.__name__}") from None
