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

from .results import Outcome, RoundResult
from .state import GameState, Phase

#: An option's value as `fabula.rules.Options` holds it.
OptionValue = bool | int | str | None


class TableSlot(msgspec.Struct, frozen=True):
    """One card face up for the vote."""

    slot: Annotated[int, Meta(description="slot number, 1..n (what `vote` names)")]
    card: Annotated[str, Meta(description="card id")]
    yours: Annotated[bool, Meta(description="whether the card is yours")]


class SeatView(msgspec.Struct):
    """Everything one seat may know of a game, and nothing more (``seat`` null: a spectator's,
    which is everything public). The last four fields appear only in the modes they belong to."""

    mode: Annotated[str, Meta(description="the game's mode")]
    seats: Annotated[int, Meta(description="how many seats (players) the game has")]
    seat: Annotated[int | None, Meta(description="your seat, 0-based; null for a spectator")]
    options: Annotated[
        dict[str, OptionValue], Meta(description="every option of the mode, resolved (see docs/modes.md)")
    ]
    teams: Annotated[list[list[int]] | None, Meta(description="mode `teams`: the pairs of seats; null otherwise")]
    round: Annotated[int, Meta(description="the round, from 1")]
    phase: Annotated[str, Meta(description='`"clue"`, `"play"`, `"vote"` or `"over"`')]
    storyteller: Annotated[int, Meta(description="the storyteller's seat")]
    awaiting: Annotated[list[int], Meta(description="the seats whose move the table waits for")]
    acted: Annotated[
        list[int],
        Meta(description="the seats that have played (play phase) or voted (vote phase) this turn — who, never what"),
    ]
    clue: Annotated[str | None, Meta(description="the clue; null before it is given")]
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
    tokens: Annotated[int, Meta(description="voting tokens each voter has")]
    my_cards: Annotated[
        list[str], Meta(description="the cards you put down this turn (the storyteller's card included)")
    ]
    table: Annotated[
        list[TableSlot], Meta(description="the cards face up for the vote, by slot; empty before the vote")
    ]
    voters: Annotated[list[int], Meta(description="the seats that vote this turn (known once the table is laid)")]
    my_vote: Annotated[list[int], Meta(description="the slots your tokens are on")]
    scores: Annotated[list[int], Meta(description="points by seat")]
    draw_pile: Annotated[int, Meta(description="cards left to draw")]
    discard_pile: Annotated[int, Meta(description="cards discarded")]
    last_round: Annotated[
        RoundResult | None, Meta(description="the previous round, revealed in full; null before the first reveal")
    ]
    outcome: Annotated[Outcome | None, Meta(description="the end of the game; null until it is over")]
    red_token_placed: Annotated[
        bool | UnsetType, Meta(description="party: whether the storyteller has put the red token down")
    ] = UNSET
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


def public_view(game: GameState) -> SeatView:
    """The spectator's view, which every view of this state extends (`personal_view`)."""
    return _public(game)


def personal_view(game: GameState, public: SeatView, seat: int) -> SeatView:
    """``seat``'s view: ``public`` — this state's `public_view`, or a copy of another state's
    whose public fields are the same — with the seat's own part filled in (``public`` unchanged).
    For a reader that keeps the public part between moves (`fabula.research.observations`)."""
    return _personal(game, public, seat)


def _public(game: GameState) -> SeatView:
    """The spectator's view: everything public, and every seat's own part empty."""
    rules = game.rules
    party, teams = rules.mode.red_token, rules.team_of is not None
    return SeatView(
        mode=rules.mode.name,
        seats=rules.seats,
        seat=None,
        options=rules.options_json,
        teams=None if rules.teams is None else [list(pair) for pair in rules.teams],
        round=game.round,
        phase=game.phase.value,
        storyteller=game.storyteller,
        awaiting=list(game.awaiting),
        acted=list(game.acted),
        clue=game.clue,
        hand=None,
        hand_hidden=False,
        cards_to_play=0,
        tokens=rules.tokens,
        my_cards=[],
        table=[TableSlot(i + 1, card, False) for i, card in enumerate(game.table)],
        voters=list(game.voters),
        my_vote=[],
        scores=list(game.scores),
        draw_pile=game.draw_pile_size,
        discard_pile=game.discard_size,
        last_round=game.last_result,
        outcome=game.outcome,
        red_token_placed=(game.red is not None) if party else UNSET,
        my_red=None if party else UNSET,
        my_proposal=None if teams else UNSET,
        teammate_proposed=False if teams else UNSET,
    )


def _personal(game: GameState, public: SeatView, seat: int | None) -> SeatView:
    """``public`` with ``seat``'s own part filled in (a new view; ``public`` is not changed)."""
    if seat is None:
        return msgspec.structs.replace(public)
    rules = game.rules
    if not (type(seat) is int and 0 <= seat < rules.seats):
        raise ValueError(f"no seat {seat!r}")
    phase = game.phase
    hand_hidden = rules.mode.clue_before_hand and phase is Phase.CLUE and seat == game.storyteller
    owners = game.owners
    view = msgspec.structs.replace(
        public,
        seat=seat,
        hand=None if hand_hidden else list(game.hand(seat)),
        hand_hidden=hand_hidden,
        cards_to_play=game.cards_to_play(seat) if phase is Phase.PLAY else 0,
        my_cards=list(game.played(seat) or ()),
        my_vote=list(game.vote(seat) or ()),
    )
    if seat in owners:  # only then does the table differ from the public one
        view.table = [
            TableSlot(i + 1, card, owner == seat)
            for i, (card, owner) in enumerate(zip(game.table, owners, strict=True))
        ]
    if rules.mode.red_token:
        view.my_red = game.red if seat == game.storyteller else None
    if rules.team_of is not None:
        view.my_proposal = game.proposal(seat)
        view.teammate_proposed = game.proposal(rules.teammate(seat)) is not None
    return view
