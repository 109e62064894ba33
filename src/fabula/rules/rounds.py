"""Checking one whole round given as facts — what `fabula score` needs before it scores.

A live `Game` checks each action as it comes; a round handed over all at once is checked here,
against the same `Ruleset` predicates, and each refusal names the rule it breaks.

>>> from fabula.rules.modes import Ruleset
>>> facts = RoundFacts(seats=(0, 1, 2), storyteller=0, played={0: ("a",), 1: ("b", "c"), 2: ("d", "e")},
...                    votes={1: ("b",), 2: ("a",)})
>>> try:
...     check_round(facts, Ruleset.create("odyssey", 3), names=("anna", "ben", "carla"))
... except IllegalAction as refused:
...     print(refused.code)
own_card
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .errors import IllegalAction, RuleCode
from .modes import Ruleset
from .scoring import RoundFacts


def check_round(facts: RoundFacts[int, str], rules: Ruleset, names: Sequence[str] | None = None) -> None:
    """Raise `IllegalAction` unless ``facts`` is a complete, legal round under ``rules``.

    Seats are ``0..N-1``; in teams mode the pairs must be ``rules.teams``. ``names`` label the
    seats in messages.
    """
    label = names or [f"seat {s}" for s in range(rules.seats)]
    owner_of = _check_plays(facts, rules, label)
    _check_votes(facts, rules, label, owner_of)
    _check_red(facts, rules, owner_of)


def _check_plays(facts: RoundFacts[int, str], rules: Ruleset, label: Sequence[str]) -> dict[str, int]:
    """Who must have played how many cards; the owner of each card on the table."""
    seats, storyteller = range(rules.seats), facts.storyteller
    mode = rules.mode
    for seat in facts.played:
        if seat not in seats:
            raise IllegalAction(RuleCode.UNKNOWN_SEAT, f"Cards played by {seat!r}, who is not at the table.")
    wanted: dict[int, int] = {}
    if mode.paired:
        mate = rules.teammate(storyteller)
        wanted = {storyteller: 1, mate: 1}
        for first, second in rules.teams or ():
            if storyteller in (first, second):
                continue
            playing = [s for s in (first, second) if facts.played.get(s)]
            if len(playing) != 1:
                raise IllegalAction(
                    RuleCode.WRONG_CARD_COUNT,
                    f"Exactly one of {label[first]} and {label[second]} plays a card "
                    f"(one card per team; the other member votes).",
                )
            wanted[playing[0]] = 1
    else:
        for seat in seats:
            wanted[seat] = 1 if seat == storyteller else rules.cards_to_play(seat, storyteller)
    for seat in seats:
        count = len(facts.played.get(seat, ()))
        if count != wanted.get(seat, 0):
            need = wanted.get(seat, 0)
            role = "the storyteller" if seat == storyteller else label[seat]
            raise IllegalAction(
                RuleCode.WRONG_CARD_COUNT,
                f"{label[seat]} played {count} card(s); {role} plays {need} in {mode.name} with {rules.seats} players.",
            )
    owner_of: dict[str, int] = {}
    for seat, cards in facts.played.items():
        for card in cards:
            if card in owner_of:
                raise IllegalAction(RuleCode.DUPLICATE_CARD, f"Card {card!r} is on the table twice.")
            owner_of[card] = seat
    return owner_of


def _check_votes(
    facts: RoundFacts[int, str], rules: Ruleset, label: Sequence[str], owner_of: Mapping[str, int]
) -> None:
    """Who votes, with which tokens (the same hook the live game asks)."""
    seats, storyteller = range(rules.seats), facts.storyteller
    played = [facts.played.get(seat) for seat in seats]
    voters = set(rules.voters(storyteller, rules.players(storyteller), played))
    for seat in facts.votes:
        if seat not in seats:
            raise IllegalAction(RuleCode.UNKNOWN_SEAT, f"A vote by {seat!r}, who is not at the table.")
        if seat not in voters:
            if seat == storyteller:
                raise IllegalAction(
                    RuleCode.STORYTELLER_VOTES, f"The storyteller ({label[seat]}) does not vote in {rules.mode.name}."
                )
            raise IllegalAction(RuleCode.NOT_A_VOTER, f"{label[seat]} played a card this turn, so does not vote.")
    for seat in sorted(voters):
        if seat not in facts.votes:
            raise IllegalAction(RuleCode.MISSING_VOTE, f"{label[seat]} has not voted; every voter votes.")
        tokens = facts.votes[seat]
        for card in tokens:
            if card not in owner_of:
                raise IllegalAction(
                    RuleCode.UNKNOWN_CARD, f"{label[seat]} voted for {card!r}, which is not on the table."
                )
        if len(tokens) == 2 and rules.tokens == 1:
            raise IllegalAction(
                RuleCode.WRONG_TOKEN_COUNT,
                f"{label[seat]} used two tokens; voters have two tokens only with 7 or more players in odyssey.",
            )
        try:
            rules.check_vote(seat, tokens, owner_of)
        except IllegalAction as refused:
            raise IllegalAction(refused.code, f"{label[seat]}: {refused.message}") from None


def _check_red(facts: RoundFacts[int, str], rules: Ruleset, owner_of: Mapping[str, int]) -> None:
    """The red token: on a card of the table in party mode, and nowhere in the others."""
    mode = rules.mode
    if mode.red_token:
        if facts.red is None:
            raise IllegalAction(RuleCode.RED_REQUIRED, "In party mode the storyteller places the red token on a card.")
        if facts.red not in owner_of:
            raise IllegalAction(RuleCode.UNKNOWN_CARD, f"The red token is on {facts.red!r}, which is not on the table.")
        if rules.options.party_red_target == "not_own_card" and owner_of[facts.red] == facts.storyteller:
            raise IllegalAction(
                RuleCode.OWN_CARD, "The red token cannot go on the storyteller's own card (party_red_target)."
            )
    elif facts.red is not None:
        raise IllegalAction(RuleCode.NO_RED_TOKEN, f"Only party mode has a red token; {mode.name} does not.")
