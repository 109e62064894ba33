"""Commands: what a member's message asks of a room, as the entry that would do it — or a refusal.

`entry_for` is pure: a room and a message in, an entry out (or `RoomError` / the engine's
`RulesError` saying why not), no I/O and no change to the room. Authorisation lives here: who
may do what is decided on the room the entry is made for. `Rooms.commit` calls it inside the
room's lock, and again on the room as it now is if another process changed it first — so a host
who was replaced in between is refused, as they would be had the request come a moment later.

Messages that change nothing (``hello``, ``ping``, ``legal``) are not commands: the service
answers them itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fabula import protocol as p
from fabula.bots.base import BOT_LEVELS, model_of
from fabula.cards.library import DeckError, DeckLibrary
from fabula.cards.model import Card

from .entries import (
    Acted,
    AnyEntry,
    AskRefused,
    Ended,
    HostPassed,
    Joined,
    Left,
    Paused,
    Resumed,
    Said,
    SettingsChanged,
    Started,
    TeamsSet,
    TimeAdded,
)
from .errors import RoomCode, RoomError
from .room import Room

#: The client messages that become entries.
Command = (
    p.Act
    | p.Say
    | p.Leave
    | p.End
    | p.ChangeSettings
    | p.SetTeams
    | p.AddBot
    | p.Kick
    | p.PassHost
    | p.AnswerAsk
    | p.Start
    | p.Pause
    | p.Resume
    | p.AddTime
)
COMMANDS = (
    p.Act,
    p.Say,
    p.Leave,
    p.End,
    p.ChangeSettings,
    p.SetTeams,
    p.AddBot,
    p.Kick,
    p.PassHost,
    p.AnswerAsk,
    p.Start,
    p.Pause,
    p.Resume,
    p.AddTime,
)


@dataclass(frozen=True, slots=True)
class Context:
    """What a command needs besides the room: who sent it and when, the decks there are, and —
    for a start — where a game's seed comes from (asked only when a game starts)."""

    member: int
    now: float
    library: DeckLibrary
    seed: Callable[[], int]
    #: the room's own pictures, as cards (read by the service when the command may deal them)
    own: tuple[Card, ...] = ()
    #: the names of this server's model bots (``add_bot`` with ``model:NAME``)
    model_bots: frozenset[str] = frozenset()
    #: the member who recorded the sound a clue names in this room (None: nobody; read by the
    #: service for a ``tell`` or ``blind_clue`` with a ``sound``)
    sound_by: int | None = None


def clue_sound(message: object) -> str | None:
    """The sound a clue (``tell``, ``blind_clue``) names, if ``message`` is one that names one (a
    ``sound`` that is not text is the engine's to refuse as malformed)."""
    if not isinstance(message, p.Act) or message.action.get("type") not in ("tell", "blind_clue"):
        return None
    sound = message.action.get("sound")
    return sound if isinstance(sound, str) else None


def entry_for(message: Command | p.Rematch, context: Context, room: Room) -> AnyEntry:
    """The entry ``message`` makes on ``room``; `RoomError` if ``context.member`` may not. A
    ``leave`` from member 2 is ``Left(member=2, by=2, client_id=<its id>)``; a ``kick`` from
    anyone but the host is refused with ``not_host``."""
    member, now, cid = context.member, context.now, message.id
    match message:
        case p.Act():
            if clue_sound(message) is not None and context.sound_by != member:
                raise RoomError(RoomCode.UNKNOWN_SOUND, "You did not record that sound in this room; record again.")
            return Acted(at=now, client_id=cid, by=member, member=member, action=message.action)
        case p.Say():
            # (here, not in `Room.apply`: a log kept before the rule still replays)
            if not message.team_only and not room.table_chat_open():
                raise RoomError(
                    RoomCode.CHAT_CLOSED,
                    "The table is quiet from the clue until the reveal (no discussion before the votes are final).",
                )
            return Said(at=now, client_id=cid, by=member, member=member, text=message.text, team_only=message.team_only)
        case p.Leave():
            return Left(at=now, client_id=cid, by=member, member=member, for_good=message.for_good)
    # everything else is the host's
    if room.host != member:
        raise RoomError(RoomCode.NOT_HOST, "Only the host can do that.")
    match message:
        case p.End():
            return Ended(at=now, client_id=cid, by=member)
        case p.ChangeSettings():
            _check_decks(context.library, message.settings.decks, context.own)
            return SettingsChanged(at=now, client_id=cid, by=member, settings=message.settings)
        case p.SetTeams():
            return TeamsSet(at=now, client_id=cid, by=member, pairs=message.pairs)
        case p.AddBot():
            _check_level(message.level, context.model_bots)
            return bot_joins(room, now, cid, member, level=message.level, language=message.language)
        case p.Kick():
            if message.member == member:
                raise RoomError(RoomCode.KICK_SELF, "To give up your seat, leave.")
            return Left(at=now, client_id=cid, by=member, member=message.member, kicked=True)
        case p.PassHost():
            return HostPassed(at=now, client_id=cid, by=member, member=message.member)
        case p.AnswerAsk():
            return _answer(room, message, now, member)
        case p.Pause():
            return Paused(at=now, client_id=cid, by=member)
        case p.Resume():
            return Resumed(at=now, client_id=cid, by=member)
        case p.AddTime():
            return TimeAdded(at=now, client_id=cid, by=member, seconds=message.seconds)
        case p.Rematch():
            if room.status != "over":
                raise RoomError(RoomCode.NOT_OVER, "A rematch is offered when the game is over.")
            return _started(room, context, cid)
        case p.Start():
            if room.status != "lobby":
                raise RoomError(RoomCode.GAME_STARTED, "The game has started already.")
            return _started(room, context, cid)
    raise RoomError(RoomCode.UNKNOWN_TYPE, f"Unknown message type {type(message).__name__}.")  # pragma: no cover


def bot_joins(room: Room, now: float, cid: str | None, by: int, *, level: str, language: str) -> Joined:
    """A bot taking the first free rabbit, named after it."""
    free = room.free_colours()
    if not free:
        raise RoomError(RoomCode.ROOM_FULL, "Every rabbit is taken.")
    colour = free[0]
    names = {m.name for m in room.members.values()}
    base = f"Bot {colour.title()}"
    name = next(n for n in (base, *(f"{base} {i}" for i in range(2, 99))) if n not in names)
    return Joined(
        at=now,
        client_id=cid,
        by=by,
        member=room.next_member,
        name=name,
        colour=colour,
        token_hash="",
        bot=level,
        bot_language=language,
    )


def _answer(room: Room, message: p.AnswerAsk, now: float, by: int) -> Joined | AskRefused:
    """The host's answer to a request to join: its seat (a join as the request asked), or no."""
    ask = room.asks.check_answer(message.ask)
    if not message.approve:
        return AskRefused(at=now, client_id=message.id, by=by, ask=ask.number)
    return Joined(
        at=now,
        client_id=message.id,
        by=by,
        member=room.next_member,
        name=ask.name,
        colour=ask.colour,
        token_hash=ask.token_hash,
        replaces=ask.replaces,
        ask=ask.number,
    )


def _check_level(level: str, models: frozenset[str]) -> None:
    """`RoomError` ``unknown_bot`` unless ``level`` is a built-in level or one of ``models``'s."""
    name = model_of(level)
    if name is not None and name not in models:
        offered = ", ".join(sorted(models)) or "none"
        raise RoomError(RoomCode.UNKNOWN_BOT, f"This server has no model bot {name!r} (its model bots: {offered}).")
    if name is None and level not in BOT_LEVELS:
        raise RoomError(RoomCode.UNKNOWN_BOT, f"Unknown bot level {level!r}.")


def _started(room: Room, context: Context, cid: str) -> Started:
    room.check_start()
    deck = _check_decks(context.library, room.settings.decks, context.own)
    seating = list(room.seating) if room.status == "over" else room.default_seating()
    return Started(at=context.now, client_id=cid, by=context.member, seed=context.seed(), seating=seating, deck=deck)


def _check_decks(library: DeckLibrary, decks: list[str], own: tuple[Card, ...]) -> list[str]:
    """The card ids of ``decks``; `RoomError` ``bad_decks`` if one is unknown or they are too few."""
    try:
        return [card.id for card in library.cards(decks, own)]
    except DeckError as error:
        raise RoomError(RoomCode.BAD_DECKS, error.message) from None
