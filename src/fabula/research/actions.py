"""The one action space of every research environment: a flat ``Discrete(n)`` of numbered moves.

`ActionSpace.create(mode, seats, options, clues)` numbers every move a seat can make in that
game, whatever the framework (PettingZoo and OpenSpiel use the same ids). Cards are named by
their **position in the seat's hand** as the view lists it (``view["hand"][h]``), never by card
id, so the same id means the same kind of move in every game; slots are the table's 1..T.

The ids come in blocks, in this order; a block the mode does not have is empty (H is the hand
size, T the table size, K the number of clues in the vocabulary):

=========  =====================================  ==============================================
block      ids                                    engine action
=========  =====================================  ==============================================
tell       H × K (vocabulary) or H (free text)    ``Tell(card=hand[h], clue=clues[k])``,
                                                  id = start + h·K + k (free text: start + h)
blind      K (vocabulary) or 1 (free text)        party: ``BlindClue(clues[k])``
play       H, or C(H, 2) at 3 seats               ``Play((hand[h],))``; 3 seats: ``Play((hand[i],
                                                  hand[j]))`` for i < j in `combinations` order
propose    H (teams)                              ``Propose(hand[h])``
vote       T, then C(T, 2) with two tokens, then  ``Vote((s,))``, ``Vote((s, t))`` for s < t, then
           T more with ``second_token_same_slot`` ``Vote((s, s))``
red        T (party)                              ``PlaceRed(s)``
=========  =====================================  ==============================================

With a vocabulary (``clues=[...]``) the clue is part of the id; with ``clues=None`` the clue is
free text given beside the id (the frameworks' own business: see `fabula.research.spaces`).

What is legal (`legal_ids`, `mask`) is what `Game.legal_actions` allows a seat the table is
waiting for (`Game.awaiting`), less the moves that would *replace* one the seat already made this
phase — a vote once cast, the red token once placed, an offer to the teammate once made — so
that every turn ends (a random player could otherwise offer cards back and forth for ever). A
seat the table is not waiting for has no legal move.

>>> from fabula.rules import Game
>>> space = ActionSpace.create("odyssey", 4, clues=["Freedom", "Dream"])
>>> space.n, space.tell, space.play, space.vote
(22, range(0, 12), range(12, 18), range(18, 22))
>>> space.describe(3), space.describe(13), space.describe(21)
('tell hand[1] "Dream"', 'play hand[1]', 'vote slot 4')
>>> game = Game.new("odyssey", 4, seed=7)
>>> teller = game.storyteller
>>> space.legal_ids(game, teller)
[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
>>> space.action(game, teller, 3)  # doctest: +ELLIPSIS
Tell(seat=..., card='c...', clue='Dream', aloud=False, sound=None)
>>> ActionSpace.create("odyssey", 8, {"second_token_same_slot": True}).vote
range(12, 56)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.rules import (
    Action,
    BlindClue,
    Game,
    IllegalAction,
    PlaceRed,
    Play,
    Propose,
    Ruleset,
    Tell,
    Vote,
    clean_clue,
)
from fabula.rules.state import PLAY_PHASE, VOTE_PHASE

__all__ = ["DEFAULT_CLUE", "ActionNotAvailable", "ActionSpace", "next_seat"]

#: The clue of a clue move given as a bare id without text while the clues are free text
#: (what a framework's own test sampling the mask sends).
DEFAULT_CLUE = "Once upon a time"


#: How many mask vectors an `ActionSpace` keeps. A game meets a few dozen sets of legal ids (each
#: hand size in the clue and play phases, the votes of each seat's place at the table).
_MASKS_KEPT = 4096


#: A seat's legal ids, ascending, and their `ActionSpace.mask` (kept together: the env wants both,
#: and a mask looked up by its ids would hash them at every move).
Legal = tuple[tuple[int, ...], "npt.NDArray[np.int8]"]


class ActionNotAvailable(ValueError):
    """The id names no move, or a move the seat may not make now (not in its `ActionSpace.mask`)."""


@dataclass(frozen=True, slots=True)
class ActionSpace:
    """The numbered moves of one (mode, seats, options, clues); see the module docstring."""

    rules: Ruleset
    #: the clue vocabulary, or ``None``: free text
    clues: tuple[str, ...] | None
    tell: range
    blind: range
    play: range
    propose: range
    vote: range
    red: range
    #: the hand positions each play id names (one, or two at 3 seats)
    plays: tuple[tuple[int, ...], ...]
    #: the slots each vote id names
    votes: tuple[tuple[int, ...], ...]
    _play_id: dict[tuple[int, ...], int] = field(repr=False, compare=False)
    _vote_id: dict[tuple[int, ...], int] = field(repr=False, compare=False)
    #: each set of legal ids met so far with its `mask` vector (a game meets few: kept, not built)
    _masks: dict[tuple[int, ...], Legal] = field(default_factory=dict, repr=False, compare=False)
    #: the legal play (and offer) ids of each hand size met so far, and of the clue phase
    _plays_kept: dict[tuple[int, bool], Legal] = field(default_factory=dict, repr=False, compare=False)
    _clues_kept: dict[int, Legal] = field(default_factory=dict, repr=False, compare=False)
    #: the plays and votes `decode` made, by (seat, cards) and (seat, id)
    _decoded: dict[tuple[int, object], Action] = field(default_factory=dict, repr=False, compare=False)
    #: a voter's vote ids, by (voter, owner of each slot): the same all through a vote phase
    _votes_kept: dict[tuple[int, tuple[int, ...]], Legal] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def create(
        cls,
        mode: str,
        seats: int,
        options: Mapping[str, Any] | None = None,
        clues: Sequence[str] | None = None,
    ) -> ActionSpace:
        """The space of a game; `fabula.rules.InvalidSetup` for a game that cannot be played,
        `ValueError` for a vocabulary that is empty, repeats a clue or holds one the engine refuses."""
        rules = Ruleset.create(mode, seats, options)
        vocabulary = None if clues is None else _vocabulary(clues)
        k = 1 if vocabulary is None else len(vocabulary)
        hand, table = range(rules.hand_size), rules.table_size
        mode_rules = rules.mode
        plays = tuple(combinations(hand, 2)) if rules.cards_per_player == 2 else tuple((h,) for h in hand)
        slots = range(1, table + 1)
        votes: list[tuple[int, ...]] = [(s,) for s in slots]
        if rules.tokens == 2:
            votes.extend(combinations(slots, 2))
            if rules.options.second_token_same_slot:
                votes.extend((s, s) for s in slots)
        sizes = (
            0 if mode_rules.clue_before_hand else len(hand) * k,
            k if mode_rules.clue_before_hand else 0,
            len(plays),
            len(hand) if mode_rules.paired else 0,
            len(votes),
            table if mode_rules.red_token else 0,
        )
        blocks, start = [], 0
        for size in sizes:
            blocks.append(range(start, start + size))
            start += size
        tell, blind, play, propose, vote, red = blocks
        return cls(
            rules,
            vocabulary,
            tell,
            blind,
            play,
            propose,
            vote,
            red,
            plays,
            tuple(votes),
            {p: play.start + i for i, p in enumerate(plays)},
            {v: vote.start + i for i, v in enumerate(votes)},
        )

    @property
    def n(self) -> int:
        """How many ids there are: the ``Discrete(n)``."""
        return self.red.stop

    @property
    def free_text(self) -> bool:
        """Whether a clue move takes its clue as free text (``clues=None``)."""
        return self.clues is None

    # ---------------------------------------------------------------- ids → moves

    def action(self, game: Game, seat: int, id: int, clue: str | None = None) -> Action:
        """The engine action of ``seat`` that ``id`` names now (``clue``: free text for a clue
        move; `DEFAULT_CLUE` when ``None``). `ActionNotAvailable` unless ``id`` is in the seat's
        `mask`: what this returns the engine accepts."""
        if id not in self.legal_ids(game, seat):
            raise ActionNotAvailable(f"Move {id} ({self.describe(id)}) is not available to seat {seat} now.")
        return self.decode(game, seat, id, clue)

    def decode(self, game: Game, seat: int, id: int, clue: str | None = None) -> Action:
        """`action` without the check that ``id`` is legal (for a caller that checked its `mask`)."""
        # (the moves of every round first: plays and votes, each made once and kept, as the
        # engine keeps its legal actions: a move is a value the game only reads)
        kept = self._decoded
        if id in self.play:
            hand, held = game.hand(seat), self.plays[id - self.play.start]
            cards = (hand[held[0]],) if len(held) == 1 else (hand[held[0]], hand[held[1]])
            action = kept.get((seat, cards))
            if action is None:
                if len(kept) >= _MASKS_KEPT:
                    kept.clear()
                action = kept[seat, cards] = Play(seat, cards)
            return action
        if id in self.vote:
            action = kept.get((seat, id))
            if action is None:
                action = kept[seat, id] = Vote(seat, self.votes[id - self.vote.start])
            return action
        if id in self.tell:
            h, c = divmod(id - self.tell.start, self._k)
            return Tell(seat, game.hand(seat)[h], self._clue(c, clue))
        if id in self.blind:
            return BlindClue(seat, self._clue(id - self.blind.start, clue))
        if id in self.propose:
            return Propose(seat, game.hand(seat)[id - self.propose.start])
        if id in self.red:
            return PlaceRed(seat, id - self.red.start + 1)
        raise ActionNotAvailable(f"There is no move {id}; moves are 0 to {self.n - 1}.")

    def _clue(self, index: int, clue: str | None) -> str:
        if self.clues is not None:
            return self.clues[index]
        return DEFAULT_CLUE if clue is None else clue

    # ---------------------------------------------------------------- moves → ids

    def id_of(self, game: Game, action: Action) -> int:
        """The id of an engine action of the seat it names (its cards looked up in that seat's
        hand now). With a vocabulary a clue move's clue must be in it (`ValueError`); with free
        text the clue is not part of the id."""
        seat = action.seat
        if type(action) is Play:
            index = {card: h for h, card in enumerate(game.hand(seat))}
            return self._play_id[tuple(sorted(index[card] for card in action.cards))]
        if type(action) is Vote:
            return self._vote_id[tuple(sorted(action.slots))]
        if type(action) is Tell:
            h = game.hand(seat).index(action.card)
            return self.tell.start + h * self._k + self._clue_index(action.clue)
        if type(action) is BlindClue:
            return self.blind.start + self._clue_index(action.clue)
        if type(action) is Propose:
            return self.propose.start + game.hand(seat).index(action.card)
        if type(action) is PlaceRed:
            return self.red.start + action.slot - 1
        raise ValueError(f"Not an action: {action!r}")

    @property
    def _k(self) -> int:
        return 1 if self.clues is None else len(self.clues)

    def _clue_index(self, clue: str | None) -> int:
        if self.clues is None:
            return 0
        if clue is None or clue not in self.clues:
            raise ValueError(f"The clue {clue!r} is not in the vocabulary.")
        return self.clues.index(clue)

    # ---------------------------------------------------------------- what is legal

    def legal_ids(self, game: Game, seat: int) -> list[int]:
        """The ids ``seat`` may play now, ascending (see the module docstring for the rule)."""
        return list(self.legal(game, seat))

    def legal(self, game: Game, seat: int) -> tuple[int, ...]:
        """`legal_ids` as a tuple (a kept one: the same tuple comes again)."""
        return self.legal_with_mask(game, seat)[0]

    def mask(self, game: Game, seat: int) -> npt.NDArray[np.int8]:
        """`legal_ids` as a 0/1 ``int8`` vector of length `n`, read-only: one array stands for
        each set of legal ids (copy it to change it)."""
        return self.legal_with_mask(game, seat)[1]

    def legal_with_mask(self, game: Game, seat: int, awaiting: tuple[int, ...] | None = None) -> Legal:
        """`legal` and `mask` at once (``awaiting``: the game's `Game.awaiting` now, for a caller
        that has it already)."""
        if seat not in (game.awaiting if awaiting is None else awaiting):
            return self._kept(())
        phase = game.phase
        if phase is VOTE_PHASE:
            # What `Game.legal_actions` lists, read off the mode's answers (`Ruleset.may_vote`,
            # `second_tokens`, `red_slots`) as it reads them: a voter's votes, the party
            # storyteller's red token.
            rules, owners = self.rules, game.owners
            votes: Legal | None = None
            if game.vote(seat) is None and seat in game.voters:
                kept = self._votes_kept
                key = (seat, owners)
                votes = kept.get(key)
                if votes is None:
                    if len(kept) >= _MASKS_KEPT:
                        kept.clear()
                    votes = kept[key] = self._kept(self._votes_of(seat, owners))
            if seat == game.storyteller and rules.mode.red_token and game.red is None:
                # (the red block follows the votes', and the slots come ascending)
                red = [self.red.start - 1 + slot for slot in rules.red_slots(seat, owners)]
                return self._kept((*(votes[0] if votes else ()), *red))
            return self._kept(()) if votes is None else votes
        if phase is PLAY_PHASE:
            # What `Game.legal_actions` lists for an awaited player — a play for each card (each
            # pair at 3 seats), an offer of each card — read off the hand's length.
            offers = seat in self.rules.proposers[game.storyteller] and game.proposal(seat) is None
            return self._plays_of(game.hand_size(seat), offers)
        held = game.hand_size(seat)
        known = self._clues_kept.get(held)
        if known is None:
            ids = self.blind if self.blind else self.tell[: held * self._k]  # (the clue phase)
            known = self._clues_kept[held] = self._kept(tuple(ids))
        return known

    def _votes_of(self, seat: int, owners: tuple[int, ...]) -> tuple[int, ...]:
        """The vote ids of voter ``seat`` when the slots' cards are ``owners``'."""
        rules = self.rules
        allowed, start = rules.may_vote[seat], self.vote.start
        ids = [start + i for i, owner in enumerate(owners) if allowed[owner]]  # ascending
        if rules.tokens == 2:
            vote_id = self._vote_id
            ids.extend([vote_id[pair] for pair in rules.second_tokens(rules.votable(seat, owners))])
            ids.sort()
        return tuple(ids)

    def _plays_of(self, held: int, offers: bool) -> Legal:
        """The play ids of a hand of ``held`` cards, and its offers to the teammate if ``offers``."""
        known = self._plays_kept.get((held, offers))
        if known is None:
            if self.rules.cards_per_player == 1:
                ids = list(self.play[:held])
            else:
                ids = [id for id, pair in zip(self.play, self.plays, strict=True) if pair[1] < held]
            if offers:
                ids.extend(self.propose[:held])
            known = self._plays_kept[held, offers] = self._kept(tuple(ids))
        return known

    def _kept(self, ids: tuple[int, ...]) -> Legal:
        """The kept ``(ids, mask)`` of the legal ids ``ids`` (ascending)."""
        masks = self._masks
        found = masks.get(ids)
        if found is None:
            if len(masks) >= _MASKS_KEPT:  # (a vocabulary of thousands of clues could fill memory)
                masks.clear()
            mask = np.zeros(self.n, dtype=np.int8)
            mask[list(ids)] = 1
            mask.flags.writeable = False
            found = masks[ids] = (ids, mask)
        return found

    # ---------------------------------------------------------------- reading

    def describe(self, id: int) -> str:
        """A short text naming ``id``'s move, different for every id (OpenSpiel's action string)."""
        k = self._k
        if id in self.tell:
            h, c = divmod(id - self.tell.start, k)
            return f"tell hand[{h}]" + ("" if self.clues is None else f' "{self.clues[c]}"')
        if id in self.blind:
            return "blind clue" + ("" if self.clues is None else f' "{self.clues[id - self.blind.start]}"')
        if id in self.play:
            return "play " + "+".join(f"hand[{h}]" for h in self.plays[id - self.play.start])
        if id in self.propose:
            return f"propose hand[{id - self.propose.start}]"
        if id in self.vote:
            slots = self.votes[id - self.vote.start]
            return ("vote slot " if len(slots) == 1 else "vote slots ") + "+".join(map(str, slots))
        if id in self.red:
            return f"red slot {id - self.red.start + 1}"
        raise ActionNotAvailable(f"There is no move {id}; moves are 0 to {self.n - 1}.")


def next_seat(game: Game, after: int) -> int:
    """Who moves next when the seats move one at a time (PettingZoo's AEC env, OpenSpiel): the
    first seat the table waits for after ``after``, going round the table. So a phase's moves
    come in seat order from the left of the seat that moved last, and a teams member who made an
    offer lets the others move before it is asked again. The game must not be over.

    >>> from fabula.rules import Game
    >>> game = Game.new("odyssey", 5, seed=1, options={"first_storyteller": 3})
    >>> game.apply(game.legal_actions(3)[0].with_clue("Dawn")) and next_seat(game, 3)
    4
    """
    awaiting = game.awaiting  # in seat order
    for seat in awaiting:
        if seat > after:
            return seat
    return awaiting[0]


def _vocabulary(clues: Sequence[str]) -> tuple[str, ...]:
    if isinstance(clues, str):
        raise ValueError("clues is a list of clues, not one string")
    found = tuple(clues)
    if not found:
        raise ValueError("The clue vocabulary is empty: give at least one clue, or None for free text.")
    for clue in found:
        try:
            kept = clean_clue(clue)
        except IllegalAction as refused:
            raise ValueError(f"Vocabulary clue {clue!r}: {refused.message}") from None
        if kept != clue:
            raise ValueError(f"Vocabulary clue {clue!r} is not trimmed (the engine would show {kept!r}).")
    if len(set(found)) != len(found):
        raise ValueError("The clue vocabulary names a clue twice.")
    return found
