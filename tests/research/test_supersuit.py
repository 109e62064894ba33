"""SuperSuit's vector envs take the vector observations unchanged (issue: they refused the text
observation's `Text` spaces), in one process and across worker processes."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import sys  # noqa: E402

import pytest  # noqa: E402

if sys.version_info >= (3, 13):
    pytest.skip(
        "fabula[research] installs SuperSuit only under Python 3.11 and 3.12: its tinyscaler has no wheel for 3.13",
        allow_module_level=True,
    )

import pickle  # noqa: E402 - after the check that the extra is there
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

# (names, not the module: pytest's doctest scan asks a module for `__wrapped__`, and supersuit's
# module answers an unknown name with ImportError)
from supersuit import concat_vec_envs_v1, pettingzoo_env_to_vec_env_v1  # noqa: E402

from fabula.cards.original import original_deck  # noqa: E402
from fabula.research.pettingzoo import parallel_env  # noqa: E402
from fabula.research.vectors import CardEmbeddings  # noqa: E402

CLUES = ["Freedom", "Dream", "Journey"]
SHORT = {"storyteller_cycles": 1}


def vector_envs(copies: int, workers: int) -> Any:
    seats = parallel_env("odyssey", 4, options=SHORT, clues=CLUES, observations="vector")
    return concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(seats), copies, num_cpus=workers, base_class="gymnasium")


def play(envs: Any, steps: int, seed: int) -> tuple[np.ndarray, int]:
    """Random legal moves for every seat of every copy; the rewards summed by seat, and how many
    games ended (each copy starts the next game by itself)."""
    rng = np.random.default_rng(seed)
    observations, _ = envs.reset(seed=seed)
    totals = np.zeros(envs.num_envs, dtype=np.float64)
    ended = 0
    for _ in range(steps):
        masks = observations["action_mask"]
        assert masks.dtype == np.int8
        actions = np.array([rng.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in masks])
        observations, rewards, terminations, truncations, _ = envs.step(actions)
        totals += rewards
        ended += int(np.sum(terminations | truncations))
    return totals, ended


@pytest.mark.parametrize("workers", [0, 2])
def test_supersuit_vector_envs_play_whole_games(workers: int) -> None:
    envs = vector_envs(copies=2, workers=workers)
    try:
        space = envs.observation_space
        assert envs.num_envs == 8  # 2 copies × 4 seats
        observations, _ = envs.reset(seed=5)
        assert observations["observation"].shape == (8, *space["observation"].shape)
        assert observations["observation"].dtype == np.float32
        # a 4-seat game of one storyteller turn each is 4 rounds, about 30 steps: 200 steps end several
        totals, ended = play(envs, steps=200, seed=5)
    finally:
        envs.close()
    assert ended >= 8 * 2
    assert totals.sum() > 0  # the rounds' points reach the seats
    assert np.all(totals >= 0)  # random legal moves are never penalised as illegal


def test_the_same_seed_plays_the_same_steps() -> None:
    runs = []
    for seed in (9, 9, 10):
        envs = vector_envs(1, 0)
        try:
            runs.append(play(envs, 120, seed=seed))
        finally:
            envs.close()
    assert np.array_equal(runs[0][0], runs[1][0])
    assert runs[0][1] == runs[1][1]
    assert not np.array_equal(runs[0][0], runs[2][0])  # (another seed, another game)


def test_the_embeddings_pickle_without_the_encoder() -> None:
    """SuperSuit copies an env by pickling it: the deck's rows travel, the shared encoder (a
    compiled tokenizer, which does not pickle) is found again when a new clue needs it."""
    cards = original_deck().cards
    embeddings = CardEmbeddings(cards)
    seen = embeddings.clue("Freedom")
    copy = pickle.loads(pickle.dumps(embeddings))
    card = cards[0].id
    assert np.array_equal(copy[card], embeddings[card])
    assert np.array_equal(copy.clue("Freedom"), seen)
    assert np.allclose(copy.clue("A long way home"), embeddings.clue("A long way home"))
