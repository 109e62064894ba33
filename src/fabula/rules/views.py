"""The one place where a game's secrets are stripped: what one seat, or a spectator, may see.

A view holds the seat's own hand and moves, the public table, who has acted (never what), the
scores, and the last round's full result. Before the reveal it names no card's owner (except the
seat's own cards) and no vote (except the seat's own).

Views read a game only through `GameState`, its public read-only API, so what a view can know is
written down in one place. A view is a typed value (`SeatView`); `SeatView.to_json` gives it as
the JSON object a client receives.

>>> from fabula.rules import Game
>>> game = Game.new("odyssey", seats=4, seed=3)
>>> spectator = game.view(None)
>>> spectator.hand is None and spectator.phase == "clue"
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from .modes import Ruleset
from .results import Outcome, RoundResult
from .state import GameState, Phase, SeatSecrets

#: An option's value as `fabula.rules.Options` holds it.
OptionValue = bool | int | str | None


class TableSlot(msgspec.Struct, frozen=True):
    """One card face up for the vote."""

    slot: Annotated[int, Meta(description="slot number, 1..n (what `vote` names)")]
    card: Annotated[str, Meta(description="card id")]
    yours: Annotated[bool, Meta(description="whether the card is yours")]


class SeatView(msgspec.Struct, kw_only=True):
    """Everything one seat may know of a game, and nothing more (``seat`` null: a spectator's,
    which is everything public). The fields that appear only in the modes they belong to are
    left out elsewhere.

    The fields come in the order of how long they keep their value: the game's settings, what
    changes once a phase, the last round, who is awaited and has acted (every move), and last
    the seat's own part — so that `ViewEncoder` can encode what several views share once."""

    mode: Annotated[str, Meta(description="the game's mode")]
    seats: Annotated[int, Meta(description="how many seats (players) the game has")]
    options: Annotated[
        dict[str, OptionValue], Meta(description="every option of the mode, resolved (see docs/modes.md)")
    ]
    teams: Annotated[list[list[int]] | None, Meta(description="mode `teams`: the pairs of seats; null otherwise")]
    tokens: Annotated[int, Meta(description="voting tokens each voter has")]
    round: Annotated[int, Meta(description="the round, from 1")]
    phase: Annotated[str, Meta(description='`"clue"`, `"play"`, `"vote"` or `"over"`')]
    storyteller: Annotated[int, Meta(description="the storyteller's seat")]
    clue: Annotated[
        str | None,
        Meta(description='the clue; null before it is given; said aloud: the words typed for it, maybe none (`""`)'),
    ]
    aloud: Annotated[
        bool, Meta(description="whether the storyteller said the clue aloud at the table (listen: `clue` may be empty)")
    ]
    sound: Annotated[
        str | None,
        Meta(
            description="the id of the sound the storyteller recorded for the clue (play it from"
            " `/api/rooms/{code}/sounds/{id}`; `clue` may then be empty); null: none"
        ),
    ]
    voters: Annotated[list[int], Meta(description="the seats that vote this turn (known once the table is laid)")]
    scores: Annotated[list[int], Meta(description="points by seat")]
    draw_pile: Annotated[int, Meta(description="cards left to draw")]
    discard_pile: Annotated[int, Meta(description="cards discarded")]
    outcome: Annotated[Outcome | None, Meta(description="the end of the game; null until it is over")]
    red_token_placed: Annotated[
        bool | UnsetType, Meta(description="party: whether the storyteller has put the red token down")
    ] = UNSET
    last_round: Annotated[
        RoundResult | None, Meta(description="the previous round, revealed in full; null before the first reveal")
    ]
    awaiting: Annotated[list[int], Meta(description="the seats whose move the table waits for")]
    acted: Annotated[
        list[int],
        Meta(description="the seats that have played (play phase) or voted (vote phase) this turn — who, never what"),
    ]
    table: Annotated[
        list[TableSlot], Meta(description="the cards face up for the vote, by slot; empty before the vote")
    ]
    seat: Annotated[int | None, Meta(description="your seat, 0-based; null for a spectator")]
    hand: Annotated[
        list[str] | None,
        Meta(
            description="your cards (those you put down stay in it until the table is laid); null for a "
            "spectator, and for a party storyteller before the blind clue"
        ),
    ]
    hand_hidden: Annotated[
        bool,
        Meta(description="whether your hand is being kept from you (party: the storyteller, before the blind clue)"),
    ]
    cards_to_play: Annotated[
        int,
        Meta(description="how many cards you put down this turn (0 outside the play phase, or if you do not play)"),
    ]
    my_cards: Annotated[
        list[str], Meta(description="the cards you put down this turn (the storyteller's card included)")
    ]
    my_vote: Annotated[list[int], Meta(description="the slots your tokens are on")]
    my_red: Annotated[
        int | UnsetType | None, Meta(description="party: the storyteller's red-token slot; null for everyone else")
    ] = UNSET
    my_proposal: Annotated[
        str | UnsetType | None, Meta(description="teams: the card you offered to play for your team; null if none")
    ] = UNSET
    teammate_proposed: Annotated[
        bool | UnsetType, Meta(description="teams: whether your teammate has offered a card (never which)")
    ] = UNSET

    def to_json(self) -> dict[str, Any]:
        """The view as the JSON object a client receives (what a bot reads)."""
        # through the encoder, not to_builtins (which keeps tuples): exactly what is sent
        found: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self))
        return found


def seat_view(game: GameState, seat: int | None) -> SeatView:
    """The view of ``seat`` (``None``: a spectator, who sees only what is public)."""
    return _personal(game, _public(game), seat)


def seat_views(game: GameState, seats: Iterable[int | None]) -> dict[int | None, SeatView]:
    """The views of several seats at once (what a server sends after each change): the public
    part is built once and its values shared, read-only, by every view."""
    public = _public(game)
    return {seat: _personal(game, public, seat) for seat in seats}


def _settings(game: GameState) -> dict[str, Any]:
    """The public fields that keep their value the whole game."""
    rules = game.rules
    return {
        "mode": rules.mode.name,
        "seats": rules.seats,
        "options": rules.options_json,
        "teams": None if rules.teams is None else [list(pair) for pair in rules.teams],
        "tokens": rules.tokens,
    }


def _phase_part(game: GameState) -> dict[str, Any]:
    """The public fields that keep their value for a phase (in party, until the red token is
    down), but the last round."""
    return _phase_fields(_phase_values(game))


#: the public fields of a phase, in `_phase_values`' order
_PHASE_FIELDS = (
    "round",
    "phase",
    "storyteller",
    "clue",
    "aloud",
    "sound",
    "voters",
    "scores",
    "draw_pile",
    "discard_pile",
    "outcome",
)

_PhaseValues = tuple[
    int, Phase, int, "str | None", bool, "str | None", tuple[int, ...], tuple[int, ...], int, int, Any, "bool | None"
]


def _phase_values(game: GameState) -> _PhaseValues:
    """`_phase_part`'s values as values that stay as they are (a tuple: ViewHead takes one a
    phase, and most are never encoded); the last is whether the red token is down (None: the
    mode has none)."""
    return (
        game.round,
        game.phase,
        game.storyteller,
        game.clue,
        game.aloud,
        game.sound,
        game.voters,
        tuple(game.scores),
        game.draw_pile_size,
        game.discard_size,
        game.outcome,
        (game.red is not None) if game.rules.mode.red_token else None,
    )


def _phase_fields(values: _PhaseValues) -> dict[str, Any]:
    part = dict(zip(_PHASE_FIELDS, values[:-1], strict=True))
    part["phase"] = values[1].value
    part["voters"], part["scores"] = list(values[6]), list(values[7])
    if values[-1] is not None:
        part["red_token_placed"] = values[-1]
    return part


def _public_table(cards: Iterable[str]) -> list[TableSlot]:
    """The table's slots as everyone sees them (no card marked as one's own)."""
    return [TableSlot(i + 1, card, False) for i, card in enumerate(cards)]


def _public(game: GameState) -> SeatView:
    """The spectator's view: everything public, and every seat's own part empty."""
    rules = game.rules
    return SeatView(
        **_settings(game),
        **_phase_part(game),
        last_round=game.last_result,
        awaiting=list(game.awaiting),
        acted=list(game.acted),
        table=_public_table(game.table),
        seat=None,
        hand=None,
        hand_hidden=False,
        cards_to_play=0,
        my_cards=[],
        my_vote=[],
        my_red=None if rules.mode.red_token else UNSET,
        my_proposal=None if rules.team_of is not None else UNSET,
        teammate_proposed=False if rules.team_of is not None else UNSET,
    )


def _personal(game: GameState, public: SeatView, seat: int | None) -> SeatView:
    """``public`` with ``seat``'s own part filled in (a new view; ``public`` is not changed)."""
    if seat is None:
        return msgspec.structs.replace(public)
    return msgspec.structs.replace(public, **_own_part(game, seat, public.table))


def _own_part(game: GameState, seat: int, public_table: list[TableSlot]) -> dict[str, Any]:
    """The fields of ``seat``'s view that are its own, by name and in the view's order: what it
    adds to the public view (whose table is ``public_table``). The ``table`` is there only if the
    seat has a card on it (else the public one is its)."""
    rules = game.rules
    if not (type(seat) is int and 0 <= seat < rules.seats):
        raise ValueError(f"no seat {seat!r}")
    return _own_fields(rules, seat, game.secrets(seat), public_table)


def _own_fields(rules: Ruleset, seat: int, secrets: SeatSecrets, public_table: list[TableSlot]) -> dict[str, Any]:
    """`_own_part` from the seat's `SeatSecrets`: the only place a seat's secrets enter a view."""
    hand, played, vote = secrets.hand, secrets.played, secrets.vote
    own: dict[str, Any] = {
        "seat": seat,
        "hand": None if hand is None else list(hand),
        "hand_hidden": hand is None,
        "cards_to_play": secrets.cards_to_play,
        "my_cards": [] if played is None else list(played),
        "my_vote": [] if vote is None else list(vote),
    }
    if rules.mode.red_token:
        own["my_red"] = secrets.red
    if rules.team_of is not None:
        own["my_proposal"] = secrets.proposal
        own["teammate_proposed"] = secrets.teammate_proposed
    if secrets.slots:  # only then does the table differ from the public one (in the seat's own slots)
        table = list(public_table)  # (frozen slots: the others are shared as they are)
        for i in secrets.slots:
            table[i] = TableSlot(i + 1, table[i].card, True)
        own = {"table": table, **own}
    return own


_encode = msgspec.json.Encoder().encode


class ViewHead:
    """What the views of one phase share: the head of their JSON (the settings, the phase's
    fields, the last round) and the public table, encoded the first time a view needs them."""

    __slots__ = (
        "_json",
        "_last",
        "_settings",
        "_table",
        "_table_json",
        "cards",
        "last_result",
        "phase_values",
        "rules",
    )

    def __init__(self, game: GameState, settings: bytes, last: list[Any]) -> None:
        self.rules = game.rules
        #: the cards on the table (a tuple: it stays as it is; the slots are made when first asked)
        self.cards = game.table
        self._table: list[TableSlot] | None = None
        self.last_result: RoundResult | None = last[0]
        #: the phase's values, taken now (copies, or values that never change): the game goes on
        self.phase_values = _phase_values(game)
        self._settings = settings
        self._last = last  # [the last round, its JSON once encoded]: shared by the round's heads
        self._json = self._table_json = b""  # (empty until first asked)

    @property
    def table(self) -> list[TableSlot]:
        """The public table (`_public_table`)."""
        table = self._table
        if table is None:
            table = self._table = _public_table(self.cards)
        return table

    def json(self) -> tuple[bytes, bytes]:
        """The head (up to ``"awaiting":``) and ``"table":[…],``."""
        if not self._json:
            last = self._last
            if last[1] is None:
                last[1] = _encode(last[0])
            phase = _encode(_phase_fields(self.phase_values))[1:-1]
            self._table_json = b'"table":' + _encode(self.table) + b","
            self._json = b"".join((self._settings, b",", phase, b',"last_round":', last[1], b',"awaiting":'))
        return self._json, self._table_json


class ViewParts(msgspec.Struct, frozen=True, gc=False):
    """One seat's view at one moment, kept as the values it is built from (`ViewEncoder.capture`):
    it can be encoded later, whatever the game has done since. (A frozen `msgspec.Struct`, as
    `SeatSecrets` is, for its constructor in C; nothing it holds holds it.)"""

    head: ViewHead
    seat: int
    awaiting: tuple[int, ...]
    acted: tuple[int, ...]
    secrets: SeatSecrets


class ViewEncoder:
    """Seat views as JSON bytes — ``msgspec.json.encode(seat_view(game, seat))``, byte for byte —
    for a reader that asks for one seat's view after another of a game in play
    (`fabula.research`), encoding once what the views share.

    A view's JSON is the object of its fields in `SeatView`'s order (those left `UNSET`
    omitted), and that order is by how long a field keeps its value. Within a phase only the
    public fields after the last round change from move to move — who is awaited, who has acted
    — and in party whether the red token is down; so the head (settings, the phase's fields,
    the last round) is encoded once a phase from the same parts the view is built of
    (`_settings`, `_phase_part`: the settings once a game, the last round once a round), and a
    seat's view costs those two lists and the seat's own part (`_own_fields`: the engine's one
    place for it).

    A view can also be taken now and encoded later (`capture`, then `render`): the capture keeps
    only values that do not change — the seat's `SeatSecrets`, who is awaited and has acted, the
    phase's head — and costs a fraction of the encoding.

    >>> from fabula.rules import Game
    >>> game = Game.new("teams", seats=6, seed=2)
    >>> encoder = ViewEncoder()
    >>> all(encoder(game, seat) == msgspec.json.encode(game.view(seat)) for seat in range(6))
    True
    >>> then, parts = encoder(game, 1), encoder.capture(game, 1)
    >>> _ = game.apply(game.legal_actions(game.storyteller)[0].with_clue("Dawn"))
    >>> encoder.render(parts)[0] == then != encoder(game, 1)
    True
    """

    __slots__ = ("_game", "_head", "_last", "_phase", "_red", "_red_token", "_round", "_settings")

    def __init__(self) -> None:
        self._game: GameState | None = None
        self._round, self._phase, self._red = 0, Phase.OVER, False
        self._red_token = False  # (whether the game has one: if not, no need to look where it is)
        self._settings = b""
        self._last: list[Any] = [None, None]
        self._head: ViewHead | None = None

    def _new_head(self, game: GameState) -> ViewHead:
        """The head of this phase of ``game``."""
        if game is not self._game:
            self._game = game
            self._settings = _encode(_settings(game))[:-1]
            self._last = [None, None]
            self._red_token = game.rules.mode.red_token
        last = game.last_result
        if last is not self._last[0] or last is None:
            self._last = [last, None]
        head = self._head = ViewHead(game, self._settings, self._last)
        values = head.phase_values
        self._round, self._phase, self._red = values[0], values[1], values[-1] is True
        return head

    def __call__(self, game: GameState, seat: int) -> bytes:
        """``seat``'s view of ``game`` as it is now, as JSON bytes."""
        return self.encode(game, seat)[0]

    def encode(self, game: GameState, seat: int) -> tuple[bytes, dict[str, Any]]:
        """``seat``'s view as JSON bytes, and the view's fields that are the seat's own, by name
        (its ``hand``, its ``my_cards``…: for a reader that needs them as values too)."""
        return self.render(self.capture(game, seat))

    def capture(self, game: GameState, seat: int, awaiting: tuple[int, ...] | None = None) -> ViewParts:
        """``seat``'s view of ``game`` as it is now, to `render` at any time (``awaiting``: the
        game's `awaiting` now, for a caller that has it already)."""
        head = self._head
        if (
            head is None
            or game is not self._game
            or game.phase is not self._phase
            or game.round != self._round
            or (self._red_token and (game.red is not None) is not self._red)
        ):
            head = self._new_head(game)
        if not (type(seat) is int and 0 <= seat < head.rules.seats):
            raise ValueError(f"no seat {seat!r}")
        if awaiting is None:
            awaiting = game.awaiting
        return ViewParts(head, seat, awaiting, game.acted, game.secrets(seat))

    @staticmethod
    def render(parts: ViewParts) -> tuple[bytes, dict[str, Any]]:
        """The view ``parts`` were taken of, as `encode` gives it."""
        head = parts.head
        head_json, table_json = head.json()
        own = _own_fields(head.rules, parts.seat, parts.secrets, head.table)
        own_json = _encode(own)  # '{' + its members + '}': the view's last members, and its end
        table = b"" if "table" in own else table_json
        raw = b"".join(
            (head_json, _encode(parts.awaiting), b',"acted":', _encode(parts.acted), b",", table, own_json[1:])
        )
        return raw, own
