"""Write docs/protocol.md: the play protocol, generated from the code that implements it.

    python tools/protocol_doc.py          # (re)write docs/protocol.md
    python tools/protocol_doc.py --check  # exit 1 if docs/protocol.md is not what this would write

Nothing in the page is typed by hand that the code can say itself: the JSON Schemas come from the
msgspec models (`fabula.protocol.schemas`), limits from the modules and `Config` defaults,
the error codes from their enums (`fabula.errors.ErrorCode`), the fields of a state and what
each means from the types (`msgspec.Meta` descriptions), and the worked exchange from a real
server run in this process with a fixed clock, seeds and seat tokens, so that two runs write the
same bytes. The script refuses to run when a message or a field has no description in its type.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import dataclasses
import difflib
import inspect
import itertools
import json
import random
import re
import sys
import tempfile
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

import fabula.server.rooms as rooms_module
import fabula.server.seats as seats_module
from fabula import protocol
from fabula.client import Client, Received, encode
from fabula.errors import CommonCode, ErrorCode, Reach
from fabula.protocol import Hello, ProtocolCode
from fabula.protocol.settings import TIMER_RANGE, RoomSettings
from fabula.protocol.snapshot import RoomSnapshot
from fabula.rules import CLUE_MAX, MODES, Game
from fabula.rules.actions import Action, BlindClue, Tell
from fabula.rules.errors import RuleCode
from fabula.rules.views import SeatView
from fabula.server import app as app_module
from fabula.server import card_routes, responses, room_routes, room_settings
from fabula.server import connections as connections_module
from fabula.server import room as room_module
from fabula.server.app import create_app
from fabula.server.config import Config
from fabula.server.errors import RoomCode
from fabula.server.local import WS_HARD_LIMIT, serving
from fabula.server.pictures import PictureCode

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
#: Columns a pretty-printed JSON value may use before it is broken over lines.
WIDTH = 100

# ====================================================================== JSON for people


def flat(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def pretty(value: Any, indent: int = 0, used: int = 0) -> str:
    """``value`` as JSON, on one line when it fits in `WIDTH` (``used``: columns already taken on
    its first line), else broken over lines, objects and arrays one member a line."""
    one_line = flat(value)
    if not isinstance(value, dict | list) or not value or indent + used + len(one_line) <= WIDTH:
        return one_line
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            head = f"{flat(key)}: "
            parts.append(inner + head + pretty(item, indent + 2, len(head)))
        return "{\n" + ",\n".join(parts) + "\n" + " " * indent + "}"
    if any(isinstance(item, dict | list) for item in value):
        return "[\n" + ",\n".join(inner + pretty(item, indent + 2) for item in value) + "\n" + " " * indent + "]"
    rows: list[str] = []  # an array of plain values: as many a line as fit
    for item in value:
        piece = flat(item)
        if rows and len(inner) + len(rows[-1]) + len(piece) + 2 <= WIDTH:
            rows[-1] += f", {piece}"
        else:
            rows[-1:] = [rows[-1] + ",", piece] if rows else [piece]
    return "[\n" + "\n".join(inner + row for row in rows) + "\n" + " " * indent + "]"


def block(text: str, language: str = "") -> str:
    return f"```{language}\n{text}\n```"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def prose(text: str) -> str:
    """A docstring as Markdown: paragraphs on one line each, a ``- `` line kept as a list item,
    examples (from the first ``>>>``) left out, reST ``literals`` as `code`."""
    lines = inspect.cleandoc(text).splitlines()
    examples = next((i for i, line in enumerate(lines) if line.lstrip().startswith(">>>")), len(lines))
    paragraphs = []
    for paragraph in "\n".join(lines[:examples]).split("\n\n"):
        items = re.split(r"\n(?=\s*- )", paragraph.strip())
        paragraphs.append("\n".join(" ".join(item.split()) for item in items))
    return "\n\n".join(p for p in paragraphs if p).replace("``", "`")


def docstring(cls: type) -> str:
    """The first paragraph of the class's own docstring (not one inherited) as one line of
    Markdown (reST ``literals`` as `code`)."""
    own = cls.__dict__.get("__doc__") or ""
    text = " ".join(inspect.cleandoc(own).split("\n\n")[0].split())
    return text.replace("``", "`")


# ====================================================================== the worked exchange


class CountingClock:
    """Unix time for the server: 1_800_000_000.0 at the first reading, one second more at each."""

    def __init__(self, start: float) -> None:
        self.next = start

    def __call__(self) -> float:
        now, self.next = self.next, self.next + 1.0
        return now


def seeded_tokens(seed: int) -> Callable[[], str]:
    """Seat tokens from a seeded generator instead of `secrets` (same shape: 24 random bytes,
    URL-safe base64)."""
    rng = random.Random(seed)
    return lambda: base64.urlsafe_b64encode(rng.randbytes(24)).decode().rstrip("=")


@dataclasses.dataclass(eq=False)
class Player:
    """One person of the exchange: a seat token and its `fabula.client.Client`, which keeps every
    message received."""

    name: str
    colour: str
    token: str = ""
    member: int = -1
    client: Client | None = None
    #: messages already written into the transcript
    shown: int = 0
    #: the room of the last state written into the transcript
    room: dict[str, Any] | None = None
    ids: Iterator[str] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        # short ids that read well in the transcript: a1, a2, …
        self.ids = (f"{self.name[0].lower()}{n}" for n in itertools.count(1))

    def next_id(self) -> str:
        return next(self.ids)

    @property
    def received(self) -> list[Received]:
        return [] if self.client is None else self.client.received


@dataclasses.dataclass
class Step:
    title: str
    prose: str
    lines: list[str]


class Exchange:
    """Drives the players one message at a time: each step waits until every frame it causes has
    arrived (and checks their types), so the transcript does not depend on timing."""

    def __init__(self, url: str, http: httpx.AsyncClient, players: list[Player]) -> None:
        self.url, self.http, self.players = url, http, players
        self.code = ""
        self.steps: list[Step] = []
        #: the first exchange of each (method, path, status), for the HTTP section
        self.http_examples: dict[str, list[str]] = {}
        self.width = max(len(p.name) for p in players)
        self.margin = self.width + 3

    def step(self, title: str, prose: str) -> list[str]:
        self.steps.append(Step(title, prose, []))
        return self.steps[-1].lines

    def label(self, player: Player) -> str:
        return player.name.ljust(self.width)

    # ---------------------------------------------------------------- HTTP

    async def call(
        self, lines: list[str], player: Player, method: str, path: str, body: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        content = None if body is None else json.dumps(body, ensure_ascii=False)
        response = await self.http.request(
            method, path, content=content, headers={} if body is None else {"content-type": "application/json"}
        )
        shown = [f"{self.label(player)} → {method} {path}"]
        if body is not None:
            shown.append(self.below(body))
        found = response.json()
        shown.append(f"{self.label(player)} ← {response.status_code} {response.reason_phrase}")
        shown.append(self.below(found))
        lines.extend(shown)
        self.http_examples.setdefault(f"{method} {path} {response.status_code}", shown)
        return response.status_code, found

    def below(self, value: Any, head: str = "") -> str:
        """``head`` and ``value`` on a line of their own, indented past the names."""
        return " " * self.margin + head + pretty(value, self.margin, len(head))

    # ---------------------------------------------------------------- WebSocket

    async def connect(self, lines: list[str], player: Player) -> None:
        # opened without its own hello: the hello is a step of the transcript like any message
        player.client = Client(self.url, self.code, player.token, ids=player.ids)
        await player.client.open()
        lines.append(f"{self.label(player)} ⇄ opens a WebSocket to /ws/{self.code}")
        others = [p for p in self.players if p is not player and p.client is not None]
        expect = {player: ["welcome", "state"], **{p: ["state"] for p in others}}
        await self.send(lines, player, Hello(id=player.next_id(), token=player.token), expect)

    async def send(
        self,
        lines: list[str],
        player: Player,
        message: protocol.ClientMessage,
        expect: dict[Player, list[str]],
    ) -> list[dict[str, Any]]:
        """Send ``message`` and wait for the frames in ``expect``; the sender's frames."""
        assert player.client is not None
        await player.client.send(message)
        lines.append(f"{self.label(player)} → " + pretty(json.loads(encode(message)), self.margin))
        received = await self.collect(lines, expect, first=player)
        return received.get(player, [])

    async def collect(
        self, lines: list[str], expect: dict[Player, list[str]], first: Player | None = None
    ) -> dict[Player, list[dict[str, Any]]]:
        """Wait for the frames of ``expect`` (by type, in order), write them into ``lines``: those
        of ``first`` (the sender), then everyone else's in the players' order."""
        for player, types in expect.items():
            await asyncio.wait_for(self.arrival(player, len(types)), timeout=10)
        received: dict[Player, list[dict[str, Any]]] = {}
        order = sorted(self.players, key=lambda p: p is not first)  # stable: the players' order otherwise
        for player in order:  # the transcript's order, not the order of arrival
            types = expect.get(player, [])
            frames = [received.data for received in player.received[player.shown : player.shown + len(types)]]
            if [frame["type"] for frame in frames] != types or len(player.received) > player.shown + len(types):
                got = [received.type for received in player.received[player.shown :]]
                texts = [received.text for received in player.received[player.shown :]]
                raise RuntimeError(f"{player.name} expected {types}, received {got}: {texts}")
            player.shown += len(types)
            received[player] = frames
            for frame in frames:
                lines.extend(self.shown_frame(player, frame))
        return received

    async def arrival(self, player: Player, count: int) -> None:
        assert player.client is not None
        await player.client.wait_for(lambda _: True, start=player.shown + count - 1, timeout=None)

    def shown_frame(self, player: Player, frame: dict[str, Any]) -> list[str]:
        head = f"{self.label(player)} ← "
        if frame["type"] != "state":
            return [head + pretty(frame, self.margin)]
        room: dict[str, Any] = frame["room"]
        before, player.room = player.room, room
        if before is None:
            return [head + "state, in full:", self.below(frame)]
        shown = [head + f"state; what differs from {player.name}'s previous state:"]
        for path, value in changes(before, room, "room"):
            if value is REMOVED:
                shown.append(" " * self.margin + f"{path}: (removed)")
            else:
                shown.append(self.below(value, f"{path}: "))
        return shown


REMOVED = object()


def changes(old: Any, new: Any, path: str) -> list[tuple[str, Any]]:
    """Every (path, new value) where ``new`` differs from ``old``: objects key by key, arrays of
    objects item by item (as long as none was removed), anything else whole."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key, value in new.items():
            found += [(f"{path}.{key}", value)] if key not in old else changes(old[key], value, f"{path}.{key}")
        return found + [(f"{path}.{key}", REMOVED) for key in old if key not in new]
    if (
        isinstance(old, list)
        and isinstance(new, list)
        and len(old) <= len(new)
        and all(isinstance(item, dict) for item in old + new)
    ):
        found = [
            change for i, (a, b) in enumerate(zip(old, new, strict=False)) for change in changes(a, b, f"{path}[{i}]")
        ]
        return found + [(f"{path}[{i}]", new[i]) for i in range(len(old), len(new))]
    return [(path, new)]


CLOCK_START = 1_800_000_000.0
SERVER_SEED = 1
TOKEN_SEED = 2
PUBLIC_URL = "https://fabula.example"


def run_exchange() -> Exchange:
    with tempfile.TemporaryDirectory() as folder:
        config = Config(data=Path(folder) / "data", public_url=PUBLIC_URL, sweep_seconds=3600)
        app = create_app(
            config, clock=CountingClock(CLOCK_START), rng=random.Random(SERVER_SEED), tokens=seeded_tokens(TOKEN_SEED)
        )
        return asyncio.run(exchange(app))


async def exchange(app: Any) -> Exchange:
    ana, ben, cleo = Player("Ana", "red"), Player("Ben", "blue"), Player("Cleo", "yellow")
    people = [ana, ben, cleo]
    async with serving(app) as url, httpx.AsyncClient(base_url=url) as http:
        ex = Exchange(url, http, people)
        try:
            await play_one_round(ex, ana, ben, cleo)
        finally:
            for player in people:
                if player.client is not None:
                    await player.client.close()
    return ex


async def play_one_round(ex: Exchange, ana: Player, ben: Player, cleo: Player) -> None:
    people = [ana, ben, cleo]

    def everyone(sender: Player, last: str = "ack", each: str = "state") -> dict[Player, list[str]]:
        connected = [p for p in people if p.client is not None]
        return {p: [each, last] if p is sender else [each] for p in connected}

    lines = ex.step("What a room can be", "Before creating a room, a client may ask for the modes and decks.")
    await ex.call(lines, ana, "GET", "/api/modes")
    await ex.call(lines, ana, "GET", "/api/decks")

    lines = ex.step(
        "Ana creates a room",
        "The creator is member 0 and the host. The token in the answer is the only key to the seat: "
        "keep it to reconnect.",
    )
    _, seat = await ex.call(
        lines, ana, "POST", "/api/rooms", {"name": "Ana", "colour": "red", "settings": {"mode": "odyssey"}}
    )
    ex.code, ana.token, ana.member = seat["code"], seat["token"], seat["member"]

    lines = ex.step("Ana connects", "`hello` with the seat token; the answer is `welcome`, then the room.")
    await ex.connect(lines, ana)
    await ex.send(lines, ana, protocol.Ping(id=ana.next_id()), {ana: ["pong"]})

    lines = ex.step(
        "Ben looks at the room, then joins",
        "Anyone with the code may read the summary. A join is a change of the room: every connection "
        "(here Ana's) gets a new state.",
    )
    await ex.call(lines, ben, "GET", f"/api/rooms/{ex.code}")
    _, seat = await ex.call(lines, ben, "POST", f"/api/rooms/{ex.code}/join", {"name": "Ben", "colour": "blue"})
    ben.token, ben.member = seat["token"], seat["member"]
    await ex.collect(lines, {ana: ["state"]})

    lines = ex.step(
        "Ben connects",
        "A seat's first connection is news for everyone: the others get a state showing Ben `connected`.",
    )
    await ex.connect(lines, ben)

    lines = ex.step(
        "Cleo joins (the second try works) and connects",
        "A refused request changes nothing, so nobody gets a state for it.",
    )
    await ex.call(lines, cleo, "POST", f"/api/rooms/{ex.code}/join", {"name": "Cleo", "colour": "blue"})
    _, seat = await ex.call(lines, cleo, "POST", f"/api/rooms/{ex.code}/join", {"name": "Cleo", "colour": "yellow"})
    cleo.token, cleo.member = seat["token"], seat["member"]
    await ex.collect(lines, {ana: ["state"], ben: ["state"]})
    await ex.connect(lines, cleo)

    lines = ex.step(
        "Ana starts the game",
        "Every connection gets its own view: the same table, but only its own hand.",
    )
    await ex.send(lines, ana, protocol.Start(id=ana.next_id()), everyone(ana))
    assert ana.room is not None
    game = ana.room["game"]
    by_seat = {m["seat"]: p for m in ana.room["members"] for p in people if p.member == m["member"]}
    teller = by_seat[game["storyteller"]]
    first, second = [by_seat[s] for s in sorted(by_seat) if by_seat[s] is not teller]

    assert teller.room is not None
    lines = ex.step(
        f"{teller.name} (seat {game['storyteller']}) is the storyteller and asks what they may do",
        "`legal` answers with the moves the seat may make now; a `tell` comes with `clue` null, to be filled in.",
    )
    await ex.send(lines, teller, protocol.Legal(id=teller.next_id()), {teller: ["legal"]})

    card = teller.room["game"]["hand"][0]
    lines = ex.step(
        f"{teller.name} tells",
        "An action is the engine's JSON (see *Actions*); `seat` may be left out. The clue is public at once, "
        "the card is not.",
    )
    await ex.send(
        lines,
        teller,
        protocol.Act(id=teller.next_id(), action={"type": "tell", "card": card, "clue": "Where the map ends"}),
        everyone(teller),
    )

    assert first.room is not None
    assert second.room is not None
    play = protocol.Act(id=first.next_id(), action={"type": "play", "cards": first.room["game"]["hand"][:2]})
    lines = ex.step(
        f"{first.name} plays two cards",
        "With three players everyone but the storyteller puts down two cards. The others see only that "
        f"{first.name} has played (`acted`), not what.",
    )
    await ex.send(lines, first, play, everyone(first))

    lines = ex.step(
        f"{first.name} sends the same message again",
        "As a client would after losing the connection before the `ack`: same id, so the server answers with "
        "the same `seq` and changes nothing — no state follows.",
    )
    await ex.send(lines, first, play, {first: ["ack"]})

    lines = ex.step(
        f"{second.name} plays two cards",
        "The last awaited play lays the table: the cards are shuffled into slots, face up, with no owners "
        "named (except `yours`). The vote begins.",
    )
    await ex.send(
        lines,
        second,
        protocol.Act(id=second.next_id(), action={"type": "play", "cards": second.room["game"]["hand"][:2]}),
        everyone(second),
    )

    lines = ex.step("A word at the table", "Chat is not part of the state: each connection gets a `chat`.")
    say = protocol.Say(id=first.next_id(), text="So many doors…")
    await ex.send(lines, first, say, everyone(first, each="chat"))

    own = [entry["slot"] for entry in first.room["game"]["table"] if entry["yours"]]
    lines = ex.step(
        f"{first.name} votes for their own card, and is refused",
        "An `error` names the message's id; nothing changed, so no state follows.",
    )
    vote = protocol.Act(id=first.next_id(), action={"type": "vote", "slots": own[:1]})
    await ex.send(lines, first, vote, {first: ["error"]})

    others = [entry["slot"] for entry in first.room["game"]["table"] if not entry["yours"]]
    lines = ex.step(f"{first.name} votes", "Again the others learn only who has voted.")
    vote = protocol.Act(id=first.next_id(), action={"type": "vote", "slots": others[:1]})
    await ex.send(lines, first, vote, everyone(first))

    others = [entry["slot"] for entry in second.room["game"]["table"] if not entry["yours"]]
    lines = ex.step(
        f"{second.name} votes: the reveal",
        "The last vote ends the round: `last_round` shows every card's owner, every vote and the points; "
        "the scores move, hands are refilled, and round 2 begins with the next storyteller.",
    )
    vote = protocol.Act(id=second.next_id(), action={"type": "vote", "slots": others[-1:]})
    await ex.send(lines, second, vote, everyone(second))

    for player in people:  # nothing else is on its way: the next frame on every connection is a pong
        assert player.client is not None
        await player.client.send(protocol.Ping(id="sync"))
        await asyncio.wait_for(ex.arrival(player, 1), timeout=10)
        if player.received[player.shown].type != "pong" or len(player.received) != player.shown + 1:
            raise RuntimeError(f"{player.name} received frames no step expected")


# ====================================================================== error codes from their enums

#: Every layer's codes, from the lowest layer up (checked against the subclasses of `ErrorCode`).
CODE_ENUMS: tuple[type[ErrorCode], ...] = (
    CommonCode, RuleCode, ProtocolCode, RoomCode, card_routes.HttpCode, PictureCode
)  # fmt: skip
#: How the table names where a code can be sent.
SENT = {Reach.SOCKET: "WebSocket", Reach.HTTP: "HTTP", Reach.BOTH: "both"}


def error_codes() -> list[ErrorCode]:
    """Every code of every layer, by code string; the run stops if an enum is not in `CODE_ENUMS`
    or a code string is in two."""
    unlisted = set(ErrorCode.__subclasses__()) - set(CODE_ENUMS)
    if unlisted:
        raise RuntimeError(f"add {sorted(cls.__name__ for cls in unlisted)} to CODE_ENUMS in tools/protocol_doc.py")
    codes = [code for cls in CODE_ENUMS for code in cls]
    twice = sorted(value for value, count in collections.Counter(code.value for code in codes).items() if count > 1)
    if twice:
        raise RuntimeError(f"codes in two enums: {twice}")
    return sorted(codes, key=lambda code: code.value)


def http_status(code: ErrorCode) -> str:
    """The status ``code`` is sent with over HTTP, and on which route it is sent with another."""
    if Reach.HTTP not in code.reach:
        return "—"
    others = [f"{status} on `{route}`" for (route, other), status in responses.ROUTE_STATUS.items() if other is code]
    return "; ".join([str(code.status), *others])


def close_codes() -> list[tuple[int, str]]:
    """(code, reason) of every close the server makes, from ``fabula.server.connections.CLOSE_REASONS``."""
    return sorted(connections_module.CLOSE_REASONS.items())


def view_modes() -> dict[str, list[str]]:
    """Each field of a game view, and the modes whose views have it (a laid table, to see a slot)."""
    modes: dict[str, list[str]] = {}
    for mode in MODES.values():
        game = Game.new(mode.name, seats=mode.seat_counts[0], seed=1)
        while game.phase.value != "vote":
            seat = game.awaiting[0]
            action = game.legal_actions(seat)[0]
            game.apply(action.with_clue("clue") if isinstance(action, Tell | BlindClue) else action)
        for key in game.view(0).to_json():
            modes.setdefault(key, []).append(mode.name)
    return modes


def type_name(schema: dict[str, Any]) -> str:
    """A field's JSON Schema as a short type for people: `integer`, `string | null`, `array of TableSlot`."""
    if "$ref" in schema:
        reference: str = schema["$ref"]
        return reference.rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(type_name(option) for option in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(flat(value) for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items")
        return "array" if items is None else f"array of {type_name(items)}"
    if kind == "object" and "additionalProperties" in schema:
        return f"object of {type_name(schema['additionalProperties'])}"
    return str(kind)


def field_rows(name: str, definition: dict[str, Any], modes: dict[str, list[str]] | None = None) -> list[list[str]]:
    """One row per field of a definition: name, type and the description its type gives it."""
    rows = []
    for field, schema in definition["properties"].items():
        meaning = schema.get("description")
        if meaning is None:
            raise RuntimeError(f"{name}.{field} has no description: give it one in its type (msgspec.Meta)")
        row = [f"`{field}`", f"`{type_name(schema)}`"]
        if modes is not None:
            every = set(MODES)
            row.append("all" if set(modes[field]) == every else ", ".join(modes[field]))
        rows.append([*row, meaning])
    return rows


# ====================================================================== the page


def render() -> str:
    ex = run_exchange()
    parts = [
        intro(),
        overview(),
        http_section(ex),
        messages_section("client"),
        messages_section("server"),
        state_section(),
        actions_section(),
        errors_section(),
        exchange_section(ex),
    ]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n"


def intro() -> str:
    return """
# The play protocol

<!-- Generated by tools/protocol_doc.py from the code; do not edit. Rerun it after changing the
protocol (tests/test_protocol_doc.py fails until you do). -->

How a client creates and joins a room over HTTP and plays over a WebSocket. Everything on this page
is generated from the code: the JSON Schemas from the msgspec models in `fabula.protocol`,
the limits from the modules and the `fabula serve` defaults, the error codes from their enums,
and the worked exchange at the end from a real server run by `tools/protocol_doc.py` (so what it
shows is what the server does). `python tools/protocol_doc.py` rewrites this page; `--check` says
whether it is current.

"""


def overview() -> str:
    config = Config()
    low, high = TIMER_RANGE
    closes = close_codes()
    limits = table(
        ["limit", "default", "when exceeded"],
        [
            [
                "`max_message_bytes`: one WebSocket message",
                f"{config.max_message_bytes:,}",
                "`error` `too_large` (id null); the connection goes on. The length checked is that of the frame "
                "in UTF-8 bytes",
            ],
            [
                "hard limit of a WebSocket frame (`fabula serve`)",
                f"{WS_HARD_LIMIT:,} bytes",
                "the connection is closed (close code 1009)",
            ],
            [
                "`messages_per_second` and `message_burst`: messages per connection",
                f"{config.messages_per_second:g} a second on average, {config.message_burst} at once",
                "`error` `rate_limited` naming the message's id (null if it could not be read); the message is "
                "dropped, and may be sent again with the same id",
            ],
            [
                "`chat_messages_per_second` and `chat_burst`: `say` per connection",
                f"{config.chat_messages_per_second:g} a second on average, {config.chat_burst} at once",
                "`error` `chat_rate_limited`",
            ],
            [
                "`max_connections_per_address`: WebSocket connections from one address",
                f"{config.max_connections_per_address}",
                "the WebSocket is accepted, then closed with code 4429",
            ],
            [
                "`max_rooms_per_address`: rooms in use created from one address (someone connected, or "
                "activity in the last 10 minutes: a finished game nobody looks at frees its place)",
                f"{config.max_rooms_per_address}",
                "HTTP 429 `too_many_rooms`, its message saying when the next frees (`retry_after`, seconds, "
                "and the `Retry-After` header when that is known)",
            ],
            [
                "`room_idle_seconds`: a room nobody is connected to",
                f"{config.room_idle_seconds:g} seconds",
                "the room is deleted (then `no_room`)",
            ],
            ["HTTP request body", f"{room_routes.BODY_MAX:,} bytes", "HTTP 400 `too_large`"],
            ["name", f"{room_settings.NAME_MAX} characters", "`name_too_long`"],
            ["clue", f"{CLUE_MAX} characters", "`clue_too_long`"],
            ["chat line", f"{room_settings.CHAT_MAX} characters", "`message_too_long`"],
        ],
    )
    close_rows = [[f"`{code}`", reason] for code, reason in closes]
    return f"""
## Overview

- **Rooms and seats over HTTP.** `POST /api/rooms` creates a room and seats its creator as host;
  `POST /api/rooms/{{CODE}}/join` takes a seat. Both answer with the seat's **token**, a secret
  that takes the seat: keep it (it is the only way back into the seat) and never show it.
  Room codes are {rooms_module.CODE_LENGTH} characters from `{rooms_module.CODE_ALPHABET}`
  (no look-alikes); the server upper-cases a code it is given. Either body may carry a `request`
  id of the client's choosing (1 to {protocol.ID_MAX} characters, one per tap of a button): the
  same request again from the same address within {seats_module.REQUEST_SECONDS // 60} minutes —
  a double tap, a retry after a lost answer — gets the same seat, never a second room or seat.
  During a game, a join with `replaces` (a member number whose `open` is true; the seat's colour)
  takes over that bot's seat, or that of someone who left for good. `invite` says which link to give
  players (`url`) and whether phones can open it (`reachable`; `problem`: `"loopback_only"` when the
  server listens on this computer only, `"no_network"` when it has no network address).
- **One WebSocket per seat, at `/ws/{{CODE}}`.** The first message is `hello` with the token (or
  `token` null to watch as a spectator), within {connections_module.HELLO_SECONDS:g} seconds of opening, else the
  server closes the connection. The answer is `welcome`, then a complete `state`. A seat may have
  several connections (a phone and a laptop); each gets everything. Reconnecting is the same `hello`
  on a new connection.
- **Every message is one JSON object in a text frame**, with a `type` and an `id` of the client's
  choosing (1 to {protocol.ID_MAX} characters). Every answer (`ack`, `error`, `legal`, `pong`, `welcome`)
  names the id of the message it answers.
- **Retries are safe.** A message that changes the room (every type but `hello`, `legal` and
  `ping`) is remembered with its member and id in the room's log, so also across a restart of the
  server. Sent again with the same id it is answered with the same `ack` (same `seq`) and made no
  second time; no state follows. The server does not compare the contents: use a fresh id for every
  new message, and the same id only for a resend. A refused message is not remembered: sent again,
  it is checked again.
- **Every change is followed by a complete `state` on every connection of the room**, each with
  that connection's own view (its seat's hand; a spectator's has none). Changes are accepted
  messages, joins over HTTP, the moves bots make, hosting passing on by itself, and a member's
  first connection opening or last one closing (`members[].connected`). On the connection that
  made the change, the `state` comes before the `ack`. A client renders the newest state and never
  has to merge anything. A connection that reads slowly may skip states: an unsent state is
  replaced, in its place in the queue, by the newer one, so a state showing a change still comes
  before the change's `ack`. `room.seq` counts the log's entries: after `ack` with `seq` *n*, the
  states have `room.seq` > *n*.
- **Chat** (`say`) is not in the state: each connection that may read the line gets a `chat`
  message, and `welcome` brings the last {room_module.CHAT_KEPT} lines.
- **A refusal** is an `error` with the message's `id` (null if the message could not be read), a
  stable `code` to switch on and a `message` for people. Nothing changed. The codes are listed
  under *Error codes*.
- **Spectators** (`hello` with `token` null) receive states (`you` null, no hand) and the table's
  chat, and may `ping`; any other message is refused with `spectator`.
- **Bots and timers.** The host may fill free seats with bots (`add_bot`). A bot also moves for a
  person whose seat has had no connection for {config.disconnect_grace_seconds:g} seconds, for one who
  left the game, and for every awaited seat when a phase timer (`clue_seconds`, `play_seconds`,
  `vote_seconds` in the settings: {low} to {high} seconds; `room.deadline` says when) runs out. Their
  moves reach clients as states like any other change. A host with no connection for as long passes
  hosting to the first person who is here.

### Limits

The defaults of `fabula serve`; each one is an option (`fabula serve --help`) or an environment
variable `FABULA_<NAME>`.

{limits}

Names and chat lines are cleaned first: control and invisible format characters are removed and
whitespace collapsed.

**Origin.** A browser always sends `Origin` with a WebSocket; it must be the server's own (its host
and port equal the `Host` header), the origin of `public_url`, or one of `allow_origin`. A client
without `Origin` is not a browser and is let in. Anything else is closed with `4403`.

### WebSocket close codes

Every close the server makes (`fabula.server.connections.CLOSE_REASONS`). A refused connection is
accepted first and then closed, so that a browser can read the code and the reason:

{table(["code", "reason"], close_rows)}

Before closing with `4404` the server sends the `error` (`no_room`) that answers the `hello`.
"""


def http_section(ex: Exchange) -> str:
    doc = app_module.__doc__ or ""
    routes = doc[doc.index("HTTP (JSON):") :].rstrip()
    examples = []
    for key, title in (
        ("POST /api/rooms 201", "Creating a room (`settings` may be left out: the defaults below)"),
        (f"GET /api/rooms/{ex.code} 200", "Reading a room before joining"),
        (f"POST /api/rooms/{ex.code}/join 201", "Joining"),
        (f"POST /api/rooms/{ex.code}/join 400", "A refused join"),
    ):
        examples.append(f"**{title}:**\n\n" + block("\n".join(ex.http_examples[key]), "text"))
    defaults = msgspec_json(RoomSettings())
    return f"""
## HTTP

From the docstring of `fabula.server.app`:

{block(routes, "text")}

A refusal is `{{"error": {{"code": …, "message": …}}}}` with the HTTP status its code has under
*Error codes*. The examples come from the worked exchange below
(`→` the request, `←` the answer).

{(chr(10) + chr(10)).join(examples)}

Room settings, with their defaults:

{block(pretty(defaults), "json")}

`options` are the rule options of docs/modes.md; unknown or inapplicable ones are refused.
"""


def msgspec_json(value: Any) -> Any:
    import msgspec

    return msgspec.to_builtins(value)


#: The definitions of the state's `room`, in the order *The state* shows them (each one a table).
STATE_PARTS = ("RoomSnapshot", "MemberView", "You", "StoodIn", "RoomSettings", "SeatView", "TableSlot",
               "RoundResult", "Points", "Outcome")  # fmt: skip


def messages_section(side: str) -> str:
    schema = protocol.schemas()[side]
    definitions: dict[str, Any] = schema["$defs"]
    union = {key: value for key, value in schema.items() if key != "$defs"}
    mapping: dict[str, str] = union["discriminator"]["mapping"]
    models = {
        cls.__name__: cls
        for cls in typing.get_args(protocol.AnyClientMessage if side == "client" else protocol.AnyServerMessage)
    }
    state_parts = set(STATE_PARTS) if side == "server" else set()
    parts = [
        f"## {side.title()} messages",
        f"Every {'message a client may send' if side == 'client' else 'message the server sends'}, with its "
        f'JSON Schema as msgspec generates it from the model (`fabula.protocol.schemas()["{side}"]`). '
        "The union below and the definitions after it are that whole document"
        + (
            ", except the definitions of the state's `room`, which *The state* shows as tables." if state_parts else "."
        ),
        block(pretty(union), "json"),
    ]
    shown: set[str] = set(state_parts)
    for tag, reference in mapping.items():
        name = reference.rsplit("/", 1)[-1]
        model = models[name]
        text = docstring(model)
        if not text:
            raise RuntimeError(f"{name} has no docstring: say in it what the message is for")
        parts.append(f"### `{tag}` ({name})")
        parts.append(text)
        if side == "client":
            parts.append(f"Reply: {model.reply}.")
        parts.append(block(pretty(definitions[name]), "json"))
        shown.add(name)
        waiting = sorted(references(definitions[name]) - set(mapping_names(mapping)))
        while waiting:  # (what the definitions shown use in turn, at any depth)
            used = waiting.pop(0)
            if used not in shown:
                parts.append(f"`{used}`, used above:")
                parts.append(block(pretty(definitions[used]), "json"))
                shown.add(used)
                waiting += sorted(references(definitions[used]) - shown)
    if set(definitions) - shown:
        raise RuntimeError(f"schema definitions not shown: {sorted(set(definitions) - shown)}")
    return "\n\n".join(parts)


def references(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        found = {schema["$ref"].rsplit("/", 1)[-1]} if "$ref" in schema else set()
        return found.union(*(references(value) for value in schema.values()))
    if isinstance(schema, list):
        return set().union(*(references(item) for item in schema))
    return set()


def mapping_names(mapping: dict[str, str]) -> list[str]:
    return [reference.rsplit("/", 1)[-1] for reference in mapping.values()]


def state_section() -> str:
    definitions: dict[str, Any] = protocol.schemas()["server"]["$defs"]
    missing = set(STATE_PARTS) - set(definitions)
    reached, new = set(), {"RoomSnapshot"}
    while new:
        reached |= new
        new = set().union(*(references(definitions[name]) for name in new)) - reached
    if missing or reached != set(STATE_PARTS):
        raise RuntimeError(f"STATE_PARTS in tools/protocol_doc.py: the room's definitions are {sorted(reached)}")
    modes = view_modes()
    parts = [
        "## The state",
        "`state.room` (`RoomSnapshot`, `fabula.protocol.snapshot`): "
        + docstring(RoomSnapshot)
        + " Each definition below is a table of its fields, their types and what they mean, as the types "
        "say it (`msgspec.Meta` descriptions); the JSON Schema of the whole is "
        '`fabula.protocol.schemas()["server"]`.',
        table(["field", "type", "meaning"], field_rows("RoomSnapshot", definitions["RoomSnapshot"])),
        f"A round's first timer (the clue's) adds {room_module.REVEAL_SECONDS} seconds to `deadline`.",
    ]
    for name in STATE_PARTS[1:]:
        definition = definitions[name]
        if name == "SeatView":
            parts.append("### The game view (`room.game`, `SeatView`)")
            parts.append(
                "`fabula.rules.views.seat_view`: "
                + docstring(SeatView)
                + " Before the reveal it names no card's owner (except your own) and no vote (except yours). "
                "The fields, and the modes in which they appear:"
            )
            parts.append(table(["field", "type", "modes", "meaning"], field_rows(name, definition, modes)))
            continue
        parts.append(f"`{name}`: {prose(definition.get('description', ''))}")
        parts.append(table(["field", "type", "meaning"], field_rows(name, definition)))
    return "\n\n".join(parts)


#: Example values for the fields of an action (a new field fails the run until it is added).
ACTION_EXAMPLE = {
    "seat": 1,
    "card": "fabula-07",
    "clue": "Where the map ends",
    "cards": ("fabula-07",),
    "slots": (2,),
    "slot": 3,
}


def actions_section() -> str:
    rows = []
    for cls in typing.get_args(Action):
        example = cls(**{f.name: ACTION_EXAMPLE[f.name] for f in dataclasses.fields(cls)}).to_json()
        rows.append([f"`{example['type']}`", f"`{flat(example)}`", docstring(cls)])
    return f"""
## Actions

The `action` of `act`, as `fabula.rules.actions` writes and reads them (one example each). `seat`
may be left out: the server fills in the sender's seat, and refuses another (`not_your_seat`). Card
ids are those of the room's decks; slots are numbered from 1 as on the table.

{table(["type", "example", "what it does"], rows)}
"""


def errors_section() -> str:
    codes = error_codes()
    sent = [code for code in codes if code.reach]
    kept = [code for code in codes if not code.reach]
    enums = "\n".join(f"- `{cls.__name__}` (`{cls.__module__}`): {docstring(cls)}" for cls in CODE_ENUMS)
    rows = [
        [f"`{code}`", f"`{type(code).__name__}`", SENT[code.reach], http_status(code), code.meaning] for code in sent
    ]
    kept_rows = [[f"`{code}`", f"`{type(code).__name__}`", code.meaning] for code in kept]
    return f"""
## Error codes

Every refusal's `code` is a member of an enum, one per layer, kept with that layer's errors:

{enums}

Each member (a `fabula.errors.ErrorCode`) holds its code string, the HTTP status it is sent with,
what it means, and where the server can send it; the tables below are written from them. *Sent*:
as an `error` on the WebSocket (which has no status), as an HTTP answer's `{{"error": …}}` body,
or both. The `message` that comes with a code says more, for people, and differs from case to
case.

{table(["code", "layer", "sent", "HTTP status", "meaning"], rows)}

Raised but never sent by the server — met only outside a live game (`fabula score` checking a
whole round, a stored game read back), or caught where they are raised:

{table(["code", "layer", "meaning"], kept_rows)}
"""


def exchange_section(ex: Exchange) -> str:
    names = ", ".join(f"{p.name} ({p.colour})" for p in ex.players)
    parts = [
        f"""
## A worked exchange: one full round

A real server (`create_app`, served by uvicorn on a loopback port inside `tools/protocol_doc.py`),
made reproducible: its clock reads {CLOCK_START:,.1f} and then one second more at every reading,
its random numbers (room code, game seed) come from `random.Random({SERVER_SEED})`, and seat tokens
from a seeded generator in place of `secrets` (they look like real ones). `public_url` is
`{PUBLIC_URL}`. Three people, {names}, play odyssey through the first round. Each step waits until
every message it causes has arrived before the next one starts.

How to read it: `→` is what a client sends, `←` what it receives; for HTTP, the request and the
answer. Every message sent and received is shown, in order per connection (each step lists the
sender first, then the connections in a fixed order — not interleaved by time). JSON is
re-indented for reading; the values and key order are as on the wire. **States are shortened:**
the first state on each connection is shown in full; after that, a state is shown as the fields
that differ from the previous state on the same connection (a path like `room.members[1].seat`,
then the new value; an array of objects of the same length item by item, anything else whole).
Every other field is unchanged; nothing else is left out.
"""
    ]
    for number, step in enumerate(ex.steps, 1):
        parts.append(f"### {number}. {step.title}\n\n{step.prose}\n\n" + block("\n".join(step.lines), "text"))
    return "\n\n".join(part.strip("\n") for part in parts)


# ====================================================================== command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/protocol.md from the code.")
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/protocol.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current == text:
            return 0
        diff = difflib.unified_diff(
            current.splitlines(), text.splitlines(), "docs/protocol.md", "generated", lineterm="", n=1
        )
        print("\n".join(itertools.islice(diff, 60)), file=sys.stderr)
        print("docs/protocol.md is out of date: run python tools/protocol_doc.py", file=sys.stderr)
        return 1
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
