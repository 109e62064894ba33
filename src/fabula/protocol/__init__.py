"""The WebSocket protocol: every message a client may send, every message the server sends.

One JSON object per WebSocket text message. A client message has a ``type`` and an ``id`` of the
client's choosing; the server's reply (``ack``, ``error``, ``legal``, ``pong``, ``welcome``)
names that id. Sending the same id again is harmless: a change that was already made is
acknowledged again, never made twice.

>>> decode_client(b'{"type": "act", "id": "m1", "action": {"type": "vote", "slots": [2]}}')
Act(id='m1', action={'type': 'vote', 'slots': [2]})
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from fabula.errors import CommonCode, ErrorCode, Reach
from fabula.story import Album

from .audience import CARD_ID_MAX, AudienceHello, AudienceYou
from .settings import RoomSettings
from .snapshot import RoomSnapshot

#: Ids are the client's: any short string.
ID_MAX = 64
MessageId = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX, description="chosen by the client")]
#: Every number a client sends is small (a member, a seat, a slot): a 500-digit one is malformed.
NUMBER_MAX = 1000
Number = Annotated[int, msgspec.Meta(ge=-NUMBER_MAX, le=NUMBER_MAX)]
#: An action's fields as `fabula.rules.actions` writes them: numbers, text, and lists of those
#: (text is bounded by the message's size, and the engine says when a clue is too long).
ActionValue = Number | str | bool | None | Annotated[list[Number | str], msgspec.Meta(max_length=12)]


#: The languages of the web client, and so of the bots' clues (`fabula.bots.base.BOT_LANGUAGES`).
Language = Literal["en", "zh-Hant", "zh-Hans"]


#: What a host's message is answered with.
HOST_REPLY = "a `state` to every connection, then `ack`; from anyone but the host, `error` `not_host`"


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    id: MessageId

    #: what the server answers this message with (for docs/protocol.md)
    reply: ClassVar[str]


class Hello(ClientMessage, tag="hello"):
    """First message on a connection: take a seat with its token, or watch (``token`` null) —
    and, with ``audience``, watch as a member of the audience, who votes (`crowd_vote`).
    ``language``: the client's, in which a bot standing in for this seat gives its clues."""

    reply: ClassVar[str] = (
        "`welcome`, then a `state`; or `error` (`bad_token`, `no_room`, `already_greeted`; with `audience`: "
        "`malformed` (with a seat token too), `name_empty`, `name_too_long`)"
    )

    token: str | None = None
    language: Language | None = None
    audience: AudienceHello | None = None


class Act(ClientMessage, tag="act"):
    """A move in the game, as the engine's actions write it (``seat`` may be left out)."""

    reply: ClassVar[str] = (
        "a `state` to every connection, then `ack`; or `error` (the engine's code, e.g. `wrong_phase`)"
    )

    action: Annotated[dict[str, ActionValue], msgspec.Meta(max_length=8)]


class Legal(ClientMessage, tag="legal"):
    """Ask for the moves your seat may make now (a bot's shortcut; a clue is left null)."""

    reply: ClassVar[str] = "`legal` (changes nothing; answered afresh every time)"


class Say(ClientMessage, tag="say"):
    """A chat message to the table, or (``team_only``, mode `teams`) to your teammate. From the
    storyteller's clue until the round is scored the table is quiet: a line to it is refused with
    ``chat_closed`` (and kept nowhere) unless the room's settings allow ``table_talk``; team chat
    stays open. The state's ``table_chat`` says which it is now."""

    reply: ClassVar[str] = "a `chat` to every connection that may read it, then `ack`"

    text: Annotated[str, msgspec.Meta(max_length=1000, description="cleaned, then at most 300 characters")]
    team_only: bool = False


class Leave(ClientMessage, tag="leave"):
    """Give up your seat: in the lobby it is freed; in a game a bot plays it until you return —
    or, ``for_good``, for the rest of the game (your token stops working; someone may take the
    seat over)."""

    reply: ClassVar[str] = (
        "a `state` to every connection, then `ack` (after `for_good` or in the lobby, your connection goes on "
        "as a spectator's)"
    )

    for_good: bool = False


class ChangeSettings(ClientMessage, tag="settings"):
    """Host, before the start: mode, options, decks and timers."""

    reply: ClassVar[str] = HOST_REPLY

    settings: RoomSettings


class SetTeams(ClientMessage, tag="teams"):
    """Host, mode `teams`: who plays with whom (members, in pairs); the rest are paired in order."""

    reply: ClassVar[str] = HOST_REPLY

    pairs: Annotated[list[Annotated[list[Number], msgspec.Meta(max_length=2)]], msgspec.Meta(max_length=12)]


#: What ``add_bot`` takes as a level: `fabula.bots.base.BOT_LEVELS`, or ``model:NAME`` of a model
#: bot (`fabula.bots.base.MODEL_NAME`; a test holds them equal).
BOT_LEVEL_PATTERN = r"^(random|easy|normal|hard|model:[A-Za-z0-9][A-Za-z0-9_.-]{0,31})$"


class AddBot(ClientMessage, tag="add_bot"):
    """Host, before the start: a bot takes a free seat. ``random`` plays blind; ``easy``, ``normal``
    and ``hard`` read the clue and the cards' descriptions (on a deck without descriptions they
    play blind too); ``model:NAME`` plays on the language model the server's operator named NAME
    (`/api/modes` lists them as ``model_bots``; one this server does not have is refused with
    ``unknown_bot``)."""

    reply: ClassVar[str] = HOST_REPLY

    level: Annotated[
        str,
        msgspec.Meta(
            pattern=BOT_LEVEL_PATTERN,
            description="`random`, `easy`, `normal`, `hard`, or `model:NAME` for one of the server's model bots",
        ),
    ] = "normal"
    #: the language of the bot's clues (the web client sends its own); it reads clues in any
    language: Language = "en"


class Kick(ClientMessage, tag="kick"):
    """Host: remove a member (a bot, or a person — whose seat a bot then plays). Every connection
    of a removed person is told (`error` ``removed``, id null) and goes on as a spectator's."""

    reply: ClassVar[str] = HOST_REPLY

    member: Number


class PassHost(ClientMessage, tag="pass_host"):
    """Host: hand hosting to another person in the room."""

    reply: ClassVar[str] = HOST_REPLY

    member: Number


class AnswerAsk(ClientMessage, tag="answer_ask"):
    """Host, in streamer mode: let in (``approve`` true) or turn away someone's request to join
    (``snapshot.asks``). Let in, they are seated as a join would seat them — a new seat, or during a
    game the seat they asked to take over; their waiting page is told either way."""

    reply: ClassVar[str] = (
        "a `state` to every connection, then `ack`; `error` `not_host`, `no_ask` (no request of that number "
        "waits), or what a join would be refused with (`room_full`, `name_taken`, `colour_taken`, `seat_taken`, …)"
    )

    ask: Number
    approve: bool


class Start(ClientMessage, tag="start"):
    """Host: start the game with the members present."""

    reply: ClassVar[str] = HOST_REPLY


class Rematch(ClientMessage, tag="rematch"):
    """Host, after the end: a new game with the same seats."""

    reply: ClassVar[str] = HOST_REPLY


class End(ClientMessage, tag="end"):
    """Host, during a game: end it now; the scores as they stand decide (the round being played
    does not count)."""

    reply: ClassVar[str] = (
        "a `state` (the game over) to every connection, then `ack`; from anyone but the host, `error` `not_host`"
    )


class Pause(ClientMessage, tag="pause"):
    """Host, during a game: pause it. The phase's timer stands still and nothing moves — a move
    (anyone's) is refused with ``paused`` and no bot moves, not even for someone gone — until the
    host resumes; chat, leaving, ending the game and handing hosting on still work. A second
    ``pause`` is refused with ``paused``."""

    reply: ClassVar[str] = (
        "a `state` (`paused` true) to every connection, then `ack`; `error` `not_host`, `not_started` "
        "(no game being played) or `paused`"
    )


class Resume(ClientMessage, tag="resume"):
    """Host: resume the paused game; its timer goes on with the time it had left."""

    reply: ClassVar[str] = "a `state` to every connection, then `ack`; `error` `not_host` or `not_paused`"


#: How much ``add_time`` adds: seconds, 30 unless said.
ADD_TIME_RANGE = (5, 600)


class AddTime(ClientMessage, tag="add_time"):
    """Host, during a game: give the phase being played more time on its timer (also while paused;
    a timer that has just run out gets them from now). A timer may have at most an hour left."""

    reply: ClassVar[str] = (
        "a `state` (a later `deadline`, `time_added`) to every connection, then `ack`; `error` `not_host`, "
        "`not_started`, `no_timer` (this phase has no timer) or `too_much_time`"
    )

    seconds: Annotated[int, msgspec.Meta(ge=ADD_TIME_RANGE[0], le=ADD_TIME_RANGE[1])] = 30


class Ping(ClientMessage, tag="ping"):
    """Answered by ``pong``; keeps a connection through proxies that close idle ones."""

    reply: ClassVar[str] = "`pong` (also for a spectator)"


class GetAlbum(ClientMessage, tag="album"):
    """Ask for a game's album: every round revealed so far, as the table saw it (also a
    spectator's and the TV board's way to it: they hold no seat token for the HTTP routes)."""

    reply: ClassVar[str] = (
        "`album` (changes nothing); a spectator may ask only for the room's latest game, else `error` `no_game`"
    )

    game: Annotated[
        int | None,
        msgspec.Meta(description="the game's number in the room (from 1); null: the latest, being played or just over"),
    ] = None


class CrowdVote(ClientMessage, tag="crowd_vote"):
    """An audience member's vote (`hello` with ``audience``): during the vote phase, once a round,
    the card on the table they think is the storyteller's. It never changes the players' scores:
    the audience has its own points (1 per card found) and leaderboard (the album's ``audience``).
    Votes are stored in batches (a fraction of a second): the ``ack`` comes once yours is."""

    reply: ClassVar[str] = (
        "`audience` (your standing, `vote` set), then `ack`; or `error` (`not_audience`, `wrong_phase`, "
        "`already_voted`, `not_on_table`, `paused`)"
    )

    card: Annotated[str, msgspec.Meta(min_length=1, max_length=CARD_ID_MAX, description="a card id on the table")]


AnyClientMessage = (
    Hello
    | Act
    | Legal
    | GetAlbum
    | Say
    | Leave
    | ChangeSettings
    | SetTeams
    | AddBot
    | Kick
    | PassHost
    | AnswerAsk
    | Start
    | Rematch
    | End
    | Pause
    | Resume
    | AddTime
    | CrowdVote
    | Ping
)


class ServerMessage(msgspec.Struct, tag_field="type"):
    pass


class Welcome(ServerMessage, tag="welcome"):
    """Answer to ``hello``: who you are here (``member`` null for a spectator; ``audience``: your
    standing, for a member of the audience) and the recent chat."""

    id: str
    member: int | None
    chat: list[ChatLine]
    audience: AudienceYou | None = None


class State(ServerMessage, tag="state"):
    """The room as you may see it, your seat's game view included. Sent on connecting and after
    every accepted change; each one is complete, so a client just renders the newest."""

    room: RoomSnapshot


class Ack(ServerMessage, tag="ack"):
    """Your message ``id`` was accepted and stored as the room's entry ``seq``."""

    id: str
    seq: int


class Error(ServerMessage, tag="error"):
    """Your message ``id`` (null if it could not be read) was refused; nothing changed."""

    id: str | None
    code: str
    message: str


class LegalMoves(ServerMessage, tag="legal"):
    """Answer to ``legal``: the actions your seat may make now, in the form ``act`` takes them (a
    ``tell`` or ``blind_clue`` comes with ``clue`` null: fill it in). Empty when nothing is awaited
    of you."""

    id: str
    actions: list[dict[str, Any]]


class ChatLine(ServerMessage, tag="chat"):
    """One chat line, sent to every connection that may read it when someone says something
    (``team_only``: only to the pair's connections); ``welcome`` carries the recent ones. ``at``
    is Unix time."""

    member: int
    name: str
    text: str
    team_only: bool
    at: float


class Pong(ServerMessage, tag="pong"):
    """Answer to ``ping``."""

    id: str


class AlbumPage(ServerMessage, tag="album"):
    """Answer to ``album``: the game's album (null: the room has had no game yet)."""

    id: str
    album: Album | None


class AudienceStanding(ServerMessage, tag="audience"):
    """To a member of the audience alone, when their standing changes: their vote was stored
    (before its ``ack``), a round was revealed (their points), a new round or game began."""

    you: AudienceYou


AnyServerMessage = Welcome | State | Ack | Error | LegalMoves | ChatLine | Pong | AlbumPage | AudienceStanding

_client_decoder = msgspec.json.Decoder(AnyClientMessage)
_encoder = msgspec.json.Encoder()


class ProtocolCode(ErrorCode):
    """What any message may meet, whatever it asks: too large, too soon, or the server failing on
    it. (One that cannot be read at all is `fabula.errors.CommonCode.MALFORMED`.)"""

    TOO_LARGE = "too_large", 400, "The message, or an HTTP request's body, is larger than the server reads.", Reach.BOTH
    RATE_LIMITED = (
        "rate_limited",
        429,
        "Too many messages from this connection: slow down, then send it again.",
        Reach.SOCKET,
    )
    INTERNAL = "internal", 500, "The server failed on the message (a bug of ours); nothing changed.", Reach.SOCKET


class BadMessage(Exception):
    """A message refused before it is read: too large, too soon, or unreadable."""

    def __init__(self, code: ProtocolCode | CommonCode, message: str, message_id: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.message_id = code, message, message_id


def decode_client(data: bytes | str) -> AnyClientMessage:
    """The message in ``data``, or `BadMessage` saying what is wrong with it (with its id, if any)."""
    try:
        return _client_decoder.decode(data)
    except msgspec.DecodeError as error:
        raise BadMessage(CommonCode.MALFORMED, f"Unreadable message: {error}", guess_id(data)) from None
    except RecursionError:
        raise BadMessage(CommonCode.MALFORMED, "Unreadable message: nested too deeply.") from None


def guess_id(data: bytes | str) -> str | None:
    """The id of a message that failed to decode, so the error can still name it."""
    try:
        # the standard library reads what msgspec refuses (1e400, lone surrogate escapes)
        found = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if isinstance(found, dict):
        message_id = found.get("id")
        if isinstance(message_id, str) and 0 < len(message_id) <= ID_MAX and _encodable(message_id):
            return message_id
    return None


def _encodable(text: str) -> bool:
    """Whether ``text`` can be sent back: a lone surrogate escape (``"\\ud800"``) cannot."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def encode(message: AnyServerMessage) -> bytes:
    return _encoder.encode(message)


def schemas() -> dict[str, Any]:
    """JSON Schemas of every client and server message (for docs/protocol.md)."""
    client_schema = msgspec.json.schema(AnyClientMessage)
    server_schema = msgspec.json.schema(AnyServerMessage)
    return {"client": client_schema, "server": server_schema}
