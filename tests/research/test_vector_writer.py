"""Vector mode's speed keeps its numbers: the env's `VectorWriter` writes what `VectorLayout.encode`
writes of the seat's view, and the deck's embeddings are computed once per deck, not per step."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import random  # noqa: E402 - after the check that the extra is there
import zlib  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
import pytest  # noqa: E402

import fabula.bots.semantic.encoder as encoder_module  # noqa: E402
from fabula.bots.random_player import random_action  # noqa: E402
from fabula.research.observations import card_list  # noqa: E402
from fabula.research.pettingzoo import env  # noqa: E402
from fabula.research.table import Table  # noqa: E402
from fabula.research.vectors import EMBEDDING_WIDTH, CardEmbeddings, VectorLayout, VectorWriter  # noqa: E402
from fabula.rules import BlindClue, Game, Tell  # noqa: E402
from fabula.rules.views import ViewEncoder  # noqa: E402

from .games import CLUES, SHORT, TABLES, VARIANTS  # noqa: E402

GAMES: list[tuple[str, int, dict[str, Any]]] = [(mode, seats, SHORT) for mode, seats in TABLES] + VARIANTS


class CountingEncoder:
    """A stand-in for the MiniLM encoder: a unit vector per text (the same for the same text),
    counting its calls."""

    def __init__(self) -> None:
        self.batches: list[int] = []  # the size of each `encode` call
        self.ones: list[str] = []  # the text of each `encode_one` call

    @staticmethod
    def vector(text: str) -> npt.NDArray[np.float32]:
        numbers = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(EMBEDDING_WIDTH)
        return (numbers / np.linalg.norm(numbers)).astype(np.float32)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.batches.append(len(texts))
        return np.stack([self.vector(text) for text in texts])

    def encode_one(self, text: str) -> npt.NDArray[np.float32]:
        self.ones.append(text)
        return self.vector(text)


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> CountingEncoder:
    """The counting encoder, as the one every part of the process shares."""
    counting = CountingEncoder()
    monkeypatch.setattr(encoder_module, "shared_encoder", lambda: counting)
    return counting


@pytest.mark.parametrize(("mode", "seats", "options"), GAMES)
def test_the_env_s_vector_is_the_encoded_view_at_every_move(
    mode: str, seats: int, options: dict[str, Any], encoder: CountingEncoder
) -> None:
    table = Table(mode, seats, options=options, seed=1, deck=None, clues=CLUES, observations="vector")
    layout, embeddings = table.vectors  # type: ignore[misc]
    rng = random.Random(mode)
    for episode in range(2):
        table.reset(seed=episode)
        game = table.game
        while True:
            for seat in range(seats):
                vector = table.observe(seat)["observation"]
                expected = layout.encode(game.view(seat), embeddings)
                assert vector.dtype == np.float32
                assert vector.shape == (layout.size,)
                assert np.array_equal(vector, expected), f"{mode}: seat {seat}, {game.phase.value} phase"
            if game.is_over:
                break
            seat = game.awaiting[int(rng.random() * len(game.awaiting))]
            move = random_action(game, seat, rng)
            if isinstance(move, Tell | BlindClue):
                move = move.with_clue(rng.choice(CLUES))
            game.apply(move)


@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 5), ("party", 6), ("teams", 6)])
def test_views_captured_then_written_in_any_order_give_their_own_moment(
    mode: str, seats: int, encoder: CountingEncoder
) -> None:
    embeddings = CardEmbeddings(card_list(None))
    layout = VectorLayout.of(Table(mode, seats, options=SHORT, seed=0, deck=None, clues=CLUES).space)
    captures, expected = [], []
    views, rng = ViewEncoder(), random.Random(seats)
    game = Game.new(mode, seats, options=SHORT, seed=3, deck=[card.id for card in card_list(None)])
    while not game.is_over:
        for seat in range(seats):
            captures.append(views.capture(game, seat))
            expected.append(layout.encode(game.view(seat), embeddings))
        seat = game.awaiting[0]
        move = random_action(game, seat, rng)
        game.apply(move.with_clue(CLUES[0]) if isinstance(move, Tell | BlindClue) else move)
    writer = VectorWriter(layout, embeddings)
    order = list(range(len(captures)))
    random.Random(1).shuffle(order)  # (phases and seats interleaved: no cached part may leak between them)
    written = {i: writer.write(captures[i]) for i in order}
    assert all(np.array_equal(written[i], expected[i]) for i in order)


def test_a_vector_is_its_own_and_stays_as_it_was(encoder: CountingEncoder) -> None:
    table = Table("odyssey", 4, options=SHORT, seed=1, deck=None, clues=CLUES, observations="vector")
    table.reset(seed=2)
    game, kept = table.game, []
    rng = random.Random(2)
    while not game.is_over:
        seat = game.awaiting[0]
        vector = table.observe(seat)["observation"]
        kept.append((vector, vector.copy()))
        vector[:] = -1.0  # an agent may write into its own observation: nothing else changes
        move = random_action(game, seat, rng)
        game.apply(move.with_clue(CLUES[1]) if isinstance(move, Tell | BlindClue) else move)
        vector[:] = kept[-1][1]
    assert all(np.array_equal(vector, then) for vector, then in kept)
    assert len({id(vector) for vector, _ in kept}) == len(kept)


def test_the_deck_is_embedded_once_per_env_not_per_step_or_reset(encoder: CountingEncoder) -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1, clues=CLUES, observations="vector")
    deck = card_list(None)
    assert encoder.batches == [len(deck)]  # the whole deck, in one call, when the env is made
    steps, rng = 0, random.Random(0)
    for episode in range(3):
        aec.reset(seed=episode)
        for _agent in aec.agent_iter():
            observation, _reward, termination, truncation, _info = aec.last()
            if termination or truncation:
                aec.step(None)
                continue
            assert observation is not None
            assert observation["observation"].shape == (aec.table.vectors[0].size,)  # type: ignore[index]
            legal = np.flatnonzero(observation["action_mask"])
            aec.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    assert steps > 3 * 20  # three games of four storytelling turns
    assert encoder.batches == [len(deck)]  # no card embedded again, at any step or reset
    assert len(encoder.ones) == len(set(encoder.ones)) <= len(CLUES)  # each clue told embedded once
