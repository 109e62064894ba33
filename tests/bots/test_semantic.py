"""The semantic guesser: the numpy model, card features, memory, and `fabula ai eval`.

Every card and clue here is written for these tests (none comes from evaluation data).
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fabula.bots.semantic import encoder as encoder_module
from fabula.bots.semantic.associations import ASSOCIATIONS, associations
from fabula.bots.semantic.cards import TEXT_FEATURES
from fabula.bots.semantic.encoder import shared_encoder
from fabula.bots.semantic.evaluation import evaluate, pearson, read_cards
from fabula.bots.semantic.guesser import Guesser
from fabula.bots.semantic.memory import (
    MEMORY_FEATURES,
    MIN_APPEARANCES,
    ClueMemory,
    PastRound,
    normalise_clue,
    read_rounds,
)
from fabula.cards.model import Card
from fabula.cards.original import original_deck
from fabula.cli import main

CARDS: list[dict[str, Any]] = [
    {
        "id": "L",
        "description": "A red lighthouse stands on a rocky coast, its beam sweeping over the night sea.",
        "tags": ["lighthouse", "beacon", "coast", "night"],
    },
    {
        "id": "N",
        "description": "A steaming bowl of ramen noodles with chopsticks on a wooden table.",
        "tags": ["noodles", "food", "soup", "chopsticks"],
    },
    {
        "id": "V",
        "description": "A violin lies on an empty chair in a concert hall.",
        "tags": ["violin", "music", "concert"],
    },
    {
        "id": "M",
        "description": "A snowy mountain peak under a clear blue sky.",
        "tags": ["mountain", "snow", "summit"],
    },
    {
        "id": "C",
        "description": "A black cat sleeps curled up on a sunny windowsill.",
        "tags": ["cat", "sleep", "window"],
    },
    {
        "id": "B",
        "description": "A bicycle leans against a lamppost on a rainy street.",
        "tags": ["bicycle", "rain", "street"],
    },
]

#: Literal clues: the storyteller's card is never in doubt.
ROUNDS: list[dict[str, Any]] = [
    {
        "players": 4,
        "clue": "Lighthouse beam",
        "cards": ["N", "L", "V", "M"],
        "vote_share": {"N": 0.0, "L": 1.0, "V": 0.0, "M": 0.0},
        "storyteller_card": "L",
    },
    {
        "players": 5,
        "clue": "Noodle soup",
        "cards": ["N", "C", "B", "L", "M"],
        "vote_share": {"N": 0.75, "C": 0.0, "B": 0.25, "L": 0.0, "M": 0.0},
        "storyteller_card": "N",
    },
    {
        "players": 4,
        "clue": "Violin concert",
        "cards": ["M", "C", "V", "B"],
        "vote_share": {"M": 0.0, "C": 0.0, "V": 2 / 3, "B": 1 / 3},
        "storyteller_card": "V",
    },
    {
        "players": 6,
        "clue": "A sleeping cat",
        "cards": ["B", "V", "C", "N", "L", "M"],
        "vote_share": {"B": 0.0, "V": 0.2, "C": 0.8, "N": 0.0, "L": 0.0, "M": 0.0},
        "storyteller_card": "C",
    },
    {
        "players": 4,
        "clue": "Snowy summit",
        "cards": ["L", "M", "C", "N"],
        "vote_share": {"L": 0.0, "M": 1.0, "C": 0.0, "N": 0.0},
        "storyteller_card": "M",
    },
]


def cards() -> dict[str, Card]:
    return {c["id"]: Card(id=c["id"], title="", description=c["description"], tags=tuple(c["tags"])) for c in CARDS}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    rounds_path, cards_path = tmp_path / "rounds.jsonl", tmp_path / "cards.json"
    rounds_path.write_text("".join(json.dumps(r) + "\n" for r in ROUNDS))
    cards_path.write_text(json.dumps(CARDS))
    return rounds_path, cards_path


def test_the_model_matches_the_reference_implementation() -> None:
    # Values from sentence-transformers running the same package's files (torch, in a scratch venv),
    # so without the adapter Fabula adds (tests/bots/test_adapter.py).
    a, b = encoder_module.Encoder(adapter=None).encode(["A lighthouse stands on a rock in a storm.", "Guiding light"])
    assert a[:6] == pytest.approx([-0.030558, 0.049394, 0.046223, 0.066117, -0.00884, 0.048232], abs=2e-6)
    assert b[:6] == pytest.approx([0.005623, -0.001073, 0.004817, 0.054227, 0.021196, 0.008437], abs=2e-6)
    assert float(a @ b) == pytest.approx(0.247246, abs=2e-6)
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-5)


def test_batches_give_the_vectors_of_single_texts() -> None:
    texts = ["short", "a much longer sentence about a cat on a sunny windowsill", "mid-length text here"]
    fresh = encoder_module.Encoder()
    together = fresh.encode(texts)
    alone = np.stack([encoder_module.Encoder().encode_one(t) for t in texts])
    assert together == pytest.approx(alone, abs=1e-5)


def test_the_model_loads_once_per_process() -> None:
    first = Guesser()
    second = Guesser(memory=ClueMemory(shared_encoder()))
    assert first.encoder is second.encoder is shared_encoder()
    assert first.index is second.index
    assert encoder_module.loads == 1


def test_probabilities_and_votes_sum_to_one() -> None:
    table = list(cards().values())
    for clue in ("Lighthouse", "Something nobody can guess", "Loneliness", ""):
        guess = Guesser().guess(clue, table)
        assert len(guess.probabilities) == len(guess.votes) == len(table)
        assert math.fsum(guess.probabilities) == pytest.approx(1.0)
        assert math.fsum(guess.votes) == pytest.approx(1.0)
        assert all(0 < p < 1 for p in guess.probabilities)
        assert guess.ranking()[0] == guess.best


def test_literal_clues_find_their_card() -> None:
    table = list(cards().values())
    for clue, card in [("Lighthouse", "L"), ("Ramen", "N"), ("A violin", "V"), ("Mountain top", "M"), ("Bike", "B")]:
        assert Guesser().guess(clue, table).best == card


def test_cards_without_text_are_played_blind() -> None:
    blind = [Card(id=f"x{i}", title="", description="") for i in range(4)]
    guess = Guesser().guess("Anything", blind)
    assert guess.probabilities == pytest.approx([0.25] * 4)
    mixed = [*blind[:2], cards()["L"]]
    assert Guesser().guess("Lighthouse", mixed).best == "L"
    assert Guesser().guess("Lighthouse", mixed).probabilities[0] > 0.01  # less likely, not ruled out


def test_a_caption_alone_or_tags_alone_are_enough() -> None:
    captions = [Card(id=c.id, title="", description=c.description) for c in cards().values()]
    tagged = [Card(id=c.id, title="", description="", tags=c.tags) for c in cards().values()]
    for table in (captions, tagged):
        assert Guesser().guess("Lighthouse", table).best == "L"
        assert Guesser().guess("Noodles", table).best == "N"


def test_the_eval_command_gives_the_figures_computed_here(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rounds_path, cards_path = files
    assert main(["ai", "eval", str(rounds_path), "--cards", str(cards_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"rounds", "top1", "chance_top1", "log_loss", "vote_share_r"} <= report.keys()
    assert report["rounds"] == len(ROUNDS)
    assert report["top1"] == 1.0  # every clue names its card
    assert report["chance_top1"] == pytest.approx(statistics.mean(1 / len(r["cards"]) for r in ROUNDS), abs=1e-4)
    assert report["chance_log_loss"] == pytest.approx(
        statistics.mean(math.log(len(r["cards"])) for r in ROUNDS), abs=1e-4
    )

    # The same figures, from the guesser's own probabilities and the standard library's statistics.
    table = cards()
    losses: list[float] = []
    probabilities: list[float] = []
    shares: list[float] = []
    for r in ROUNDS:
        guess = Guesser().guess(r["clue"], [table[c] for c in r["cards"]])
        losses.append(-math.log(guess.probabilities[r["cards"].index(r["storyteller_card"])]))
        probabilities.extend(guess.probabilities)
        shares.extend(r["vote_share"][c] for c in r["cards"])
    assert report["log_loss"] == pytest.approx(statistics.mean(losses), abs=1e-4)
    assert report["vote_share_r"] == pytest.approx(statistics.correlation(probabilities, shares), abs=1e-4)
    assert report["vote_share_r"] > 0.5


def test_the_eval_command_prints_a_table(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rounds_path, cards_path = files
    assert main(["ai", "eval", str(rounds_path), "--cards", str(cards_path), "--memory", str(rounds_path)]) == 0
    out = capsys.readouterr().out
    assert "5 rounds, guessed from 5 remembered rounds" in out
    assert "top-1 accuracy" in out
    assert "100.0%" in out


def test_the_eval_command_refuses_bad_input(
    tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, cards_path = files
    assert main(["ai", "eval", str(tmp_path / "missing.jsonl"), "--cards", str(cards_path)]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"clue": "x", "cards": ["L", "N"], "storyteller_card": "Z"}\n')
    assert main(["ai", "eval", str(bad), "--cards", str(cards_path)]) == 2
    assert "line 1" in capsys.readouterr().err
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text('{"clue": "x", "cards": ["L", "Q"], "storyteller_card": "Q"}\n')
    assert main(["ai", "eval", str(unknown), "--cards", str(cards_path)]) == 2
    assert "not in the cards file" in capsys.readouterr().err


def test_memory_of_earlier_clues_finds_an_abstract_clue() -> None:
    table = cards()
    on_table = [table[c] for c in ("V", "C", "N", "B")]
    clue = "The laziest day of the week"
    without = Guesser().guess(clue, on_table)
    earlier = [("A lazy Sunday", "C"), ("Dinner time", "N"), ("Encore!", "V"), ("Wet commute", "B")]
    past = [
        PastRound(text, ("V", "C", "N", "B"), card, {c: float(c == card) for c in "VCNB"})
        for _ in range(MIN_APPEARANCES)
        for text, card in earlier
    ]
    memory = ClueMemory(shared_encoder())
    memory.add(past[: MIN_APPEARANCES - 1])
    assert len(memory) == MIN_APPEARANCES - 1
    # Each card was on too few remembered tables yet: the memory stays out of the guess.
    assert Guesser(memory=memory).features(clue, on_table)[0].shape[1] == len(TEXT_FEATURES)
    memory.add(past[MIN_APPEARANCES - 1 :])
    with_memory = Guesser(memory=memory).guess(clue, on_table)
    cat = 1  # "C" in on_table
    assert with_memory.best == "C"
    assert with_memory.probabilities[cat] > without.probabilities[cat] + 0.1


def test_memory_features_are_neutral_for_unknown_cards() -> None:
    memory = ClueMemory(shared_encoder())
    memory.add([PastRound("Lazy Sunday", ("C", "N", "X"), "C", {"C": 1.0, "N": 0.0, "X": 0.0})] * MIN_APPEARANCES)
    vector = shared_encoder().encode_one("Lazy Sunday")
    features, known = memory.features("lazy sunday!", vector, ["C", "N", "X"])
    assert known
    assert features.shape == (3, len(MEMORY_FEATURES))
    assert features[1] == pytest.approx(features[2])  # neither ever told nor voted for
    assert features[0, MEMORY_FEATURES.index("told_exact")] == pytest.approx(math.log(1 + MIN_APPEARANCES))
    _, known = memory.features("x", vector, ["C", "Y"])
    assert not known
    text_only, _ = Guesser().features("Lazy Sunday", list(cards().values()))
    assert text_only.shape == (len(CARDS), len(TEXT_FEATURES))


def test_evaluate_online_remembers_each_round() -> None:
    rounds = [PastRound.from_json(r) for r in ROUNDS]
    report = evaluate(rounds, cards(), online=True)
    assert report.memory_rounds == len(ROUNDS)
    assert report.top1 == 1.0


def test_rounds_are_checked() -> None:
    good = PastRound.from_json(ROUNDS[0])
    assert good.storyteller_card == "L"
    assert good.vote_share["L"] == 1.0
    for bad in (
        {"clue": 3, "cards": ["a", "b"], "storyteller_card": "a"},
        {"clue": "x", "cards": ["a", "a"], "storyteller_card": "a"},
        {"clue": "x", "cards": ["a"], "storyteller_card": "a"},
        {"clue": "x", "cards": ["a", "b"], "storyteller_card": "a", "vote_share": {"a": "lots"}},
    ):
        with pytest.raises(ValueError, match=r"round|vote_share"):
            PastRound.from_json(bad)
    assert normalise_clue("  The  END... ") == "the end"
    assert normalise_clue("«Freedom!»") == normalise_clue("freedom") == "freedom"
    assert normalise_clue("自由！") == normalise_clue("「自由」") == "自由"
    assert normalise_clue("Don't stop") == "don't stop"


def test_files_are_read(files: tuple[Path, Path]) -> None:
    rounds_path, cards_path = files
    assert [r.clue for r in read_rounds(rounds_path)] == [r["clue"] for r in ROUNDS]
    assert read_cards(cards_path)["V"].tags == ("violin", "music", "concert")
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 1, 1], [2, 4, 6]) == 0.0


def test_every_original_card_has_associations_and_only_they_do() -> None:
    deck = original_deck().cards
    for card in deck:
        assert len(associations(card)) >= 10, card.id
    subjects = {card.tags[0] for card in deck}
    assert subjects <= ASSOCIATIONS.keys()
    imported = Card(id="holiday-01", title="", description="A key.", tags=("key",))
    assert associations(imported) == ()


def test_associations_carry_an_abstract_clue_on_the_original_deck() -> None:
    deck = {card.id: card for card in original_deck().cards}
    stairs = next(card for card in deck.values() if "stairs" in card.tags)
    others = [card for card in deck.values() if not {"stairs", "ascent"} & set(card.tags)][:5]
    assert Guesser().guess("Climbing the ladder of success", [*others, stairs]).best == stairs.id
