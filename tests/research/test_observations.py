"""What a seat observes is its view and nothing more: at every move of games of every mode, each
seat's observation (PettingZoo's, and the OpenSpiel strings) is exactly `Game.view(seat)` as
JSON, names no card of another hand or of the draw pile that the seat cannot see, and gives the
texts of exactly the cards its view names."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import copy  # noqa: E402
import json  # noqa: E402
import pickle  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from fabula.bots.random_player import random_action  # noqa: E402
from fabula.cards.original import original_deck  # noqa: E402
from fabula.research.observations import (  # noqa: E402
    JSON_CHARSET,
    OBSERVATION_KEYS,
    VIEW_MAX,
    CardTexts,
    Observation,
    SeatObserver,
    seat_texts,
    view_json,
)
from fabula.research.pettingzoo import Table  # noqa: E402
from fabula.research.spaces import observation_space  # noqa: E402
from fabula.rules import BlindClue, Game, Tell  # noqa: E402

from .games import SHORT, TABLES, VARIANTS  # noqa: E402

GAMES: list[tuple[str, int, dict[str, Any]]] = [(mode, seats, SHORT) for mode, seats in TABLES] + VARIANTS
CARD_ID = re.compile(r"fabula-\d\d")
BY_ID = {card.id: card for card in original_deck().cards}
CHARSET = frozenset(JSON_CHARSET)


def hidden_from(game: Game, seat: int) -> set[str]:
    """The cards ``seat`` may not know of now: the other hands and the draw pile, less what it
    sees (its hand, the table, the last round's table, whose cards may have gone back to the pile
    in a reshuffle)."""
    hidden = set(game.draw_pile)
    for other in range(game.seats):
        if other != seat:
            hidden.update(game.hand(other))
    hand_hidden = game.rules.mode.clue_before_hand and game.phase.value == "clue" and seat == game.storyteller
    if hand_hidden:  # the party storyteller's own hand, unseen before the blind clue
        hidden.update(game.hand(seat))
    seen = set(game.table) | (set() if hand_hidden else set(game.hand(seat)))
    if game.last_result is not None:
        seen |= set(game.last_result.table)
    return hidden - seen


def check(game: Game, seat: int, table: Table, texts: CardTexts) -> None:
    observation = table.observe(seat)
    view, cards = observation["view"], observation["cards"]
    assert (view, cards) == seat_texts(game, seat, texts)
    assert json.loads(view) == game.view(seat).to_json()
    assert CHARSET.issuperset(view)
    assert len(view) < VIEW_MAX // 4
    named = set(CARD_ID.findall(view))
    assert not named & hidden_from(game, seat)
    assert not set(CARD_ID.findall(cards)) & hidden_from(game, seat)
    # the texts of exactly the cards the view names, from the deck
    card_texts = json.loads(cards)
    assert set(card_texts) == named
    by_id = BY_ID
    for card_id, text in card_texts.items():
        assert text == {"title": by_id[card_id].title, "description": by_id[card_id].description}


@pytest.mark.parametrize(("mode", "seats", "options"), GAMES)
def test_every_observation_is_the_seats_view_and_hides_the_rest(mode: str, seats: int, options: dict[str, Any]) -> None:
    table = Table(mode, seats, options=options, seed=1, deck=None, clues=None)
    space = observation_space(table.space)
    rng = random.Random(mode)
    for episode in range(1 if seats >= 10 else 2):  # (the big tables check a dozen seats a move)
        table.reset(seed=episode)
        game = table.game
        while True:
            for seat in range(seats):
                check(game, seat, table, table.texts)
            assert space.contains(table.observe(game.awaiting[0] if game.awaiting else 0))
            if game.is_over:
                break
            seat = game.awaiting[int(rng.random() * len(game.awaiting))]
            move = random_action(game, seat, rng)
            if isinstance(move, Tell | BlindClue):
                move = move.with_clue(rng.choice(["Là où la carte s'arrête", "月亮上的兔子"]))
            game.apply(move)


def test_the_observer_is_the_view_after_a_reset_and_between_games() -> None:
    texts = CardTexts.of(None)
    observer = SeatObserver(texts)
    for seed in range(3):
        game = Game.new("party", 6, options=SHORT, seed=seed, deck=texts.ids)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.awaiting[0]
            assert observer(game, seat) == seat_texts(game, seat, texts)
            game.apply(random_action(game, seat, rng))
        assert observer(game, 0) == seat_texts(game, 0, texts)


def test_a_clue_with_accents_and_chinese_is_escaped_in_the_view() -> None:
    texts = CardTexts.of(None)
    game = Game.new("odyssey", 4, seed=1, deck=texts.ids)
    teller = game.storyteller
    tell = game.legal_actions(teller)[0]
    assert isinstance(tell, Tell)
    game.apply(tell.with_clue("Là où 月亮"))
    view = view_json(game, (teller + 1) % 4)
    assert "L\\u00e0 o\\u00f9 \\u6708\\u4eae" in view
    assert json.loads(view)["clue"] == "Là où 月亮"


def test_a_deck_of_bare_ids_and_a_deck_of_cards() -> None:
    deck = original_deck()
    assert CardTexts.of(deck).ids == CardTexts.of(None).ids == CardTexts.of(list(deck.cards)).ids
    ids = [f"x{n}" for n in range(60)]
    table = Table("odyssey", 4, options=SHORT, seed=1, deck=ids, clues=None)
    table.reset(None)
    card_texts = json.loads(table.observe(0)["cards"])
    assert card_texts == {card: {"title": card, "description": ""} for card in table.game.hand(0)}


# ---------------------------------------------------------------- observations written when read


@pytest.mark.parametrize(("mode", "seats", "options"), GAMES)
def test_an_observation_read_later_says_what_the_seat_saw_when_it_was_made(
    mode: str, seats: int, options: dict[str, Any]
) -> None:
    # An agent may keep observations (a replay buffer) and read them after the game went on: each
    # must give the texts of its own moment, whatever came after, and never name a card the seat
    # could not see then.
    table = Table(mode, seats, options=options, seed=3, deck=None, clues=None)
    table.reset(None)
    game, rng = table.game, random.Random(f"later/{mode}/{seats}")
    kept: list[tuple[Any, tuple[str, str], set[str]]] = []
    while not game.is_over:
        seat = game.awaiting[int(rng.random() * len(game.awaiting))]
        kept.append((table.observe(seat), seat_texts(game, seat, table.texts), hidden_from(game, seat)))
        move = random_action(game, seat, rng)
        if isinstance(move, Tell | BlindClue):
            move = move.with_clue(rng.choice(["Là où 月亮", "Dawn"]))
        game.apply(move)
    assert len(kept) > 10
    for observation, then, hidden in kept:
        assert (observation["view"], observation["cards"]) == then
        assert not set(CARD_ID.findall(then[0] + then[1])) & hidden


def counting_writer() -> tuple[list[int], Any]:
    calls: list[int] = []

    def write(what: str) -> tuple[str, str]:
        calls.append(1)
        return f'{{"seat":"{what}"}}', "{}"

    return calls, write


def test_reading_the_mask_length_or_keys_writes_no_text() -> None:
    calls, write = counting_writer()
    observation = Observation.pending(write, "s", [0, 1])
    assert observation["action_mask"] == [0, 1]
    assert observation.get("action_mask") == [0, 1]
    assert len(observation) == 3
    assert bool(observation)
    assert "view" in observation
    assert "cards" in observation
    assert "other" not in observation
    assert calls == []
    assert observation["view"] == '{"seat":"s"}'
    assert observation.get("cards") == "{}"
    assert calls == [1]  # once, whatever is read after
    assert list(observation) == list(OBSERVATION_KEYS)
    assert calls == [1]


READS: dict[str, Callable[[Observation], object]] = {
    "index": lambda o: o["view"],
    "get": lambda o: o.get("view"),
    "iter": list,
    "keys": lambda o: list(o.keys()),
    "items": lambda o: dict(o.items()),
    "values": lambda o: list(o.values()),
    "dict": dict,
    "unpack": lambda o: {**o},
    "update": lambda o: dict[str, Any]().update(o),
    "json": lambda o: json.dumps({k: v for k, v in o.items() if k != "action_mask"}),
    "json_whole": json.dumps,
    "repr": repr,
    "equal": lambda o: o == {"view": '{"seat":"s"}', "cards": "{}", "action_mask": [0, 1]},
    "copy": lambda o: o.copy(),
    "copy_module": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda o: pickle.loads(pickle.dumps(o)),
    "set": lambda o: o.__setitem__("extra", 1),
    "pop": lambda o: o.pop("action_mask"),
    "setdefault": lambda o: o.setdefault("extra", 1),
    "or": lambda o: o | {"extra": 1},
    "filled": lambda o: o.filled(),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_whatever_python_does_with_the_observation_sees_its_texts(read: str) -> None:
    calls, write = counting_writer()
    observation = Observation.pending(write, "s", [0, 1])
    READS[read](observation)
    assert calls == [1]
    # it is then a plain dict in everything but its type, its texts first, in the space's order
    assert dict.__getitem__(observation, "view") == '{"seat":"s"}'
    if read not in {"set", "pop", "setdefault"}:
        assert dict(observation) == {"view": '{"seat":"s"}', "cards": "{}", "action_mask": [0, 1]}
        assert list(dict.keys(observation)) == list(OBSERVATION_KEYS)


def test_copies_and_pickles_are_plain_dicts_equal_to_the_observation() -> None:
    _, write = counting_writer()
    observation = Observation.pending(write, "s", [0, 1])
    for other in (copy.copy(observation), copy.deepcopy(observation), pickle.loads(pickle.dumps(observation))):
        assert type(other) is dict
        assert other == observation
        assert observation == other
        assert (observation != other) is False
    two = Observation.pending(write, "s", [0, 1])
    assert two == Observation.pending(write, "s", [0, 1])
    assert two != Observation.pending(write, "t", [0, 1])
    assert Observation({"a": 1}) == {"a": 1}  # made as a dict: one


def test_the_env_observation_is_in_its_space_and_the_mask_alone_writes_nothing() -> None:
    table = Table("odyssey", 4, options=SHORT, seed=1, deck=None, clues=None)
    table.reset(None)
    observation = table.observe(table.game.awaiting[0])
    assert isinstance(observation, Observation)
    assert int(observation["action_mask"].sum()) > 0
    assert len(observation) == 3
    assert dict.get(observation, "view") is None  # not written yet
    assert observation_space(table.space).contains(observation)
    assert json.loads(observation["view"]) == table.game.view(table.game.awaiting[0]).to_json()


def reachable(start: object) -> list[object]:
    """Every object reachable from ``start`` through instances, containers and bound methods (not
    through classes, modules or functions, which reach everything)."""
    import gc
    import types

    seen: dict[int, object] = {}
    todo = [start]
    while todo:
        found = todo.pop()
        if id(found) in seen or isinstance(found, type | types.ModuleType | types.FunctionType | types.CodeType):
            continue
        seen[id(found)] = found
        todo.extend(gc.get_referents(found))
    return list(seen.values())


@pytest.mark.parametrize("mode", ["odyssey", "party", "teams"])
def test_an_unread_observation_holds_no_reference_to_the_game(mode: str) -> None:
    # what the texts will say is kept as values: nothing leads from an observation to the game
    # (its hands, its draw pile), read or not
    table = Table(mode, 6, options=SHORT, seed=2, deck=None, clues=None)
    table.reset(None)
    game, rng = table.game, random.Random(mode)
    for _ in range(8):
        seat = game.awaiting[0]
        observation = table.observe(seat)
        objects = reachable(observation)
        assert not any(found is game for found in objects)
        assert not any(isinstance(found, Game) for found in objects)
        move = random_action(game, seat, rng)
        game.apply(move.with_clue("Dawn") if isinstance(move, Tell | BlindClue) else move)
