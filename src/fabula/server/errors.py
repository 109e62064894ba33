"""What the server's parts refuse, and why: `RoomError` and its codes, `RoomCode`."""

from __future__ import annotations

from fabula.errors import CommonCode, ErrorCode, Reach
from fabula.rules.errors import RuleCode, RulesError


class RoomCode(ErrorCode):
    """What the room, its commands, its seats and the service refuse (the engine's refusals keep
    their `RuleCode`s on the way through).

    Over HTTP every one is a 400 but ``no_room`` and ``no_game`` (404), ``removed_here`` (403) and
    ``too_many_rooms`` (429); a code sent only on the socket has a status of its kind too
    (``chat_rate_limited`` 429, ``chat_closed`` 403, ``paused`` 409). Where one can be sent follows from the
    requests whose checks raise it: a join comes over HTTP (and a bot's over the WebSocket),
    everything else a member does over the WebSocket."""

    ALBUM_TOO_TALL = (
        "album_too_tall",
        400,
        "The album is too long for one picture (many rounds at many seats): take it a round at a time.",
        Reach.HTTP,
    )
    ALREADY_VOTED = (
        "already_voted",
        409,
        "An audience member votes once a round, and this one has voted in this round already.",
        Reach.SOCKET,
    )
    ALREADY_GREETED = "already_greeted", 400, "This connection has said hello already.", Reach.SOCKET
    BAD_DECKS = (
        "bad_decks",
        400,
        "The decks are none, more than eight, one twice, or one this server does not have.",
        Reach.BOTH,
    )
    BAD_MEMBER = "bad_member", 400, "A member numbered out of joining order.", Reach.BOTH
    BAD_SEATING = "bad_seating", 400, "A seating that does not give every member exactly one seat.", Reach.SOCKET
    BAD_SETTINGS = "bad_settings", 400, "The room settings are not an object of known fields and types.", Reach.HTTP
    BAD_TIMER = "bad_timer", 400, "A phase timer outside the range timers may have.", Reach.BOTH
    BAD_TOKEN = "bad_token", 400, "The seat token is not valid in this room.", Reach.SOCKET
    CHAT_CLOSED = (
        "chat_closed",
        403,
        "The table is quiet from the storyteller's clue until the reveal (no discussion before the votes are"
        " final): the line is not kept. Team chat stays open; the host may allow table talk as a house rule.",
        Reach.SOCKET,
    )
    CHAT_RATE_LIMITED = "chat_rate_limited", 429, "Too much chat from this connection; wait a moment.", Reach.SOCKET
    COLOUR_TAKEN = (
        "colour_taken",
        400,
        "The rabbit is someone else's (taking over a seat, you play the seat's rabbit).",
        Reach.BOTH,
    )
    CONFLICT = "conflict", 400, "Someone else changed the room at the same moment; try again.", Reach.BOTH
    EXISTS = "exists", 400, "The room exists already.", Reach.HTTP
    GAME_STARTED = "game_started", 400, "The game has started: that is done before it, or between games.", Reach.BOTH
    HELLO_FIRST = "hello_first", 400, "A message before the connection's hello.", Reach.SOCKET
    KICK_SELF = "kick_self", 400, "The host kicking themselves: to give up a seat, leave.", Reach.SOCKET
    MESSAGE_EMPTY = "message_empty", 400, "The chat line is empty once cleaned.", Reach.SOCKET
    MESSAGE_TOO_LONG = "message_too_long", 400, "The chat line is too long.", Reach.SOCKET
    NAME_EMPTY = "name_empty", 400, "The name is empty once cleaned.", Reach.BOTH
    NAME_TAKEN = "name_taken", 400, "Someone in the room already has that name (in any case).", Reach.BOTH
    NAME_TOO_LONG = "name_too_long", 400, "The name is too long.", Reach.BOTH
    NO_ASK = (
        "no_ask",
        400,
        "No request to join of that number waits (it was answered), or this token made none here.",
        Reach.BOTH,
    )
    NO_CODE = "no_code", 400, "No free room code was found; try again.", Reach.HTTP
    NO_GAME = "no_game", 404, "The room has no finished game of that number (or it is still being played).", Reach.BOTH
    NO_ROOM = "no_room", 404, "There is no room with that code (or it was deleted after a while unused).", Reach.BOTH
    NO_TIMER = "no_timer", 400, "Time is added to a running phase timer: this phase has none.", Reach.SOCKET
    NOT_AUDIENCE = (
        "not_audience",
        403,
        "Only the audience votes with `crowd_vote` (a `hello` with `audience`); players vote in the game.",
        Reach.SOCKET,
    )
    NOT_AWAY = "not_away", 400, "A return to the table of a player who is at it already.", Reach.NOWHERE
    NOT_HOST = "not_host", 400, "Only the host may do that.", Reach.SOCKET
    NOT_PAUSED = "not_paused", 400, "The game is not paused: there is nothing to resume.", Reach.SOCKET
    NOT_ON_TABLE = "not_on_table", 400, "An audience vote for a card that is not on the table.", Reach.SOCKET
    NOT_OVER = "not_over", 400, "The game is not over: no rematch yet, and no log to read.", Reach.BOTH
    NOT_SEATED = "not_seated", 400, "Spectators do not play.", Reach.SOCKET
    NOT_STARTED = "not_started", 400, "No game is being played.", Reach.BOTH
    NOT_TEAMS = "not_teams", 400, "Teams, and team chat, are only for mode teams.", Reach.SOCKET
    NOT_YOUR_SEAT = "not_your_seat", 400, "A move for another seat than one's own.", Reach.SOCKET
    PAUSED = (
        "paused",
        409,
        "The host paused the game: no move is made (by anyone, nor by a bot) until the host resumes it.",
        Reach.SOCKET,
    )
    REMOVED = (
        "removed",
        400,
        "The host removed you from the room: a notice (your connection goes on as a spectator's), and the"
        " answer to a hello with the seat token you had.",
        Reach.SOCKET,
    )
    REMOVED_HERE = (
        "removed_here",
        403,
        "The host removed this browser's player from the room: it may watch, not take a seat again.",
        Reach.HTTP,
    )
    ROOM_FULL = "room_full", 400, "No seat or rabbit is left for another player.", Reach.BOTH
    SEAT_TAKEN = "seat_taken", 400, "The seat is not free to take over: someone plays it.", Reach.BOTH
    SPECTATOR = "spectator", 400, "Spectators only watch (and ping).", Reach.SOCKET
    STALE = (
        "stale",
        400,
        "A bot's move for a table that changed while it was thinking: the move is dropped.",
        Reach.NOWHERE,
    )
    STORE_FAILED = "store_failed", 400, "The server could not save that; try again.", Reach.BOTH
    TOO_MUCH_TIME = (
        "too_much_time",
        400,
        "A timer with more than an hour left is given no more time.",
        Reach.SOCKET,
    )
    TOO_MANY_ASKS = (
        "too_many_asks",
        429,
        "Streamer mode: too many requests to join from this network lately, or too many waiting in the room.",
        Reach.HTTP,
    )
    TOO_MANY_ROOMS = "too_many_rooms", 429, "This network has as many rooms in use as it may.", Reach.HTTP
    UNKNOWN_BOT = "unknown_bot", 400, "There is no bot of that level.", Reach.BOTH
    UNKNOWN_COLOUR = "unknown_colour", 400, "There is no rabbit of that colour.", Reach.BOTH
    UNKNOWN_SOUND = (
        "unknown_sound",
        400,
        "The clue names a sound that its storyteller did not record in this room.",
        Reach.SOCKET,
    )
    UNKNOWN_LANGUAGE = "unknown_language", 400, "Bots do not give clues in that language.", Reach.BOTH
    UNKNOWN_MEMBER = (
        "unknown_member",
        400,
        "There is no such player in the room (or not one who may do that).",
        Reach.SOCKET,
    )
    UNKNOWN_TYPE = "unknown_type", 400, "A message the room has no command for.", Reach.SOCKET


class RoomError(RulesError):
    """A request the room refuses (taken colour, not the host, game already started, …)."""

    code: RoomCode | RuleCode | CommonCode

    def __init__(self, code: RoomCode | RuleCode | CommonCode, message: str) -> None:
        super().__init__(code, message)
