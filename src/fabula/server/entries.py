"""What a room's log holds: every change to a room, as it was accepted, in order.

A room is rebuilt by applying its entries from the first; a running room applies each new entry
the same way, so a restarted server ends in exactly the state it acknowledged. Entries carry
their time (``at``, Unix seconds) so that deadlines can be recomputed, never stored.
"""

from __future__ import annotations

from typing import Any

import msgspec

from fabula.protocol.settings import RoomSettings, StandIn


class Entry(msgspec.Struct, tag_field="kind", forbid_unknown_fields=True, kw_only=True):
    at: float
    #: the id of the client message that made this entry, so a re-sent message is recognised
    #: even after a restart
    client_id: str | None = None
    #: the member whose message made this entry (None: the server itself, or a join over HTTP)
    by: int | None = None


class Created(Entry, tag="created"):
    settings: RoomSettings


class Joined(Entry, tag="joined"):
    member: int
    name: str
    colour: str
    #: SHA-256 of the seat token; the token itself is never stored
    token_hash: str
    #: the bot's level for a seat the host filled with a bot; None for a person
    bot: str | None = None
    #: the language of a bot's clues (None: English, as before there was a choice)
    bot_language: str | None = None
    #: during a game: the member (a bot, or a person who left for good) whose seat this one takes
    replaces: int | None = None
    #: streamer mode: the request to join (`Asked.ask`) the host let in with this seat
    ask: int | None = None


class Asked(Entry, tag="asked"):
    """Streamer mode: someone asked to join (a new seat, or during a game ``replaces``'s seat); they
    wait for the host's answer: a `Joined` with this ``ask``, or `AskRefused`."""

    ask: int
    name: str
    colour: str
    #: SHA-256 of the seat token the asker holds: let in, that token takes their seat
    token_hash: str
    replaces: int | None = None


class AskRefused(Entry, tag="ask_refused"):
    """The host turned away the request to join ``ask``."""

    ask: int


class Left(Entry, tag="left"):
    member: int
    kicked: bool = False
    #: left a game in progress for good: a bot plays the seat to the end (or someone takes it over)
    for_good: bool = False


class HostPassed(Entry, tag="host"):
    """Hosting passed to ``member``."""

    member: int


class SettingsChanged(Entry, tag="settings"):
    settings: RoomSettings


class TeamsSet(Entry, tag="teams"):
    #: pairs of members who play together
    pairs: list[list[int]]


class Started(Entry, tag="started"):
    """A game began (the first, or a rematch with the same seats)."""

    seed: int
    #: the member at each game seat
    seating: list[int]
    #: the card ids of the game's deck, so that a deck deleted later cannot break the replay
    deck: list[str]


#: Why a bot made a person's move: they were away, or their time ran out.


class Acted(Entry, tag="acted"):
    member: int
    action: dict[str, Any]
    #: made by a bot for an absent or timed-out person
    auto: bool = False
    #: why (entries made before this was recorded have none)
    because: StandIn | None = None
    #: a model bot's move that its fallback level made, and why (`fabula.server.model_play.Fallback`:
    #: ``no_model``, ``busy``, ``timeout``, ``illegal``, ``endpoint``); None: the model's own, or no model bot's
    fallback: str | None = None


class Ended(Entry, tag="ended"):
    """The host ended the game in progress: the scores as they stood decide."""


class Returned(Entry, tag="returned"):
    """A member who had left the game in progress is back at the table (their client said hello
    with their seat's token): the bot that played for them stops."""

    member: int


class Paused(Entry, tag="paused"):
    """The host paused the game: its timer stops, and nobody moves (nor any bot) until it resumes."""


class Resumed(Entry, tag="resumed"):
    """The host resumed the paused game: its timer goes on from where it stopped."""


class TimeAdded(Entry, tag="time_added"):
    """The host gave the phase being played ``seconds`` more on its timer."""

    seconds: int


class CrowdVote(msgspec.Struct, array_like=True, frozen=True):
    """One audience member's vote, as a batch stores it (an array: a batch holds thousands)."""

    #: the audience id (from the audience token's hash; the token is never stored)
    audience: str
    #: the name they voted under (the leaderboard shows the latest)
    name: str
    round: int
    card: str
    #: the id of their `crowd_vote` message, so that one sent again is acknowledged, not refused
    client_id: str


class CrowdVoted(Entry, tag="crowd"):
    """A batch of audience votes, each checked when it was made: they fold into the room's crowd
    (`fabula.server.crowd.Crowd`), never into the game."""

    votes: list[CrowdVote]


class Said(Entry, tag="said"):
    member: int
    text: str
    team_only: bool = False


AnyEntry = (
    Created
    | Joined
    | Asked
    | AskRefused
    | Left
    | HostPassed
    | SettingsChanged
    | TeamsSet
    | Started
    | Acted
    | Ended
    | Returned
    | Said
    | Paused
    | Resumed
    | TimeAdded
    | CrowdVoted
)

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyEntry)


def encode(entry: AnyEntry) -> bytes:
    return _encoder.encode(entry)


def decode(data: bytes) -> AnyEntry:
    return _decoder.decode(data)
