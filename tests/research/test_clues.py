"""Clues both ways: a clue from the vocabulary (part of the id), and free text beside the id —
with spaces, accents and Chinese — in the AEC and the parallel env; and the free-text action
space's sampling, which PettingZoo's tests rely on."""

from __future__ import annotations

from .extra import require_extra

require_extra()

import json  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from fabula.research.actions import DEFAULT_CLUE  # noqa: E402
from fabula.research.pettingzoo import env, parallel_env  # noqa: E402
from fabula.research.spaces import CLUE_CHARSET, ClueActionSpace  # noqa: E402
from fabula.rules import CLUE_MAX, IllegalAction, clean_clue  # noqa: E402

from .games import CLUES, SHORT  # noqa: E402

FREE = ["Là où la carte s'arrête", "月亮上的兔子在等待", "  Deux  mots  ", "¿Qué será? — « oui »"]


@pytest.mark.parametrize("index", range(len(CLUES)))
def test_a_vocabulary_clue_is_part_of_the_id(index: int) -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1, clues=CLUES)
    aec.reset()
    space = aec.table.space
    aec.step(space.tell.start + 2 * len(CLUES) + index)  # the third card, with clue `index`
    assert aec.game.clue == CLUES[index]
    observation = aec.observe(aec.agent_selection)
    assert json.loads(observation["view"])["clue"] == CLUES[index]
    assert aec.observation_space(aec.agent_selection).contains(observation)


@pytest.mark.parametrize("clue", FREE)
def test_a_free_text_clue_goes_beside_the_id(clue: str) -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1)
    aec.reset()
    teller = aec.agent_selection
    assert aec.action_space(teller).contains((1, clue))
    card = aec.game.hand(aec.table.seat_of[teller])[1]
    aec.step((1, clue))
    assert aec.game.clue == clue.strip()
    assert aec.game.played(aec.table.seat_of[teller]) == (card,)
    view = json.loads(aec.observe(aec.agent_selection)["view"])
    assert view["clue"] == clue.strip()


def test_party_blind_clues_in_the_parallel_env_both_ways() -> None:
    free = parallel_env("party", 6, options=SHORT, seed=2)
    observations, _ = free.reset()
    teller = f"seat_{free.game.storyteller}"
    assert np.flatnonzero(observations[teller]["action_mask"]).tolist() == [free.table.space.blind.start]
    free.step({teller: (free.table.space.blind.start, "月亮 et la mer")})
    assert free.game.clue == "月亮 et la mer"
    vocabulary = parallel_env("party", 6, options=SHORT, seed=2, clues=CLUES)
    vocabulary.reset()
    vocabulary.step({teller: vocabulary.table.space.blind.start + 1})
    assert vocabulary.game.clue == CLUES[1]


def test_a_bare_id_tells_the_default_clue_and_a_bad_clue_is_refused() -> None:
    aec = env("odyssey", 4, options=SHORT, seed=1, illegal="raise")
    aec.reset()
    before = aec.game.to_json()
    with pytest.raises(IllegalAction, match="empty"):
        aec.step((0, "   "))
    with pytest.raises(IllegalAction, match="at most"):
        aec.step((0, "x" * (CLUE_MAX + 1)))
    assert aec.game.to_json() == before
    aec.step(0)
    assert aec.game.clue == DEFAULT_CLUE


def test_sampling_the_free_text_space_with_a_mask_gives_legal_moves_and_accepted_clues() -> None:
    aec = env("odyssey", 5, options=SHORT, seed=3)
    aec.reset()
    for agent in aec.agent_iter():
        observation, _, termination, _, _ = aec.last()
        assert observation is not None
        if termination:
            aec.step(None)
            continue
        space = aec.action_space(agent)
        assert isinstance(space, ClueActionSpace)
        id, clue = space.sample(observation["action_mask"])
        assert observation["action_mask"][id] == 1
        assert clean_clue(clue)
        assert space.contains((id, clue))
        aec.step((id, clue))
    assert aec.game.is_over


def test_the_clue_charset_holds_letters_with_accents_cjk_digits_punctuation_and_spaces() -> None:
    for text in [
        "àéîõüçñœ",
        "ÀÉÎÕÜÇÑŒ",
        "月亮兔子",
        "ひらがなカタカナ",
        "한국어",
        "0123456789",
        " .,;:!?'\"-()",
        "“”‘’…–—«»¿¡",
        "，。！？",
    ]:
        assert set(text) <= set(CLUE_CHARSET), text
    assert not set("\t\n\u200b\u202e") & set(CLUE_CHARSET)
    for char in CLUE_CHARSET[::97]:
        clean_clue("a" + char + "b")  # the engine takes every one
