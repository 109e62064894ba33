"""Hostile input. Thousands of malformed, oversized, out-of-turn and forged messages over the
WebSocket protocol, and hostile bodies over the HTTP API: every one gets one answer (a stable
error code and a readable message, or what a valid message gets), a refused one changes nothing,
the connection and the room go on, the server never logs an internal error — and meanwhile
another room plays its game to the end.

Internal errors are caught by a handler attached straight to the ``fabula`` and ``uvicorn.error``
loggers: uvicorn's loggers do not propagate to the root logger, where ``caplog`` listens.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import logging
import random
import re
import string
import time
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import hypothesis
import msgspec
import pytest
import websockets
from hypothesis import strategies as st

from fabula.protocol import ID_MAX
from fabula.rules import BlindClue, RulesError, Tell, action_from_json, clean_clue
from fabula.server.config import Config
from fabula.server.room import CHAT_KEPT
from fabula.server.room_routes import BODY_MAX
from fabula.server.room_settings import CHAT_MAX, COLOURS, NAME_MAX

from .harness import Client, LiveServer, create_room, join_room, live_server
from .players import move_once, play_to_end

T = TypeVar("T")

#: The largest WebSocket message the server takes, by default (bytes).
LIMIT = Config().max_message_bytes
#: What a client gets as the one answer to a message of its own (chat lines and states aside).
REPLY_TYPES = frozenset({"ack", "error", "legal", "pong", "welcome"})
#: An error code is stable: a short snake_case word a client can switch on.
CODE = re.compile(r"[a-z][a-z0-9_]{1,40}")
#: The storm: messages sent per batch between two barrier pings.
BATCH = 100
#: For a fast server: rate limiting must not mask what else the storm checks.
NO_RATE_LIMIT: dict[str, Any] = {
    "messages_per_second": 1e6,
    "message_burst": 10**6,
    "chat_messages_per_second": 1e6,
    "chat_burst": 10**6,
}


# ---------------------------------------------------------------------------------------- helpers


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def internal_errors() -> Iterator[list[logging.LogRecord]]:
    """Every ERROR logged by the server: its own, and uvicorn's "Exception in ASGI application".
    Enter it after the server started (uvicorn's logging setup drops the handlers it finds)."""
    collector = _Collector()
    loggers = [logging.getLogger(name) for name in ("fabula", "uvicorn.error")]
    for logger in loggers:
        logger.addHandler(collector)
    try:
        yield collector.records
    finally:
        for logger in loggers:
            logger.removeHandler(collector)


def describe(records: list[logging.LogRecord]) -> str:
    """The errors logged, each kind once, with how often."""
    seen: Counter[str] = Counter()
    for record in records:
        kind = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        seen[f"{record.name}: {record.getMessage().strip()} {kind}".strip()] += 1
    return "\n".join(f"{line} (×{count})" for line, count in seen.items())


async def on_server(server: LiveServer, work: Callable[[], T]) -> T:
    """``work()`` run on the server's event loop (nothing else touches the rooms meanwhile)."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:  # handed to the caller
            future.set_exception(error)

    server.loop.call_soon_threadsafe(run)
    return await asyncio.wrap_future(future)


def on_server_now(server: LiveServer, work: Callable[[], T]) -> T:
    """``work()`` run on the server's event loop, for a test that is not async."""

    async def run() -> T:
        return work()

    return asyncio.run_coroutine_threadsafe(run(), server.loop).result(timeout=10)


async def on_server_await(server: LiveServer, work: Awaitable[T]) -> T:
    async def run() -> T:
        return await work

    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), server.loop))


#: Kept although invisible: emoji sequences and some scripts need them.
JOINERS = frozenset("\u200c\u200d")


def invisible(ch: str) -> bool:
    """A control character, a lone surrogate, or an invisible format character other than a joiner."""
    kind = unicodedata.category(ch)
    return kind in {"Cc", "Cs"} or (kind == "Cf" and ch not in JOINERS)


def clean(text: str) -> str:
    """Text as the server must keep a name or a chat line: control and format characters
    (bidi overrides, zero-width space; not the joiners) removed, whitespace collapsed."""
    kept = "".join(" " if ch.isspace() else ch for ch in text if not invisible(ch))
    return " ".join(kept.split())


def is_clean(text: object, limit: int) -> bool:
    """Plain one-line text, as a name, a chat line or a clue must be shown."""
    return (
        isinstance(text, str)
        and 0 < len(text) <= limit
        and text == " ".join(text.split())
        and not any(invisible(ch) for ch in text)
    )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def readable_id(data: str | bytes, limit: int = LIMIT) -> str | None:
    """The id a message of at most ``limit`` bytes names, if it is standard JSON (UTF-8, no
    NaN or Infinity) holding an object with a valid id: then its error must name that id."""
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > limit:
        return None
    try:
        found = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if isinstance(found, dict):
        message_id = found.get("id")
        if isinstance(message_id, str) and 0 < len(message_id) <= ID_MAX:
            return message_id
    return None


def short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 30]}…({len(text)} chars)"


def room_record(room: Any) -> dict[str, Any]:
    """Everything a room holds — the game's secrets included — and what each member sees."""
    return {
        "seq": room.seq,
        "host": room.host,
        "settings": msgspec.to_builtins(room.settings),
        "members": [[m.id, m.name, m.colour, m.token_hash, m.bot, m.away] for m in room.members.values()],
        "pairs": [list(pair) for pair in room.pairs],
        "seating": list(room.seating),
        "games_started": room.games_started,
        "phase_since": room.phase_since,
        "game": None if room.game is None else room.game.to_json(),
        "chat": [[said.member, said.text, said.team_only] for said, _ in room.chat],
        "client_ids": {json.dumps([member, cid]): seq for (member, cid), seq in room.client_ids.items()},
        "views": {
            str(member): {k: v for k, v in room.snapshot(member).to_json().items() if k != "seq"}
            for member in [None, *room.members]
        },
    }


async def live_record(server: LiveServer, code: str) -> dict[str, Any]:
    return await on_server(server, lambda: room_record(server.service.rooms.held[code].room))


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [
        f"{key}: {short(before.get(key), 300)} → {short(after.get(key), 300)}"
        for key in before
        if before[key] != after.get(key)
    ]


async def seated(server: LiveServer, names: list[str], **settings: Any) -> tuple[str, list[Client]]:
    """A lobby whose members (the first is host) are all connected."""
    seat = await create_room(server.url, names[0], COLOURS[0], **settings)
    code, tokens = seat["code"], [seat["token"]]
    for n, name in enumerate(names[1:], 1):
        joined = await join_room(server.url, code, name, COLOURS[n])
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    clients = [Client(server.url, code, token) for token in tokens]
    for client in clients:
        assert (await client.connect())["type"] == "welcome"
    return code, clients


async def all_see(clients: list[Client], test: Callable[[dict[str, Any]], bool]) -> None:
    """Wait until every client has seen a state of the game for which ``test`` holds."""
    for client in clients:
        await client.wait_state(lambda room: room["game"] is not None and test(room))


# ---------------------------------------------------------------------------------------- the storm


def _action_field(value: Any) -> bool:
    """Whether ``value`` may be a field of an action (docs/protocol.md): a number from -1000 to
    1000, text, true or false, null, or a list of up to 12 numbers and texts."""
    if isinstance(value, list):
        return len(value) <= 12 and all(not isinstance(v, list | bool | None) and _action_field(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return -1000 <= value <= 1000
    return isinstance(value, str | bool) or value is None


@dataclass
class Probe:
    """One hostile message and what the server must answer to it."""

    kind: str
    data: str | bytes
    #: the reply types allowed
    replies: frozenset[str] = frozenset({"error"})
    #: the error codes allowed (empty: any stable code)
    codes: frozenset[str] = frozenset()
    #: a re-sent id: the seq its ack must repeat
    replay: int | None = None
    #: an accepted chat message: the text the table must read
    chat: str | None = None

    @property
    def size(self) -> int:
        return len(self.data.encode() if isinstance(self.data, str) else self.data)


@dataclass
class Table:
    """What a hostile seat knows of the moment it storms."""

    tag: str
    member: int
    seat: int
    seats: int
    host: bool
    hand: list[str]
    #: card ids that are not in this hand (other hands, the pile, the table)
    foreign: list[str]
    table_size: int
    #: its legal moves, canonical (see `canonical`)
    legal: set[str]
    #: every person's seat token, its own first
    tokens: list[str]
    #: whether the table may chat now (not from the clue until the reveal: ``chat_closed``)
    table_chat: bool = True


def canonical(action: dict[str, Any]) -> str:
    shown = dict(action)
    for key in ("cards", "slots"):
        if isinstance(shown.get(key), list):
            shown[key] = sorted(shown[key], key=repr)
    return json.dumps(shown, sort_keys=True)


def might_be_legal(action: dict[str, Any], table: Table) -> bool:
    """Whether the game could accept ``action`` from this seat now (the storm never sends one)."""
    payload = dict(action)
    if payload.setdefault("seat", table.seat) != table.seat:
        return False
    try:
        parsed = action_from_json(payload)
        if isinstance(parsed, Tell | BlindClue):
            clean_clue(parsed.clue)
            parsed.clue = None
    except RulesError:
        return False
    return canonical(parsed.to_json()) in table.legal


def read_table(server: LiveServer, code: str, member: int, tag: str, tokens: list[str]) -> Table:
    room = server.service.rooms.held[code].room
    game = room.game
    seat = room.seat_of(member)
    state = game.to_json()
    hand = list(state["hands"][seat])
    foreign = [card for s, cards in enumerate(state["hands"]) if s != seat for card in cards]
    foreign += list(state["pile"][:10]) + [card for card in state["table"] if card not in hand]
    return Table(
        tag=tag,
        member=member,
        seat=seat,
        seats=game.seats,
        host=room.host == member,
        hand=hand,
        foreign=foreign,
        table_size=game.rules.table_size,
        legal={canonical(action.to_json()) for action in game.legal_actions(seat)},
        tokens=tokens,
        table_chat=room.table_chat_open(),
    )


#: Text that has broken someone's server or page before.
NASTY = [
    "",
    " ",
    "\t\n\r",
    "\x00",
    "\x07\x08",
    "\x1b[31mred\x1b[0m",
    "\u202eevil\u202c",
    "\u2066isolate\u2069",
    "\u200b\u200c\u200d",
    "\ufeffbom",
    "\u2028\u2029",
    "\u00a0\u3000",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "' OR 1=1 --",
    "${jndi:ldap://x/a}",
    "{{7*7}}",
    "../../etc/passwd",
    "%00%0a",
    "\\",
    '"',
    "💥🐇🎴",
    "Z̷̢͚a̶l̴g̵o̷",
    "\U0010ffff\ufffe\uffff",
    "\ue000\uf8ff",
    "ﷺ",
    "\u0301\u0336",
    "null",
    "NaN",
    "__proto__",
    "👩‍👩‍👧‍👦",
    "A" * 60,
]
_POOLS = [
    string.printable,
    "".join(map(chr, range(0x20))) + "\x7f" + "".join(map(chr, range(0x80, 0xA0))),
    "\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff\U000e0001",
    " \t\n\r\u00a0\u1680\u2000\u2003\u2028\u2029\u3000",
    "abcXYZéßøΩЖж中文字한글アイウ",
    "\u0300\u0301\u0336\u20dd",
    "💥🐇🎴\U0001f3f3\ufe0f",
    "\ue000\uf8ff\U000f0000\ufffe\uffff\U0010fffe",
    "<>&\"'/\\`${}%;",
]
WORDS = ["hello", "a cat in the moon", "nice one", "who played the blue door?", "gg", "Bonjour à tous", "我想"]
ID_DECORATIONS = [s for s in NASTY if s] + ["-" * 70, "é" * 70, "💥" * 70]
ODD_CARDS = ["", "nope", "fabula-0", "fabula-999999", "<script>", "\x00", "x" * 3000, "💥", " fabula-1"]
CLUES = [
    "A quiet storm",
    "",
    "   ",
    "\x00",
    "line\nbreak",
    "tab\there",
    "\u202eevil",
    "x" * 201,
    "y" * 3000,
    None,
    5,
    ["clue"],
    {"c": 1},
    "<script>alert(1)</script>",
    "💥" * 50,
    "\x1b[2J",
]
#: Kinds of hostile message, and how often each is sent.
WEIGHTS = {
    "not_json": 6,
    "not_object": 4,
    "bad_type": 6,
    "bad_id": 7,
    "odd_valid_id": 5,
    "wrong_field_type": 10,
    "unknown_field": 6,
    "host_only": 6,
    "hello_again": 3,
    "other_seat": 6,
    "seat_lookalike": 2,
    "illegal_move": 14,
    "oversized": 3,
    "near_limit": 2,
    "deep": 3,
    "binary": 4,
    "nan_inf": 4,
    "lone_surrogate": 1,
    "say": 8,
    "replay": 5,
    "valid": 4,
    "leave_malformed": 1,
}
BAD_TYPES: list[Any] = [None, 5, "", "ACT", "Ping", "welcome", "state", "ack", "error", "chat", "pong", " ping"]
BAD_TYPES += ["ping ", "ping\x00", "ｐｉｎｇ", ["ping"], {"t": "ping"}, True, "x" * 500, "__proto__", "legal_moves"]
ODD_NUMBERS = ["NaN", "Infinity", "-Infinity", "nan", "inf", "1e400", "-1e400", "1e-400", "-0", "0.0", "1E+2"]
ODD_NUMBERS += ["123456789012345678901234567890", "-9223372036854775809", "18446744073709551616"]
OVERSIZES = [LIMIT + 1, LIMIT + 7, 20_000, 40_000, 65_536, 131_072, 300_000, 500_000]
DEPTHS = [3, 50, 300, 600, 2_000, 5_000, 7_500]
BASES: dict[str, dict[str, Any]] = {
    "ping": {},
    "legal": {},
    "leave": {},
    "start": {},
    "rematch": {},
    "hello": {},
    "act": {"action": {"type": "vote", "slots": [1]}},
    "say": {"text": "hello"},
    "settings": {"settings": {}},
    "teams": {"pairs": []},
    "add_bot": {},
    "kick": {"member": 0},
    "pass_host": {"member": 0},
}
WRONG_TYPES: list[tuple[str, str, list[Any]]] = [
    ("act", "action", [[], "vote", 1, None, True, 1.5]),
    ("say", "text", [1, None, [], {}, True]),
    ("say", "team_only", ["true", 1, 0, None, "yes", []]),
    ("hello", "token", [1, [], {}, True, 1.5]),
    (
        "settings",
        "settings",
        [
            "odyssey",
            [],
            1,
            None,
            {"mode": 5},
            {"decks": "fabula"},
            {"options": []},
            {"clue_seconds": "60"},
            {"clue_seconds": 1.5},
            {"clue_seconds": True},
            {"decks": [1]},
            {"mode": None},
            {"mode": "odyssey", "bogus": 1},
        ],
    ),
    ("teams", "pairs", ["x", {}, [1, 2], [["a", "b"]], [[1.5, 2]], [[True, False]], None, [[None]]]),
    ("kick", "member", ["1", 1.5, None, [], {}, True, "0"]),
    ("pass_host", "member", ["1", 1.5, None, [], {}, True]),
    ("add_bot", "level", [1, None, [], True, "", "genius", "RANDOM", "<script>"]),
]
EXTRA_KEYS = ["x", "seat", "room", "code", "__proto__", "constructor", "Type", "ID", "id ", "", "\x00", "k" * 300]
EXTRA_KEYS += ["member", "token", "text", "action", "level", "settings", "pairs", "team_only"]


class Hostile:
    """A seeded generator of hostile messages for one seat at one moment of a game. It never
    generates a message the room would accept, except where the probe says so (valid pings,
    chat, re-sent ids), so that whatever else changes the room is a bug."""

    def __init__(self, rng: random.Random, table: Table, accepted: list[tuple[str, int]]) -> None:
        self.rng, self.table, self.accepted = rng, table, accepted
        self._count = itertools.count()
        self._kinds = list(WEIGHTS)
        self._weights = [WEIGHTS[kind] for kind in self._kinds]

    def probe(self) -> Probe:
        kind = self.rng.choices(self._kinds, self._weights)[0]
        if kind == "host_only" and self.table.host:
            kind = "host_illegal"
        made: Probe = getattr(self, kind)()
        return made

    # -------------------------------------------------------------- building blocks

    def new_id(self) -> str:
        base = f"z{self.table.tag}{next(self._count)}"
        if self.rng.random() < 0.3:
            base = (base + self.rng.choice(ID_DECORATIONS))[:ID_MAX]
        return base

    def dump(self, message: object) -> str:
        separators = self.rng.choice([(",", ":"), (", ", ": ")])
        return json.dumps(message, ensure_ascii=self.rng.random() < 0.5, separators=separators)

    def junk(self, length: int) -> str:
        pools = self.rng.sample(_POOLS, self.rng.randint(1, 4))
        return "".join(self.rng.choice(self.rng.choice(pools)) for _ in range(length))

    def chat_text(self) -> str:
        parts = [self.rng.choice(WORDS), self.junk(self.rng.randint(0, 12)), self.rng.choice(NASTY)]
        self.rng.shuffle(parts)
        text = "".join(self.rng.sample(parts, self.rng.randint(1, 3)))
        roll = self.rng.random()
        if roll < 0.08:
            text = self.junk(self.rng.randint(0, 6)) if self.rng.random() < 0.5 else self.rng.choice(NASTY[:12])
        elif roll < 0.15:
            text = self.rng.choice(["a", "é", "💥", " b"]) * self.rng.randint(CHAT_MAX - 5, CHAT_MAX + 5)
        return text

    def card(self) -> Any:
        table = self.table
        pool: list[list[Any]] = [table.hand, table.foreign, ODD_CARDS, [5, None, ["x"]]]
        return self.rng.choice(self.rng.choices(pool, [4, 3, 2, 1])[0] or ODD_CARDS)

    def slot(self) -> int:
        return self.rng.choice([-1, 0, 1, 2, 3, self.table.table_size, self.table.table_size + 1, 99, 2**31, 2**63 - 1])

    def some_action(self) -> dict[str, Any]:
        rng = self.rng
        kind = rng.randrange(11)
        action: dict[str, Any]
        if kind == 0:
            action = {"type": "tell", "card": self.card(), "clue": rng.choice(CLUES)}
        elif kind == 1:
            action = {"type": "blind_clue", "clue": rng.choice(CLUES)}
        elif kind == 2:
            cards = rng.choice(
                [
                    [],
                    [self.card()],
                    [self.card(), self.card()],
                    [self.card()] * 2,
                    [self.card() for _ in range(rng.randint(3, 40))],
                    "fabula-1",
                    [1, 2],
                    None,
                ]
            )
            action = {"type": "play", "cards": cards}
        elif kind == 3:
            action = {"type": "propose", "card": self.card()}
        elif kind == 4:
            slots = rng.choice(
                [[], [self.slot()], [self.slot(), self.slot()], [self.slot()] * 3, ["1"], [1.5], [True], "1", None]
            )
            action = {"type": "vote", "slots": slots if rng.random() < 0.95 else list(range(300))}
        elif kind == 5:
            action = {"type": "red", "slot": rng.choice([self.slot(), "1", None, [1]])}
        elif kind == 6:
            action = {"type": rng.choice(["pass", "", None, 5, "TELL", "tell ", "Vote", ["vote"], "__proto__"])}
        elif kind == 7:
            action = {"type": rng.choice(["tell", "play", "vote", "red", "propose"])}
        elif kind == 8:
            action = {}
        elif kind == 9:  # the move this seat would make, with one thing wrong
            action = {"type": "play", "cards": self.table.hand[:2], "seat": self.table.seat, "extra": self.junk(20)}
            action[rng.choice(["cards", "type", "seat"])] = rng.choice([None, [], "x", 1.5, [self.card()] * 3])
        else:
            action = {"type": "vote", "slots": [rng.randint(-3, self.table.table_size + 3)]}
        if rng.random() < 0.5:
            action["seat"] = self.table.seat
        if rng.random() < 0.1:
            action[rng.choice(EXTRA_KEYS)] = self.junk(rng.randint(0, 30))
        return action

    def message(self, kind: str, **fields: Any) -> str:
        return self.with_id({"type": kind, **fields})

    def with_id(self, message: dict[str, Any]) -> str:
        return self.dump({**message, "id": self.new_id()})

    # -------------------------------------------------------------- the kinds

    def not_json(self) -> Probe:
        rng, mid = self.rng, self.new_id()
        valid = json.dumps({"type": "ping", "id": mid})
        data = rng.choice(
            [
                "",
                " ",
                "{",
                "}",
                valid[:-1],
                valid[: rng.randint(1, len(valid) - 1)],
                valid.replace('"', "'"),
                valid + " " + valid,
                valid[:-1] + ",}",
                valid.replace(", ", " "),
                valid + " // comment",
                "/* c */ " + valid,
                valid.replace('"type"', "type"),
                valid.replace(mid, mid + "\x01"),
                valid.replace(mid, "\\x41"),
                "\ufeff" + valid,
                self.junk(rng.randint(1, 200)),
                "undefined",
                "True",
                "None",
                "0x10",
                "+1",
                ".5",
                "01",
                "[1,2",
                '"unterminated',
                "nul\x00l",
            ]
        )
        if readable_id(data) is not None:  # a random junk string that happens to be JSON: rare
            data = "{" + data
        return Probe("not_json", data, codes=frozenset({"malformed"}))

    def not_object(self) -> Probe:
        value: Any = self.rng.choice(
            [0, -1, 1.5, 1e308, "ping", "", [], [{"type": "ping", "id": self.new_id()}], None, True, False, [[[[]]]]]
        )
        return Probe("not_object", json.dumps(value), codes=frozenset({"malformed"}))

    def bad_type(self) -> Probe:
        rng = self.rng
        message: dict[str, Any] = {"id": self.new_id(), **rng.choice(list(BASES.values()))}
        kind = rng.choice(BAD_TYPES)
        if kind is not None or rng.random() < 0.5:
            message["type"] = kind
        return Probe("bad_type", self.dump(message), codes=frozenset({"malformed"}))

    def bad_id(self) -> Probe:
        rng = self.rng
        kind = rng.choice(["ping", "legal", "say", "act", "hello", "start"])
        message: dict[str, Any] = {"type": kind, **BASES[kind]}
        roll = rng.randrange(4)
        if roll == 1:
            message["id"] = ""
        elif roll == 2:
            message["id"] = rng.choice(["i", "é", "💥", "\x00"]) * rng.randint(ID_MAX + 1, 3000)
        elif roll == 3:
            message["id"] = rng.choice([5, 0, -1, 1.5, None, True, [], ["x"], {"id": "x"}])
        return Probe("bad_id", self.dump(message), codes=frozenset({"malformed", "bad_id"}))

    def odd_valid_id(self) -> Probe:
        kind = self.rng.choice(["ping", "legal"])
        base = f"z{self.table.tag}{next(self._count)}"
        message_id = (base + self.rng.choice(ID_DECORATIONS))[: self.rng.randint(len(base) + 1, ID_MAX)]
        data = self.dump({"type": kind, "id": message_id})
        return Probe("odd_valid_id", data, replies=frozenset({"pong" if kind == "ping" else "legal"}))

    def wrong_field_type(self) -> Probe:
        kind, name, values = self.rng.choice(WRONG_TYPES)
        data = self.message(kind, **{**BASES[kind], name: self.rng.choice(values)})
        return Probe("wrong_field_type", data, codes=frozenset({"malformed"}))

    def unknown_field(self) -> Probe:
        kind = self.rng.choice(list(BASES))
        fields = dict(BASES[kind])
        key = self.rng.choice([k for k in EXTRA_KEYS if k not in fields and k != "token"])
        fields[key] = self.rng.choice([1, None, "x", [], {}, self.junk(10)])
        return Probe("unknown_field", self.message(kind, **fields), codes=frozenset({"malformed"}))

    def host_only(self) -> Probe:
        rng = self.rng
        member = rng.choice([0, 1, 2, -1, 3, 99, 2**40, 2**63 - 1])
        settings = rng.choice(
            [{}, {"mode": "party"}, {"mode": "chess"}, {"decks": ["nope"]}, {"options": {"bogus": 1}}, {"decks": []}]
        )
        message: dict[str, Any] = rng.choice(
            [
                {"type": "start"},
                {"type": "rematch"},
                {"type": "add_bot"},
                {"type": "add_bot", "level": "random"},
                {"type": "kick", "member": member},
                {"type": "pass_host", "member": member},
                {"type": "settings", "settings": settings},
                {"type": "teams", "pairs": rng.choice([[[0, 1]], [], [[0, 0]], [[5, 6]], [[0, 1, 2]]])},
            ]
        )
        # a number out of bounds (any number a client sends is at most 1000) or a team of three is
        # malformed before anyone asks who sent it
        out_of_bounds = abs(message.get("member", 0)) > 1000 or any(len(pair) > 2 for pair in message.get("pairs", []))
        codes = {"malformed"} if out_of_bounds else {"not_host"}
        return Probe("host_only", self.with_id(message), codes=frozenset(codes))

    def host_illegal(self) -> Probe:
        """The host's commands that a game in progress refuses (never a kick or a hand-over that works)."""
        rng = self.rng
        stranger = rng.choice([-1, self.table.seats, 99, 2**40, 2**63 - 1])
        choices: list[tuple[dict[str, Any], str]] = [
            ({"type": "start"}, "game_started"),
            ({"type": "rematch"}, "not_over"),
            ({"type": "add_bot"}, "game_started"),
            ({"type": "add_bot", "level": rng.choice(["<script>", "", "genius"])}, "malformed"),
            ({"type": "kick", "member": self.table.member}, "kick_self"),
            ({"type": "kick", "member": stranger}, "unknown_member" if abs(stranger) <= 1000 else "malformed"),
            ({"type": "pass_host", "member": stranger}, "unknown_member" if abs(stranger) <= 1000 else "malformed"),
            (
                {"type": "settings", "settings": rng.choice([{}, {"mode": "party"}, {"mode": "chess"}])},
                "game_started",
            ),
            (
                {"type": "settings", "settings": {"decks": rng.choice([[], ["nope"], ["fabula", "fabula"]])}},
                "bad_decks",
            ),
            ({"type": "teams", "pairs": rng.choice([[[0, 1]], [], [[0, 0]]])}, "game_started"),
        ]
        message, code = rng.choice(choices)
        return Probe("host_illegal", self.with_id(message), codes=frozenset({code}))

    def hello_again(self) -> Probe:
        token = self.rng.choice([None, *self.table.tokens, "", "made-up", "x" * 5000, "\x00", "<script>"])
        return Probe("hello_again", self.message("hello", token=token), codes=frozenset({"already_greeted"}))

    def other_seat(self) -> Probe:
        table = self.table
        action = self.some_action()
        others = [s for s in range(table.seats) if s != table.seat]
        action["seat"] = self.rng.choice(others * 4 + [-1, table.seats, 99, 2**63 - 1, -(2**63), "1", str(table.seat)])
        if self.rng.random() < 0.1:
            action["seat"] = self.rng.choice([None, [table.seat], {"s": table.seat}])
        codes = {"not_your_seat"} if all(map(_action_field, action.values())) else {"malformed"}
        return Probe("other_seat", self.message("act", action=action), codes=frozenset(codes))

    def seat_lookalike(self) -> Probe:
        """A seat that equals this seat's number without being an integer."""
        action = self.some_action()
        seat = self.table.seat
        action["seat"] = self.rng.choice([float(seat), bool(seat)] if seat < 2 else [float(seat)])
        return Probe("seat_lookalike", self.message("act", action=action), codes=frozenset({"malformed"}))

    def illegal_move(self) -> Probe:
        for _ in range(50):
            action = self.some_action()
            if not might_be_legal(action, self.table):
                break
        else:  # pragma: no cover - the generator is built to miss
            action = {"type": "pass"}
        return Probe("illegal_move", self.message("act", action=action))

    def oversized(self) -> Probe:
        rng, mid = self.rng, self.new_id()
        size = rng.choice(OVERSIZES)
        shape = rng.randrange(7)
        if shape == 0:  # a chat line far beyond the limit
            head, tail = json.dumps({"type": "say", "id": mid, "text": ""})[:-2], '"}'
            return Probe("oversized", head + "a" * (size - len(head) - len(tail)) + tail)
        if shape == 1:  # a clue
            head = json.dumps({"type": "act", "id": mid, "action": {"type": "tell", "card": "x", "clue": ""}})[:-3]
            return Probe("oversized", head + "c" * (size - len(head) - 3) + '"}}')
        if shape == 2:  # a valid ping, padded with whitespace
            head = json.dumps({"type": "ping", "id": mid})[:-1]
            return Probe("oversized", head + " " * (size - len(head) - 1) + "}")
        if shape == 3:
            return Probe("oversized", rng.randbytes(size))
        if shape == 4:
            return Probe("oversized", "x" * size)
        if shape == 5:  # a huge id
            return Probe("oversized", json.dumps({"type": "ping", "id": "i" * size}))
        # fewer characters than the limit, more bytes: the limit is in bytes
        chars = rng.randint(LIMIT // 3 + 10, LIMIT - 100)
        data = json.dumps({"type": "say", "id": mid, "text": rng.choice("€한💥") * chars}, ensure_ascii=False)
        return Probe("oversized_multibyte", data)

    def near_limit(self) -> Probe:
        mid = self.new_id()
        if self.rng.random() < 0.5:  # exactly at the limit: still a valid ping
            head = json.dumps({"type": "ping", "id": mid})[:-1]
            return Probe("near_limit", head + " " * (LIMIT - len(head) - 1) + "}", replies=frozenset({"pong"}))
        head = json.dumps({"type": "say", "id": mid, "text": ""})[:-2]
        size = self.rng.randint(LIMIT - 500, LIMIT)
        data = head + "a" * (size - len(head) - 2) + '"}'
        closed = frozenset() if self.table.table_chat else frozenset({"chat_closed"})
        return Probe("near_limit", data, codes=frozenset({"message_too_long", "malformed"}) | closed)

    def deep(self) -> Probe:
        rng, mid = self.rng, self.new_id()
        depth = rng.choice(DEPTHS)
        arrays = "[" * depth + "]" * depth
        shape = rng.randrange(6)
        if shape == 0:
            data = arrays
        elif shape == 4:
            depth = min(depth, 2_500)
            data = json.dumps({"type": "act", "id": mid, "action": "@"}).replace(
                '"@"', '{"a":' * depth + "0" + "}" * depth
            )
        else:
            template = [
                {},
                {"type": "act", "id": mid, "action": {"type": "vote", "slots": "@"}},
                {"type": "say", "id": mid, "text": "@"},
                {"type": "ping", "id": mid, "x": "@"},
                {},
                {"type": "settings", "id": mid, "settings": {"options": {"target_score": "@"}}},
            ][shape]
            data = json.dumps(template).replace('"@"', arrays)
        return Probe(f"deep_{depth}", data)

    def binary(self) -> Probe:
        rng, mid = self.rng, f"z{self.table.tag}{next(self._count)}"
        say = json.dumps({"type": "say", "id": mid, "text": "@@"}).encode()
        if rng.random() < 0.15:  # a valid message as a binary frame: answered like text, or refused
            return Probe(
                "binary", json.dumps({"type": "ping", "id": mid}).encode(), replies=frozenset({"pong", "error"})
            )
        data = rng.choice(
            [
                rng.randbytes(rng.randint(1, 300)),
                b"",
                b"\xff\xfe\xfd",
                b"\x00" * 50,
                say.replace(b"@@", b"\xff"),
                say.replace(b"@@", b"\xed\xa0\x80"),
                say.replace(b"@@", b"\xc0\xaf"),
                say.replace(b"@@", b"\xe0\x80\xaf"),
                say.replace(b"@@", b"\xf4\x90\x80\x80"),
                json.dumps({"type": "ping", "id": mid}).encode("utf-16"),
                json.dumps({"type": "ping", "id": mid}).encode("utf-32"),
            ]
        )
        return Probe("binary", data)

    def nan_inf(self) -> Probe:
        rng, mid = self.rng, json.dumps(self.new_id())
        number = rng.choice(ODD_NUMBERS)
        template = rng.choice(
            [
                '{"type":"act","id":ID,"action":{"type":"vote","slots":[X]}}',
                '{"type":"kick","id":ID,"member":X}',
                '{"type":"say","id":ID,"text":"hi","team_only":X}',
                '{"type":"act","id":ID,"action":{"type":"red","slot":X}}',
                '{"type":"ping","id":ID,"n":X}',
                '{"type":"add_bot","id":ID,"level":X}',
            ]
        )
        kind = "nan_inf" if number[-1].isalpha() else "number_overflow" if "e4" in number else "odd_number"
        return Probe(kind, template.replace("ID", mid).replace("X", number))

    def lone_surrogate(self) -> Probe:
        """A string with half a surrogate pair: standard JSON grammar, but no Unicode text."""
        mid = json.dumps(self.new_id())
        data = self.rng.choice(
            [
                '{"type":"say","id":ID,"text":"a\\ud800b"}',
                '{"type":"hello","id":ID,"token":"\\udfff"}',
                '{"type":"act","id":ID,"action":{"type":"tell","card":"\\ud83d","clue":"x"}}',
            ]
        )
        return Probe("lone_surrogate", data.replace("ID", mid))

    def say(self, text: str | None = None) -> Probe:
        text = self.chat_text() if text is None else text
        team_only = self.rng.random() < 0.05
        message: dict[str, Any] = {"type": "say", "id": self.new_id(), "text": text}
        if team_only:
            message["team_only"] = True
        data, cleaned = self.dump(message), clean(text)
        if not team_only and not self.table.table_chat:  # (refused before the line is read)
            return Probe("say", data, codes=frozenset({"chat_closed"}))
        if not cleaned:
            return Probe("say", data, codes=frozenset({"message_empty"}))
        if len(cleaned) > CHAT_MAX:
            return Probe("say", data, codes=frozenset({"message_too_long"}))
        if team_only:
            return Probe("say", data, codes=frozenset({"not_teams"}))
        return Probe("say", data, replies=frozenset({"ack"}), chat=cleaned)

    def replay(self) -> Probe:
        """A message re-sent with the id of one the room accepted: acknowledged again, made never."""
        if not self.accepted:
            return self.say(self.rng.choice(WORDS))
        rng = self.rng
        message_id, seq = rng.choice(self.accepted)
        body: dict[str, Any] = rng.choice(
            [
                {"type": "say", "text": self.chat_text()},
                {"type": "say", "text": ""},
                {"type": "act", "action": {"type": "vote", "slots": [1]}},
                {"type": "act", "action": {}},
                {"type": "leave"},
                {"type": "start"},
                {"type": "rematch"},
                {"type": "add_bot"},
                {"type": "kick", "member": 0},
                {"type": "pass_host", "member": 1},
                {"type": "settings", "settings": {"mode": "party"}},
                {"type": "teams", "pairs": [[0, 1]]},
            ]
        )
        roll = rng.random()
        if roll < 0.1:
            return Probe("replay", self.dump({"type": "ping", "id": message_id}), replies=frozenset({"pong"}))
        if roll < 0.15:
            data = self.dump({"type": "hello", "id": message_id})
            return Probe("replay", data, codes=frozenset({"already_greeted"}))
        return Probe("replay", self.dump({**body, "id": message_id}), replies=frozenset({"ack"}), replay=seq)

    def valid(self) -> Probe:
        kind = self.rng.choice(["ping", "legal"])
        return Probe("valid", self.message(kind), replies=frozenset({"pong" if kind == "ping" else "legal"}))

    def leave_malformed(self) -> Probe:
        extra: dict[str, Any] = self.rng.choice([{"member": 2}, {"kicked": True}, {"seat": 0}])
        return Probe("leave_malformed", self.message("leave", **extra), codes=frozenset({"malformed"}))


@dataclass
class Tally:
    """What the storm saw: how many of each kind, and every way the server went wrong."""

    sent: Counter[str] = field(default_factory=Counter)
    violations: dict[str, list[str]] = field(default_factory=dict)
    drops: int = 0

    def flag(self, what: str, probe: Probe | None, detail: str) -> None:
        sent = "" if probe is None else f"[{probe.kind}, {probe.size} bytes] sent {short(probe.data)}: "
        self.violations.setdefault(what, []).append(sent + detail)

    def report(self) -> str:
        lines = []
        for what, cases in sorted(self.violations.items()):
            lines.append(f"{what}: {len(cases)} message(s), e.g.")
            lines.extend(f"    {case}" for case in cases[:4])
        return "\n".join(lines)


class Stormer:
    """One seat's connection, storming its room in batches; reopened if the server drops it."""

    def __init__(self, server: LiveServer, code: str, client: Client, *, member: int, tally: Tally) -> None:
        self.server, self.code, self.client, self.member, self.tally = server, code, client, member, tally
        self.token = client.token
        #: (id, seq) of every message the room took from this seat during the storm
        self.accepted: list[tuple[str, int]] = []
        self._barriers = itertools.count()

    async def storm(self, hostile: Hostile, count: int) -> None:
        """Send ``count`` hostile messages; check every answer and that the room changed only by
        the messages it accepted."""
        before = await live_record(self.server, self.code)
        first_accepted = len(self.accepted)
        said: list[str] = []
        next_seq = before["seq"]
        queue: list[Probe] = []
        left = count
        while left or queue:
            if not queue:
                queue = [hostile.probe() for _ in range(min(BATCH, left))]
                left -= len(queue)
                self.tally.sent.update(probe.kind for probe in queue)
            batch, queue = queue, []
            replies, chats, dropped = await self._send(batch)
            said_now: list[str] = []
            for probe, reply in zip(batch, replies, strict=False):
                next_seq = self._judge(probe, reply, next_seq, said_now)
            said += said_now
            self._check_chat(said_now, chats, complete=not dropped)
            if not dropped:
                if len(replies) != len(batch):
                    self.tally.flag("reply count", None, f"{len(batch)} messages, {len(replies)} replies")
                continue
            # The server dropped the connection; the replies it had queued are lost with it, so
            # which message did it is found by sending the unanswered ones again, one at a time
            # (the ones it had handled are answered again: refused again, or acknowledged as re-sent).
            self.tally.drops += 1
            await self._reopen()
            unanswered = batch[len(replies) :]
            for index, probe in enumerate(unanswered):
                one, chats, dropped = await self._send([probe])
                if dropped:
                    self.tally.flag("connection dropped", probe, "the server closed the connection")
                    await self._reopen()
                    queue = unanswered[index + 1 :]
                    break
                for reply in one[:1]:
                    next_seq = self._judge(probe, reply, next_seq, said)
                self._check_chat([], chats, complete=False)
            else:
                self.tally.flag("connection dropped", None, f"by one of {short([p.data for p in unanswered])}")
        after = await live_record(self.server, self.code)
        new = self.accepted[first_accepted:]
        expected = dict(before)
        expected["seq"] = before["seq"] + len(new)
        expected["chat"] = (before["chat"] + [[self.member, text, False] for text in said])[-CHAT_KEPT:]
        expected["client_ids"] = {**before["client_ids"], **{json.dumps([self.member, i]): s for i, s in new}}
        for problem in differences(expected, after):
            self.tally.flag("room changed by refused messages", None, problem)

    def _check_chat(self, said: list[str], chats: list[dict[str, Any]], *, complete: bool) -> None:
        """Chat lines are clean; if nothing was lost, the table read exactly what was said."""
        for line in chats:
            if not is_clean(line.get("text"), CHAT_MAX):
                self.tally.flag("unclean chat line", None, short(line))
        got = [line.get("text") for line in chats if line.get("member") == self.member]
        if complete and got != said:
            self.tally.flag("chat differs from what was said", None, f"said {short(said)}, table read {short(got)}")

    async def _send(self, batch: list[Probe]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
        """Send a batch and a barrier ping; the replies to the batch (in order: one connection's
        messages are handled one after the other), the chat lines, and whether the connection dropped."""
        client = self.client
        start = len(client.received)
        barrier = f"barrier-{next(self._barriers)}"
        dropped = False
        try:
            for probe in batch:
                await client.send_raw(probe.data)
            await client.send_raw(json.dumps({"type": "ping", "id": barrier}))
            await client.wait_for(lambda m: m["type"] == "pong" and m.get("id") == barrier, start=start, timeout=60)
        except (ConnectionError, websockets.ConnectionClosed):
            dropped = True
            await client.close()  # everything the server sent before closing is in received
        got = client.received[start:]
        replies = [m for m in got if m["type"] in REPLY_TYPES]
        if not dropped:
            if replies[-1] != {"type": "pong", "id": barrier}:
                self.tally.flag("reply count", None, f"replies after the barrier: {short(replies[-3:])}")
            replies = replies[: replies.index({"type": "pong", "id": barrier})]
        return replies, [m for m in got if m["type"] == "chat"], dropped

    async def _reopen(self) -> None:
        self.client = Client(self.server.url, self.code, self.token)
        # a new Client numbers its messages from m0 again: ids the room has taken from this seat
        self.client._ids = (f"r{self.tally.drops}-{n}" for n in itertools.count())
        assert (await self.client.connect())["type"] == "welcome"

    def _judge(self, probe: Probe, reply: dict[str, Any], next_seq: int, said: list[str]) -> int:
        flag = self.tally.flag
        wanted_id = readable_id(probe.data)
        replies, codes = probe.replies, probe.codes
        oversized = probe.size > LIMIT
        if oversized:
            replies, codes = frozenset({"error"}), frozenset({"too_large"})
        kind = reply.get("type")
        got = f"got {short(reply)}"
        if kind not in replies:
            flag(f"{'accepted' if kind == 'ack' else 'unexpected reply'}", probe, f"wanted {sorted(replies)}; {got}")
        if wanted_id is not None and reply.get("id") != wanted_id:
            flag("reply does not name the id", probe, f"wanted id {wanted_id!r}; {got}")
        if kind == "error":
            code, text = reply.get("code"), reply.get("message")
            if not (isinstance(code, str) and CODE.fullmatch(code)):
                flag("error code not stable", probe, got)
            elif codes and code not in codes:
                flag("unexpected error code", probe, f"wanted {sorted(codes)}; {got}")
            if not (isinstance(text, str) and text.strip()):
                flag("error without a message", probe, got)
        elif kind == "ack":
            seq = reply.get("seq")
            if probe.replay is not None and not oversized:
                if seq != probe.replay:
                    flag("replay acknowledged with another seq", probe, f"wanted seq {probe.replay}; {got}")
            else:
                if seq != next_seq:
                    flag("ack seq", probe, f"wanted seq {next_seq}; {got}")
                next_seq += 1
                self.accepted.append((reply.get("id", ""), next_seq - 1))
                if probe.chat is not None:
                    said.append(probe.chat)
        elif kind == "legal" and not isinstance(reply.get("actions"), list):
            flag("legal without actions", probe, got)
        return next_seq


async def storm_room(server: LiveServer, tally: Tally, rng: random.Random) -> dict[str, Any]:
    """Room A: three people; the middle one (not the host) storms in each phase of a round, the
    host storms the clue phase; then they play the game to its end. Its final room."""
    code, clients = await seated(
        server, ["Host", "Fuzz", "Third"], mode="odyssey", options={"storyteller_cycles": 1, "first_storyteller": 0}
    )
    host, fuzz, third = clients
    tokens = [client.token or "" for client in clients]
    assert (await host.request({"type": "start"}))["type"] == "ack"
    await all_see(clients, lambda room: room["game"]["phase"] == "clue")
    fuzzer = Stormer(server, code, fuzz, member=1, tally=tally)
    hoster = Stormer(server, code, host, member=0, tally=tally)

    async def table(member: int, tag: str) -> Table:
        mine = [tokens[member]] + [t for m, t in enumerate(tokens) if m != member]
        return await on_server(server, lambda: read_table(server, code, member, tag, mine))

    # the clue phase: the host is the storyteller, the others wait
    await fuzzer.storm(Hostile(rng, await table(1, "a"), fuzzer.accepted), 1_000)
    await hoster.storm(Hostile(rng, await table(0, "h"), hoster.accepted), 400)
    assert (await move_once(hoster.client, rng) or {}).get("type") == "ack"
    await all_see([hoster.client, fuzzer.client, third], lambda room: room["game"]["phase"] == "play")
    # the play phase: the fuzzer has to play two cards
    await fuzzer.storm(Hostile(rng, await table(1, "b"), fuzzer.accepted), 1_100)
    for mover in (fuzzer.client, third):
        assert (await move_once(mover, rng) or {}).get("type") == "ack"
    await all_see([hoster.client, fuzzer.client, third], lambda room: room["game"]["phase"] == "vote")
    # the vote: slots out of range, its own card, two tokens where one is allowed
    await fuzzer.storm(Hostile(rng, await table(1, "c"), fuzzer.accepted), 1_100)
    finals = await asyncio.gather(
        *(play_to_end(c, random.Random(n)) for n, c in enumerate([hoster.client, fuzzer.client, third]))
    )
    assert all(room["status"] == "over" for room in finals)
    live = await live_record(server, code)
    rebuilt = await on_server_await(server, server.service.rooms.rebuild(code))
    stored = await on_server_await(server, server.service.rooms.store.load(code))
    assert len(stored) == live["seq"]
    assert differences(live, room_record(rebuilt)) == [], "the stored log rebuilds the room exactly"
    return finals[0]


async def normal_room(server: LiveServer) -> list[dict[str, Any]]:
    """Room B: three people play a whole game while room A is stormed. Every seat's final room."""
    code, clients = await seated(server, ["Ana", "Bea", "Cy"], mode="odyssey", options={"storyteller_cycles": 2})
    assert (await clients[0].request({"type": "start"}))["type"] == "ack"
    finals = await asyncio.gather(*(play_to_end(c, random.Random(100 + n), timeout=50) for n, c in enumerate(clients)))
    async with httpx.AsyncClient(base_url=server.url) as http:
        log = (await http.get(f"/api/rooms/{code}/log")).json()
    assert log["scores"] == finals[0]["game"]["scores"]
    live = await live_record(server, code)
    rebuilt = await on_server_await(server, server.service.rooms.rebuild(code))
    assert differences(live, room_record(rebuilt)) == []
    for client in clients:
        await client.close()
    return finals


@pytest.mark.anyio
async def test_a_storm_of_hostile_messages_changes_nothing_while_another_room_plays_on(tmp_path: Path) -> None:
    tally = Tally()
    started = time.perf_counter()
    with live_server(tmp_path / "data", **NO_RATE_LIMIT) as server, internal_errors() as errors:
        stormed, finals = await asyncio.gather(storm_room(server, tally, random.Random(20240611)), normal_room(server))
    total = sum(tally.sent.values())
    print(f"{total} hostile messages in {time.perf_counter() - started:.1f} s: {dict(sorted(tally.sent.items()))}")
    problems = tally.report()
    if errors:
        problems += "\nthe server logged internal errors:\n" + describe(errors)
    assert not problems, f"{total} hostile messages, {tally.drops} dropped connections:\n{problems}"
    assert total >= 3_000
    assert stormed["status"] == "over"
    assert stormed["game"]["outcome"] is not None
    # the other room: a normal game, to its end, every seat agreeing
    assert all(room["status"] == "over" for room in finals)
    assert len({tuple(room["game"]["scores"]) for room in finals}) == 1
    assert finals[0]["game"]["outcome"]["winners"]


# ---------------------------------------------------------------------------------------- tokens


@pytest.mark.anyio
async def test_a_seat_is_taken_only_with_its_own_token_in_its_own_room(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        code_a, (host_a, guest_a) = await seated(server, ["Ana", "Bo"])
        code_b, (host_b,) = await seated(server, ["Cy"])
        token_a, token_b = host_a.token or "", host_b.token or ""
        made_up = ["", " ", "x", "A" * 32, token_a[:-1], token_a + "x", token_a.swapcase(), f" {token_a}"]
        made_up += ["\x00", "<script>", "€" * 1000, "x" * 10_000, token_a.encode().hex()]
        for room, token in [*((code_a, t) for t in made_up), (code_a, token_b), (code_b, token_a)]:
            client = Client(server.url, room, token)
            reply = await client.connect()
            assert (reply["type"], reply["code"]) == ("error", "bad_token"), (room, token)
            assert reply["id"].endswith("-m0"), "the error names the hello's id"
            # the connection goes on, still a stranger: nothing but hello is answered
            assert (await client.request({"type": "ping"}))["code"] == "hello_first"
            assert (await client.request({"type": "say", "text": "hi"}))["code"] == "hello_first"
            await client.close()
        # after a wrong token, the right one takes the seat on the same connection
        client = Client(server.url, code_a, "wrong")
        assert (await client.connect())["code"] == "bad_token"
        welcome = await client.request({"type": "hello", "token": token_a}, reply_types=("welcome", "error"))
        assert (welcome["type"], welcome["member"]) == ("welcome", 0)
        # a greeted connection cannot switch seats with another seat's token
        for other_token in [guest_a.token, token_b, None]:
            again = await client.request({"type": "hello", "token": other_token}, reply_types=("welcome", "error"))
            assert (again["type"], again["code"]) == ("error", "already_greeted")
        said = await client.request({"type": "say", "text": "still me"})
        assert said["type"] == "ack"
        line = await guest_a.wait_for(lambda m: m["type"] == "chat" and m["text"] == "still me")
        assert line["member"] == 0
        # a kicked member's token no longer opens the room (and says why: removed)
        assert (await host_a.request({"type": "kick", "member": 1}))["type"] == "ack"
        kicked = Client(server.url, code_a, guest_a.token)
        assert (await kicked.connect())["code"] == "removed"
        # a room that does not exist: refused, and the connection closed
        nowhere = Client(server.url, "ZZZZZ", token_a)
        assert (await nowhere.connect())["code"] == "no_room"
        await asyncio.wait_for(nowhere.close(), 5)
        assert nowhere.socket is not None
        assert nowhere.socket.close_code == 4404
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_spectators_only_watch(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        code, (host,) = await seated(server, ["Host"], mode="odyssey")
        for _ in range(2):
            assert (await host.request({"type": "add_bot"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        watcher = Client(server.url, code, None)
        welcome = await watcher.connect()
        assert (welcome["type"], welcome["member"]) == ("welcome", None)
        room = await watcher.wait_state(lambda room: room["game"] is not None)
        assert room["you"] is None
        assert room["game"]["hand"] is None
        before = await live_record(server, code)
        messages: list[dict[str, Any]] = [
            {"type": "act", "action": {"type": "vote", "slots": [1]}},
            {"type": "act", "action": {"type": "tell", "seat": 0, "card": "fabula-1", "clue": "x"}},
            {"type": "say", "text": "I am watching"},
            {"type": "legal"},
            {"type": "leave"},
            {"type": "start"},
            {"type": "rematch"},
            {"type": "add_bot"},
            {"type": "kick", "member": 0},
            {"type": "pass_host", "member": 0},
            {"type": "settings", "settings": {}},
            {"type": "teams", "pairs": []},
        ]
        for message in messages:
            reply = await watcher.request(message)
            assert (reply["type"], reply["code"]) == ("error", "spectator"), message
            assert reply["message"]
        assert (await watcher.request({"type": "ping"}))["type"] == "pong"
        hello = await watcher.request({"type": "hello", "token": host.token}, reply_types=("welcome", "error"))
        assert hello["code"] == "already_greeted"
        after = await live_record(server, code)
        # the bots may have moved meanwhile: compare what a spectator cannot touch
        for key in ("host", "members", "settings", "chat", "client_ids", "games_started"):
            assert after[key] == before[key], key
    assert not errors, describe(errors)


# ---------------------------------------------------------------------------------------- limits


@pytest.mark.anyio
async def test_the_message_rate_of_a_connection_is_limited(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", messages_per_second=5, message_burst=10) as server, internal_errors() as errors:
        code, (host,) = await seated(server, ["Host"])
        start = len(host.received)
        ids = [f"burst{n}" for n in range(50)]
        for message_id in ids:
            await host.send_raw(json.dumps({"type": "ping", "id": message_id}))

        def replies() -> list[dict[str, Any]]:
            return [m for m in host.received[start:] if m["type"] in REPLY_TYPES]

        await host.wait_for(lambda _m: len(replies()) >= 50, start=start, timeout=5)
        with pytest.raises(TimeoutError):  # every ping has its one reply: no more come
            await host.wait_for(lambda _m: len(replies()) > 50, start=start, timeout=0.3)
        assert len(replies()) == 50
        replies_now = replies()
        pongs = [m for m in replies_now if m["type"] == "pong"]
        refused = [m for m in replies_now if m["type"] == "error"]
        assert 8 <= len(pongs) <= 12, replies_now  # the burst, less the hello
        assert all(m["type"] == "pong" for m in replies_now[:8]), "the first ones pass, the rest are refused"
        assert {m["code"] for m in refused} == {"rate_limited"}
        assert all(m["message"] and m["id"] in (None, *ids) for m in refused)
        # the limit is this connection's: another one is served at once
        other = Client(server.url, code, host.token)
        await other.connect()
        assert (await other.request({"type": "ping"}))["type"] == "pong"
        # and the connection goes on: after a pause it is served again
        await asyncio.sleep(0.6)
        assert (await host.request({"type": "ping"}))["type"] == "pong"
        assert (await host.request({"type": "add_bot"}))["type"] == "ack"
    assert not errors, describe(errors)


async def connect_outcome(url: str, headers: dict[str, str] | None = None) -> str:
    """'open', 'http <status>' (handshake refused), or 'closed <code>' (closed after accepting)."""
    try:
        socket = await websockets.connect(url, additional_headers=headers)
    except websockets.InvalidStatus as refused:
        return f"http {refused.response.status_code}"
    try:
        await asyncio.wait_for(socket.recv(), 0.3)
    except websockets.ConnectionClosed as closed:
        return f"closed {closed.rcvd.code if closed.rcvd else 1006}"
    except TimeoutError:
        pass
    await socket.close()
    return "open"


@pytest.mark.anyio
async def test_websocket_origin_is_checked(tmp_path: Path) -> None:
    with (
        live_server(tmp_path / "data", allow_origin=("https://ok.example",)) as server,
        internal_errors() as errors,
    ):
        seat = await create_room(server.url, "Host", "red")
        ws_url = server.url.replace("http", "ws", 1) + f"/ws/{seat['code']}"
        for origin in [
            "http://evil.example",
            "https://ok.example.evil.example",
            "https://evil.example/https://ok.example",
            f"http://127.0.0.1:{server.port}.evil.example",
            f"http://127.0.0.1:{server.port + 1}",
            "null",
            "",
        ]:
            outcome = await connect_outcome(ws_url, {"Origin": origin})
            assert outcome in ("http 403", "closed 4403"), (origin, outcome)
        allowed: list[str | None] = [server.url, f"{server.url}/", "https://ok.example", None]
        for allowed_origin in allowed:
            client = Client(server.url, seat["code"], seat["token"])
            welcome = await client.connect(**({"Origin": allowed_origin} if allowed_origin else {}))
            assert welcome["type"] == "welcome", allowed_origin
            await client.close()
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_origin_defaults_to_the_server_itself(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        ws_url = server.url.replace("http", "ws", 1) + "/ws/ABCDE"
        assert await connect_outcome(ws_url, {"Origin": "https://ok.example"}) in ("http 403", "closed 4403")
        assert await connect_outcome(ws_url, {"Origin": "http://evil.example"}) in ("http 403", "closed 4403")
        assert await connect_outcome(ws_url, {"Origin": server.url}) == "open"
        assert await connect_outcome(ws_url) == "open"
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_connections_and_rooms_per_address_are_bounded(tmp_path: Path) -> None:
    bounds = {"max_connections_per_address": 3, "max_rooms_per_address": 2}
    with live_server(tmp_path / "data", **bounds) as server, internal_errors() as errors:
        seat = await create_room(server.url, "Host", "red")
        clients = [Client(server.url, seat["code"], seat["token"]) for _ in range(3)]
        for client in clients:
            assert (await client.connect())["type"] == "welcome"
        ws_url = server.url.replace("http", "ws", 1) + f"/ws/{seat['code']}"
        assert await connect_outcome(ws_url) == "closed 4429"
        # the three held go on
        for client in clients:
            assert (await client.request({"type": "ping"}))["type"] == "pong"
        await clients[0].close()
        for _ in range(100):  # the server notices the close
            if await on_server(server, lambda: sum(server.service.conversation.admission.held.values())) < 3:
                break
            await asyncio.sleep(0.02)
        again = Client(server.url, seat["code"], seat["token"])
        assert (await again.connect())["type"] == "welcome"
        # rooms: the third one from the same address is refused
        async with httpx.AsyncClient(base_url=server.url) as http:
            second = await http.post("/api/rooms", json={"name": "B", "colour": "red"})
            assert second.status_code == 201
            third = await http.post("/api/rooms", json={"name": "C", "colour": "red"})
            assert third.status_code == 429
            assert third.json()["error"]["code"] == "too_many_rooms"
            assert third.json()["error"]["message"]
            # joining is not creating
            assert (
                await http.post(f"/api/rooms/{seat['code']}/join", json={"name": "D", "colour": "blue"})
            ).status_code == 201
        assert len(server.service.rooms.held) == 2
    assert not errors, describe(errors)


# ---------------------------------------------------------------------------------------- bugs, one by one


@pytest.mark.anyio
async def test_deeply_nested_json_gets_an_error_not_a_dropped_connection(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        _, (host,) = await seated(server, ["Host"])
        for depth in (100, 2_000, 5_000):
            start = len(host.received)
            nested = "[" * depth + "]" * depth
            await host.send_raw('{"type": "act", "id": "deep", "action": {"type": "vote", "slots": ' + nested + "}}")
            reply = await host.wait_for(lambda m: m["type"] == "error", start=start, timeout=5)
            assert reply["code"]
            assert reply["message"]
            assert (await host.request({"type": "ping"}))["type"] == "pong"
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_the_message_limit_counts_bytes(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        _, (host,) = await seated(server, ["Host"])
        text = "€" * 6_000  # 6,000 characters, 18,000 bytes
        start = len(host.received)
        await host.send_raw(json.dumps({"type": "say", "id": "big", "text": text}, ensure_ascii=False))
        reply = await host.wait_for(lambda m: m["type"] == "error", start=start, timeout=5)
        assert reply["code"] == "too_large", reply
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_an_error_names_the_id_of_standard_json_the_server_cannot_use(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        _, (host,) = await seated(server, ["Host"])
        for data in [
            '{"type": "kick", "id": "overflow", "member": 1e400}',
            '{"type": "say", "id": "surrogate", "text": "a\\ud800b"}',
        ]:
            message_id = json.loads(data)["id"]
            start = len(host.received)
            await host.send_raw(data)
            reply = await host.wait_for(lambda m: m["type"] == "error", start=start, timeout=5)
            assert reply["id"] == message_id, (data, reply)
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_an_action_is_stored_as_the_game_read_it(tmp_path: Path) -> None:
    """An action's unknown fields are refused, or at least never stored: the log keeps moves, not
    whatever a client attached to them."""
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        code, (host,) = await seated(server, ["Host"], options={"first_storyteller": 0, "storyteller_cycles": 1})
        for _ in range(2):
            await host.request({"type": "add_bot"})
        await host.request({"type": "start"})
        room = await host.wait_state(lambda room: room["game"] is not None)
        card = room["game"]["hand"][0]
        junk = {"note": "<script>alert(1)</script>" * 200}
        reply = await host.request({"type": "act", "action": {"type": "tell", "card": card, "clue": "Moon", **junk}})
        if reply["type"] == "error":
            assert reply["code"] == "malformed"
        else:
            stored = await on_server_await(server, server.service.rooms.store.load(code))
            assert "<script>" not in stored[reply["seq"]].data.decode()
    assert not errors, describe(errors)


@pytest.mark.anyio
async def test_a_clue_is_shown_without_control_or_format_characters(tmp_path: Path) -> None:
    """Like names and chat: a bidi override or a line separator in a clue is removed (or the
    clue refused), never shown to the table."""
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        _, (host,) = await seated(server, ["Host"], options={"first_storyteller": 0, "storyteller_cycles": 1})
        for _ in range(2):
            await host.request({"type": "add_bot"})
        await host.request({"type": "start"})
        room = await host.wait_state(lambda room: room["game"] is not None)
        hand = room["game"]["hand"]
        reply = await host.request(
            {"type": "act", "action": {"type": "tell", "card": hand[0], "clue": "Moon\u202e\u2028rise\u200b"}}
        )
        if reply["type"] == "ack":
            room = await host.wait_state(lambda room: room["game"] is not None and room["game"]["clue"] is not None)
            assert is_clean(room["game"]["clue"], 200), room["game"]["clue"]
        else:
            assert reply["code"].startswith("clue")
    assert not errors, describe(errors)


# ---------------------------------------------------------------------------------------- HTTP


def http_error(response: httpx.Response) -> str | None:
    """The error code of a refused request, after checking its shape; None for a success."""
    assert response.status_code < 500, f"{response.status_code}: {response.text[:300]}"
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    if response.status_code < 300:
        assert {"code", "member", "token"} <= set(body)
        return None
    assert 400 <= response.status_code < 500
    error = body["error"]
    assert set(error) == {"code", "message"}
    assert isinstance(error["code"], str)
    assert CODE.fullmatch(error["code"]), error
    assert isinstance(error["message"], str)
    assert error["message"].strip()
    code: str = error["code"]
    return code


def rooms_are_sound(server: LiveServer) -> list[str]:
    """Every room has its creator seated, and every name is clean text (run on the server loop)."""
    problems = []
    for code, live in server.service.rooms.held.items():
        if not live.room.members:
            problems.append(f"room {code} has nobody in it")
        problems += [
            f"room {code}: name {m.name!r}" for m in live.room.members.values() if not is_clean(m.name, NAME_MAX)
        ]
    return problems


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


OK = {"name": "Ana", "colour": "red"}
#: (what, body, the error codes allowed)
CREATE_CASES: list[tuple[str, bytes | object, set[str]]] = [
    ("not JSON", b"not json", {"malformed"}),
    ("half JSON", b'{"name": "A"', {"malformed"}),
    ("a form", b"name=A&colour=red", {"malformed"}),
    ("bad UTF-8", b'{"name": "\xff", "colour": "red"}', {"malformed"}),
    ("NUL bytes", b"\x00\x00", {"malformed"}),
    ("an array", [OK], {"malformed"}),
    ("a string", "Ana", {"malformed"}),
    ("a number", 5, {"malformed"}),
    ("null", None, {"malformed"}),
    ("empty", b"", {"malformed"}),
    ("over 16 KB", {**OK, "pad": "x" * BODY_MAX}, {"too_large"}),
    ("1 MB", b"x" * 1_000_000, {"too_large"}),
    ("deep JSON", nested(5_000).encode(), {"malformed"}),
    ("deep name", {**OK, "name": json.loads(nested(500))}, {"malformed"}),
    ("deep JSON in a name", b'{"colour": "red", "name": ' + nested(3_000).encode() + b"}", {"malformed"}),
    ("name a number", {**OK, "name": 5}, {"malformed"}),
    ("name null", {**OK, "name": None}, {"malformed"}),
    ("name a list", {**OK, "name": ["Ana"]}, {"malformed"}),
    ("name an object", {**OK, "name": {"first": "Ana"}}, {"malformed"}),
    ("name true", {**OK, "name": True}, {"malformed"}),
    ("no name", {"colour": "red"}, {"malformed"}),
    ("name empty", {**OK, "name": ""}, {"name_empty"}),
    ("name spaces", {**OK, "name": "   \t \n"}, {"name_empty"}),
    ("name controls", {**OK, "name": "\x00\x01\x1b\x7f\x85"}, {"name_empty"}),
    ("name bidi only", {**OK, "name": "\u202e\u202d\u2066\u200b\ufeff"}, {"name_empty"}),
    ("name too long", {**OK, "name": "a" * (NAME_MAX + 1)}, {"name_too_long"}),
    ("name too long, accents", {**OK, "name": "é" * (NAME_MAX + 1)}, {"name_too_long"}),
    ("name script", {**OK, "name": "<script>alert(1)</script>"}, {"name_too_long"}),
    ("name only a surrogate", {**OK, "name": "\udfff"}, {"name_empty"}),
    ("colour a number", {**OK, "colour": 5}, {"unknown_colour", "malformed"}),
    ("colour a list", {**OK, "colour": ["red"]}, {"unknown_colour", "malformed"}),
    ("colour null", {**OK, "colour": None}, {"unknown_colour", "malformed"}),
    ("colour missing", {"name": "Ana"}, {"unknown_colour", "malformed"}),
    ("colour capitals", {**OK, "colour": "RED"}, {"unknown_colour"}),
    ("colour padded", {**OK, "colour": " red"}, {"unknown_colour"}),
    ("colour unknown", {**OK, "colour": "turquoise"}, {"unknown_colour"}),
    ("colour surrogate", {**OK, "colour": "\ud800"}, {"unknown_colour"}),
    ("settings a string", {**OK, "settings": "odyssey"}, {"bad_settings"}),
    ("settings a list", {**OK, "settings": []}, {"bad_settings"}),
    ("settings a number", {**OK, "settings": 1}, {"bad_settings"}),
    ("settings unknown field", {**OK, "settings": {"mod": "odyssey"}}, {"bad_settings"}),
    ("settings extra field", {**OK, "settings": {"mode": "odyssey", "x": 1}}, {"bad_settings"}),
    ("settings __proto__", {**OK, "settings": {"__proto__": {"admin": True}}}, {"bad_settings"}),
    ("mode unknown", {**OK, "settings": {"mode": "chess"}}, {"unknown_mode"}),
    ("mode empty", {**OK, "settings": {"mode": ""}}, {"unknown_mode"}),
    ("mode capitals", {**OK, "settings": {"mode": "ODYSSEY"}}, {"unknown_mode"}),
    ("mode a number", {**OK, "settings": {"mode": 5}}, {"bad_settings"}),
    ("mode null", {**OK, "settings": {"mode": None}}, {"bad_settings"}),
    ("options a list", {**OK, "settings": {"options": []}}, {"bad_settings"}),
    ("option unknown", {**OK, "settings": {"options": {"bogus": 1}}}, {"unknown_option"}),
    ("option a string", {**OK, "settings": {"options": {"target_score": "8"}}}, {"bad_option"}),
    ("option zero", {**OK, "settings": {"options": {"target_score": 0}}}, {"bad_option"}),
    ("option negative", {**OK, "settings": {"options": {"decoy_cap": -1}}}, {"bad_option"}),
    ("option a bool", {**OK, "settings": {"options": {"target_score": True}}}, {"bad_option"}),
    ("option a float", {**OK, "settings": {"options": {"target_score": 1.5}}}, {"bad_option"}),
    ("option NaN", {**OK, "settings": {"options": {"target_score": float("nan")}}}, {"bad_option"}),
    ("option choice", {**OK, "settings": {"options": {"found_if": "sometimes"}}}, {"bad_option"}),
    ("option other mode", {**OK, "settings": {"options": {"party_red_target": "any"}}}, {"option_not_for_mode"}),
    ("option no seat", {**OK, "settings": {"options": {"first_storyteller": 99}}}, {"bad_option"}),
    ("option never ends", {**OK, "settings": {"options": {"target_score": None}}}, {"no_end_condition"}),
    ("decks none", {**OK, "settings": {"decks": []}}, {"bad_decks"}),
    ("decks unknown", {**OK, "settings": {"decks": ["nope"]}}, {"bad_decks"}),
    ("decks twice", {**OK, "settings": {"decks": ["fabula", "fabula"]}}, {"bad_decks"}),
    ("decks a path", {**OK, "settings": {"decks": ["../../etc"]}}, {"bad_decks"}),
    ("decks markup", {**OK, "settings": {"decks": ["<script>"]}}, {"bad_decks"}),
    ("decks surrogate", {**OK, "settings": {"decks": ["\ud800"]}}, {"bad_decks", "bad_settings"}),
    ("decks a string", {**OK, "settings": {"decks": "fabula"}}, {"bad_settings"}),
    ("decks numbers", {**OK, "settings": {"decks": [1]}}, {"bad_settings"}),
    ("timer short", {**OK, "settings": {"clue_seconds": 5}}, {"bad_timer", "bad_settings"}),
    ("timer long", {**OK, "settings": {"vote_seconds": 10**6}}, {"bad_timer", "bad_settings"}),
    ("timer negative", {**OK, "settings": {"play_seconds": -1}}, {"bad_timer", "bad_settings"}),
    ("timer a string", {**OK, "settings": {"clue_seconds": "60"}}, {"bad_settings"}),
    ("timer a float", {**OK, "settings": {"clue_seconds": 60.5}}, {"bad_settings"}),
    ("timer a bool", {**OK, "settings": {"clue_seconds": True}}, {"bad_settings"}),
    ("timer huge", {**OK, "settings": {"clue_seconds": 10**30}}, {"bad_settings", "bad_timer"}),
    ("timer NaN", {**OK, "settings": {"clue_seconds": float("nan")}}, {"bad_settings"}),
]
#: (name sent, the name the room must keep)
CLEANED_NAMES = [
    ("  Mara  ", "Mara"),
    ("Mara\u202e", "Mara"),
    ("A\nB", "AB"),
    ("\u200bAna\u200d", "Ana\u200d"),  # the joiner stays: emoji sequences need it
    ("Ana\ud800", "Ana"),  # a lone surrogate goes like any invisible character
    ("Bo\x00b", "Bob"),
    ("a" * NAME_MAX, "a" * NAME_MAX),
    ("<img src=x onerror=x>", "<img src=x onerror=x>"),
    ("<script>x</script>", "<script>x</script>"),
    ("Ω\u2028Ж", "Ω Ж"),
]


def as_body(body: bytes | object) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


@pytest.mark.anyio
async def test_hostile_http_bodies_get_a_json_error_never_a_500(tmp_path: Path) -> None:
    failures: list[str] = []
    with live_server(tmp_path / "data", max_rooms_per_address=1_000) as server, internal_errors() as errors:
        lobby = (await create_room(server.url, "Host", "red"))["code"]
        # one connection per request: a 500 closes the connection it came on
        async with httpx.AsyncClient(base_url=server.url, headers={"Connection": "close"}) as http:
            for path in ["/api/rooms", f"/api/rooms/{lobby}/join"]:
                for what, body, codes in CREATE_CASES:
                    sent = body
                    if path != "/api/rooms":
                        if what.startswith(("settings", "mode", "option", "decks", "timer")):
                            continue
                        if isinstance(body, dict) and body.get("colour") == "red":
                            sent = {**body, "colour": "pink"}  # red is the host's
                    try:
                        response = await http.post(path, content=as_body(sent))
                    except httpx.TransportError as error:
                        failures.append(f"POST {path} {what}: the connection failed: {error!r}")
                        continue
                    try:
                        code = http_error(response)
                        assert code in codes, f"code {code}, wanted {sorted(codes)}"
                    except (AssertionError, ValueError, KeyError) as failed:
                        failures.append(f"POST {path} {what}: {failed} ({response.status_code} {response.text[:200]})")
            for path in ["/api/rooms/ZZZZZ/join", "/api/rooms/%3Cscript%3E/join", "/api/rooms/%00/join"]:
                response = await http.post(path, json={"name": "Ana", "colour": "pink"})
                if response.status_code != 404 or http_error(response) != "no_room":
                    failures.append(f"POST {path}: {response.status_code} {response.text[:200]}")
            for path in [
                "/api/rooms/ZZZZZ",
                "/api/rooms/%3Cscript%3E",
                "/api/rooms/ZZZZZ/log",
                "/api/rooms/ZZZZZ/qr.svg",
                "/api/rooms/ZZZZZ/cards",
            ]:
                response = await http.get(path)
                if response.status_code != 404 or http_error(response) != "no_room":
                    failures.append(f"GET {path}: {response.status_code} {response.text[:200]}")
            # names are cleaned, kept as plain text, and given back as data
            for sent, kept in CLEANED_NAMES:
                # json.dumps escapes a lone surrogate (httpx's json= cannot encode one)
                body = json.dumps({"name": sent, "colour": "red"})
                response = await http.post("/api/rooms", content=body, headers={"content-type": "application/json"})
                if response.status_code != 201:
                    failures.append(f"name {sent!r}: {response.status_code} {response.text[:200]}")
                    continue
                code = response.json()["code"]
                summary = (await http.get(f"/api/rooms/{code}")).json()
                if [m["name"] for m in summary["members"]] != [kept]:
                    failures.append(f"name {sent!r} kept as {summary['members']}, wanted {kept!r}")
                for page in [f"/join/{code}", f"/room/{code}"]:
                    if kept in (await http.get(page)).text:
                        failures.append(f"name {kept!r} written into the HTML page {page}")
        failures += await on_server(server, lambda: rooms_are_sound(server))
    if errors:
        failures.append("the server logged internal errors:\n" + describe(errors))
    assert not failures, "\n".join(failures)


@pytest.mark.anyio
async def test_markup_in_names_and_chat_is_data(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server, internal_errors() as errors:
        name, text = "<script>x</script>", "<script>alert(1)</script><img src=x onerror=alert(2)>"
        code, (host,) = await seated(server, [name])
        assert host.room is not None
        assert host.room["members"][0]["name"] == name
        reply = await host.request({"type": "say", "text": text})
        assert reply["type"] == "ack"
        line = await host.wait_for(lambda m: m["type"] == "chat")
        assert (line["name"], line["text"]) == (name, text)
        assert any(json.dumps(text) in raw for raw in host.raw), "sent as a JSON string"
        async with httpx.AsyncClient(base_url=server.url) as http:
            summary = await http.get(f"/api/rooms/{code}")
            assert summary.headers["content-type"].startswith("application/json")
            assert summary.json()["members"][0]["name"] == name
            qr = await http.get(f"/api/rooms/{code}/qr.svg")
            assert "<script>" not in qr.text
            for page in [f"/join/{code}", f"/room/{code}", f"/room/{code}/board"]:
                assert name not in (await http.get(page)).text
    assert not errors, describe(errors)


_odd_text = st.text(st.characters(categories=["Cc", "Cf", "Cs", "Zl", "Zp", "Zs", "Mn", "Co", "Lo", "So"]), max_size=30)
_json_leaves = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30) | st.sampled_from(NASTY) | _odd_text
)
_json = st.recursive(
    _json_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_names = (
    st.text(max_size=30)
    | _odd_text
    | st.sampled_from(NASTY)
    | (st.text(min_size=1, max_size=10) | _odd_text).map(lambda text: "Ana" + text)
)
_settings = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(["odyssey", "classic", "party", "teams", "chess", ""]) | _json,
        "options": st.dictionaries(
            st.sampled_from(["target_score", "storyteller_cycles", "first_storyteller", "found_if", "decoy_cap", "x"]),
            st.integers(-3, 40) | _json,
            max_size=3,
        ),
        "decks": st.lists(st.sampled_from(["fabula", "nope", ""]) | _odd_text, max_size=10),
        "clue_seconds": st.integers(-5, 5_000) | st.none(),
    },
)
_well_formed = st.fixed_dictionaries(
    {"name": _names, "colour": st.sampled_from(COLOURS)},
    optional={"settings": st.none() | _settings | _json, "extra": _json},
)
_anything = st.fixed_dictionaries(
    {}, optional={"name": _names | _json, "colour": st.sampled_from(COLOURS) | _json, "settings": _settings | _json}
)
_bodies = st.one_of(
    _well_formed.map(lambda body: json.dumps(body).encode()),
    _well_formed.map(lambda body: json.dumps(body).encode()),
    _anything.map(lambda body: json.dumps(body).encode()),
    _json.map(lambda body: json.dumps(body).encode()),
    st.binary(max_size=200),
)


def test_random_http_bodies_never_break_the_server(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", max_rooms_per_address=10**6) as server, internal_errors() as errors:
        with httpx.Client(base_url=server.url) as http:
            lobby = http.post("/api/rooms", json={"name": "Host", "colour": "red"}).json()["code"]

            @hypothesis.settings(
                max_examples=300,
                derandomize=True,
                database=None,
                deadline=None,
                phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
                suppress_health_check=list(hypothesis.HealthCheck),
            )
            @hypothesis.given(body=_bodies, join=st.booleans())
            def check(body: bytes, join: bool) -> None:
                path = f"/api/rooms/{lobby}/join" if join else "/api/rooms"
                http_error(http.post(path, content=body))
                assert not errors, describe(errors)

            check()
        assert on_server_now(server, lambda: rooms_are_sound(server)) == []
    assert not errors, describe(errors)
