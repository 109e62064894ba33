"""Write docs/protocol.md: the play protocol, generated from the code that implements it.

    python tools/protocol_doc.py          # (re)write docs/protocol.md
    python tools/protocol_doc.py --check  # exit 1 if docs/protocol.md is not what this would write

Nothing in the page is typed by hand that the code can say itself: the JSON Schemas come from the
msgspec models (`fabula.protocol.schemas`), limits from the modules and `Config` defaults,
the error codes from their enums (`fabula.errors.ErrorCode`), the fields of a state and what
each means from the types (`msgspec.Meta` descriptions), and the worked exchange from a real
server run in this process with a fixed clock, seeds and seat tokens, so that two runs write the
same bytes. The script refuses to run when a message or a field has no description in its type.

The prose around them is tools/protocol.md.in, a `string.Template`: each ``$name`` in it is filled
by `render` with what this script generates, and a placeholder without a value, or a value without
a placeholder, stops the run.
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
import string
import sys
import tempfile
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec

import fabula.server.holding as rooms_module
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
from fabula.server import card_routes, responses, room_clock, room_routes, room_settings
from fabula.server import connections as connections_module
from fabula.server import room as room_module
from fabula.server.app import create_app
from fabula.server.asks import WAITING_MAX
from fabula.server.config import Config
from fabula.server.errors import RoomCode
from fabula.server.local import WS_HARD_LIMIT, serving
from fabula.server.pictures import PictureCode
from fabula.server.sounds import SoundCode

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
#: The page's prose, with a ``$name`` (`string.Template`) where `render` puts what it generates.
TEMPLATE = Path(__file__).resolve().with_name("protocol.md.in")
#: The end of the template's opening comment, which is about the template and left out of the page.
TEMPLATE_HEAD_END = "-->\n\n"
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


class Exchange:
    """Drives the players one message at a time: each step waits until every frame it causes has
    arrived (and checks their types), so the transcript does not depend on timing."""

    def __init__(self, url: str, http: httpx.AsyncClient, players: list[Player]) -> None:
        self.url, self.http, self.players = url, http, players
        self.code = ""
        #: each step's transcript lines, by the name of its placeholder in the template (``step_…``)
        self.steps: dict[str, list[str]] = {}
        #: the parts the people play in the round (teller, first, second), named in the template
        self.roles: dict[str, str] = {}
        #: the first exchange of each (method, path, status), for the HTTP section
        self.http_examples: dict[str, list[str]] = {}
        self.width = max(len(p.name) for p in players)
        self.margin = self.width + 3

    def step(self, name: str) -> list[str]:
        return self.steps.setdefault(f"step_{name}", [])

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

    lines = ex.step("what_a_room_can_be")
    await ex.call(lines, ana, "GET", "/api/modes")
    await ex.call(lines, ana, "GET", "/api/decks")

    lines = ex.step("ana_creates")
    _, seat = await ex.call(
        lines, ana, "POST", "/api/rooms", {"name": "Ana", "colour": "red", "settings": {"mode": "odyssey"}}
    )
    ex.code, ana.token, ana.member = seat["code"], seat["token"], seat["member"]

    lines = ex.step("ana_connects")
    await ex.connect(lines, ana)
    await ex.send(lines, ana, protocol.Ping(id=ana.next_id()), {ana: ["pong"]})

    lines = ex.step("ben_joins")
    await ex.call(lines, ben, "GET", f"/api/rooms/{ex.code}")
    _, seat = await ex.call(lines, ben, "POST", f"/api/rooms/{ex.code}/join", {"name": "Ben", "colour": "blue"})
    ben.token, ben.member = seat["token"], seat["member"]
    await ex.collect(lines, {ana: ["state"]})

    lines = ex.step("ben_connects")
    await ex.connect(lines, ben)

    lines = ex.step("cleo_joins")
    await ex.call(lines, cleo, "POST", f"/api/rooms/{ex.code}/join", {"name": "Cleo", "colour": "blue"})
    _, seat = await ex.call(lines, cleo, "POST", f"/api/rooms/{ex.code}/join", {"name": "Cleo", "colour": "yellow"})
    cleo.token, cleo.member = seat["token"], seat["member"]
    await ex.collect(lines, {ana: ["state"], ben: ["state"]})
    await ex.connect(lines, cleo)

    lines = ex.step("start")
    await ex.send(lines, ana, protocol.Start(id=ana.next_id()), everyone(ana))
    assert ana.room is not None
    game = ana.room["game"]
    by_seat = {m["seat"]: p for m in ana.room["members"] for p in people if p.member == m["member"]}
    teller = by_seat[game["storyteller"]]
    first, second = [by_seat[s] for s in sorted(by_seat) if by_seat[s] is not teller]
    ex.roles = {"teller": teller.name, "teller_seat": str(game["storyteller"]), "first": first.name,
                "second": second.name}  # fmt: skip

    assert teller.room is not None
    lines = ex.step("legal")
    await ex.send(lines, teller, protocol.Legal(id=teller.next_id()), {teller: ["legal"]})

    card = teller.room["game"]["hand"][0]
    lines = ex.step("tell")
    await ex.send(
        lines,
        teller,
        protocol.Act(id=teller.next_id(), action={"type": "tell", "card": card, "clue": "Where the map ends"}),
        everyone(teller),
    )

    assert first.room is not None
    assert second.room is not None
    play = protocol.Act(id=first.next_id(), action={"type": "play", "cards": first.room["game"]["hand"][:2]})
    lines = ex.step("first_plays")
    await ex.send(lines, first, play, everyone(first))

    lines = ex.step("resend")
    await ex.send(lines, first, play, {first: ["ack"]})

    lines = ex.step("second_plays")
    await ex.send(
        lines,
        second,
        protocol.Act(id=second.next_id(), action={"type": "play", "cards": second.room["game"]["hand"][:2]}),
        everyone(second),
    )

    lines = ex.step("quiet")
    say = protocol.Say(id=first.next_id(), text="So many doors…")
    await ex.send(lines, first, say, {first: ["error"]})

    own = [entry["slot"] for entry in first.room["game"]["table"] if entry["yours"]]
    lines = ex.step("refused_vote")
    vote = protocol.Act(id=first.next_id(), action={"type": "vote", "slots": own[:1]})
    await ex.send(lines, first, vote, {first: ["error"]})

    others = [entry["slot"] for entry in first.room["game"]["table"] if not entry["yours"]]
    lines = ex.step("first_votes")
    vote = protocol.Act(id=first.next_id(), action={"type": "vote", "slots": others[:1]})
    await ex.send(lines, first, vote, everyone(first))

    others = [entry["slot"] for entry in second.room["game"]["table"] if not entry["yours"]]
    lines = ex.step("reveal")
    vote = protocol.Act(id=second.next_id(), action={"type": "vote", "slots": others[-1:]})
    await ex.send(lines, second, vote, everyone(second))

    lines = ex.step("chat")
    say = protocol.Say(id=first.next_id(), text="So many doors…")
    await ex.send(lines, first, say, everyone(first, each="chat"))

    for player in people:  # nothing else is on its way: the next frame on every connection is a pong
        assert player.client is not None
        await player.client.send(protocol.Ping(id="sync"))
        await asyncio.wait_for(ex.arrival(player, 1), timeout=10)
        if player.received[player.shown].type != "pong" or len(player.received) != player.shown + 1:
            raise RuntimeError(f"{player.name} received frames no step expected")


# ====================================================================== error codes from their enums

#: Every layer's codes, from the lowest layer up (checked against the subclasses of `ErrorCode`).
CODE_ENUMS: tuple[type[ErrorCode], ...] = (
    CommonCode, RuleCode, ProtocolCode, RoomCode, card_routes.HttpCode, PictureCode, SoundCode
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
    """The page: the template with every placeholder filled from the code and a run of the server."""
    ex = run_exchange()
    sections: list[dict[str, object]] = [
        overview_values(),
        http_values(ex),
        {"client_messages": messages("client"), "server_messages": messages("server")},
        state_values(),
        {"actions": actions_table()},
        error_values(),
        exchange_values(ex),
    ]
    values = {name: value for section in sections for name, value in section.items()}
    if len(values) != sum(len(section) for section in sections):
        raise ValueError("two sections give a value to the same placeholder")
    return fill(page_template(), values)


def page_template() -> str:
    """The template without its opening comment (which is about the template, not the page)."""
    text = TEMPLATE.read_text(encoding="utf-8")
    if not text.startswith("<!--") or TEMPLATE_HEAD_END not in text:
        raise ValueError(f"{TEMPLATE} should open with a comment saying what it is")
    return text.split(TEMPLATE_HEAD_END, 1)[1]


def fill(template: str, values: dict[str, object]) -> str:
    """``template`` with each ``$name`` replaced by ``values[name]``; raises `ValueError` if a
    placeholder has no value, a value has no placeholder, or a ``$`` starts neither (``$$`` is a ``$``)."""
    page = string.Template(template)
    for match in page.pattern.finditer(template):
        if match.group("invalid") is not None:
            line = template.count("\n", 0, match.start()) + 1
            raise ValueError(f"{TEMPLATE.name}: a $ that is no placeholder on line {line} of the page (write $$)")
    names = set(page.get_identifiers())
    missing, unused = sorted(names - values.keys()), sorted(values.keys() - names)
    if missing or unused:
        raise ValueError(f"{TEMPLATE.name}: placeholders with no value {missing}, values with no placeholder {unused}")
    return page.substitute(values)


def overview_values() -> dict[str, object]:
    config = Config()
    return {
        "code_length": rooms_module.CODE_LENGTH,
        "code_alphabet": rooms_module.CODE_ALPHABET,
        "id_max": protocol.ID_MAX,
        "request_minutes": seats_module.REQUEST_SECONDS // 60,
        "asks_per_address": seats_module.ASKS_PER_ADDRESS,
        "ask_minutes": seats_module.ASK_WINDOW // 60,
        "asks_waiting": WAITING_MAX,
        "hello_seconds": f"{connections_module.HELLO_SECONDS:g}",
        "chat_kept": room_module.CHAT_KEPT,
        "disconnect_grace_seconds": f"{config.disconnect_grace_seconds:g}",
        "timer_low": TIMER_RANGE[0],
        "timer_high": TIMER_RANGE[1],
        "max_message_bytes": f"{config.max_message_bytes:,}",
        "ws_hard_limit": f"{WS_HARD_LIMIT:,}",
        "messages_per_second": f"{config.messages_per_second:g}",
        "message_burst": config.message_burst,
        "chat_messages_per_second": f"{config.chat_messages_per_second:g}",
        "chat_burst": config.chat_burst,
        "max_connections_per_address": config.max_connections_per_address,
        "max_rooms_per_address": config.max_rooms_per_address,
        "room_idle_seconds": f"{config.room_idle_seconds:g}",
        "body_max": f"{room_routes.BODY_MAX:,}",
        "name_max": room_settings.NAME_MAX,
        "clue_max": CLUE_MAX,
        "chat_max": room_settings.CHAT_MAX,
        "close_codes": table(["code", "reason"], [[f"`{code}`", reason] for code, reason in close_codes()]),
    }


def http_values(ex: Exchange) -> dict[str, object]:
    doc = app_module.__doc__ or ""
    examples = {
        "http_create_room": "POST /api/rooms 201",
        "http_read_room": f"GET /api/rooms/{ex.code} 200",
        "http_join": f"POST /api/rooms/{ex.code}/join 201",
        "http_join_refused": f"POST /api/rooms/{ex.code}/join 400",
    }
    return {
        "http_routes": block(doc[doc.index("HTTP (JSON):") :].rstrip(), "text"),
        **{name: block("\n".join(ex.http_examples[key]), "text") for name, key in examples.items()},
        "room_settings_defaults": block(pretty(msgspec.to_builtins(RoomSettings())), "json"),
    }


#: The definitions of the state's `room`, which *The state* shows as tables (`fields_…` in the template).
STATE_PARTS = ("RoomSnapshot", "MemberView", "You", "StoodIn", "AskView", "TakeOver", "Player", "RoomSettings",
               "AudienceCount", "CrowdRound", "SeatView", "TableSlot", "RoundResult", "Points", "Outcome")  # fmt: skip


def messages(side: str) -> str:
    """The JSON Schema of ``side``'s messages: the union, then each message and what it uses."""
    schema = protocol.schemas()[side]
    definitions: dict[str, Any] = schema["$defs"]
    union = {key: value for key, value in schema.items() if key != "$defs"}
    mapping: dict[str, str] = union["discriminator"]["mapping"]
    models = {
        cls.__name__: cls
        for cls in typing.get_args(protocol.AnyClientMessage if side == "client" else protocol.AnyServerMessage)
    }
    parts = [block(pretty(union), "json")]
    shown: set[str] = set(STATE_PARTS) if side == "server" else set()
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


def state_values() -> dict[str, object]:
    definitions: dict[str, Any] = protocol.schemas()["server"]["$defs"]
    missing = set(STATE_PARTS) - set(definitions)
    reached, new = set(), {"RoomSnapshot"}
    while new:
        reached |= new
        new = set().union(*(references(definitions[name]) for name in new)) - reached
    if missing or reached != set(STATE_PARTS):
        raise RuntimeError(f"STATE_PARTS in tools/protocol_doc.py: the room's definitions are {sorted(reached)}")
    values: dict[str, object] = {
        "doc_RoomSnapshot": docstring(RoomSnapshot),
        "fields_RoomSnapshot": table(
            ["field", "type", "meaning"], field_rows("RoomSnapshot", definitions["RoomSnapshot"])
        ),
        "reveal_seconds": room_clock.REVEAL_SECONDS,
        "doc_SeatView": docstring(SeatView),
        "fields_SeatView": table(
            ["field", "type", "modes", "meaning"], field_rows("SeatView", definitions["SeatView"], view_modes())
        ),
    }
    for name in set(STATE_PARTS) - {"RoomSnapshot", "SeatView"}:
        definition = definitions[name]
        values[f"fields_{name}"] = f"`{name}`: {prose(definition.get('description', ''))}\n\n" + table(
            ["field", "type", "meaning"], field_rows(name, definition)
        )
    return values


#: Example values for the fields of an action (a new field fails the run until it is added).
ACTION_EXAMPLE = {
    "seat": 1,
    "card": "fabula-07",
    "clue": "Where the map ends",
    "aloud": False,  # (written only when true: a clue said aloud, see the text)
    "sound": None,  # (written only when set: a recorded clue, see the text)
    "cards": ("fabula-07",),
    "slots": (2,),
    "slot": 3,
}


def actions_table() -> str:
    rows = []
    for cls in typing.get_args(Action):
        example = cls(**{f.name: ACTION_EXAMPLE[f.name] for f in dataclasses.fields(cls)}).to_json()
        rows.append([f"`{example['type']}`", f"`{flat(example)}`", docstring(cls)])
    return table(["type", "example", "what it does"], rows)


def error_values() -> dict[str, object]:
    codes = error_codes()
    sent = [[f"`{code}`", f"`{type(code).__name__}`", SENT[code.reach], http_status(code), code.meaning]
            for code in codes if code.reach]  # fmt: skip
    kept = [[f"`{code}`", f"`{type(code).__name__}`", code.meaning] for code in codes if not code.reach]
    return {
        "error_enums": "\n".join(f"- `{cls.__name__}` (`{cls.__module__}`): {docstring(cls)}" for cls in CODE_ENUMS),
        "sent_codes": table(["code", "layer", "sent", "HTTP status", "meaning"], sent),
        "kept_codes": table(["code", "layer", "meaning"], kept),
    }


def exchange_values(ex: Exchange) -> dict[str, object]:
    return {
        "clock_start": f"{CLOCK_START:,.1f}",
        "server_seed": SERVER_SEED,
        "public_url": PUBLIC_URL,
        "players": ", ".join(f"{p.name} ({p.colour})" for p in ex.players),
        **ex.roles,
        **{name: block("\n".join(lines), "text") for name, lines in ex.steps.items()},
    }


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
