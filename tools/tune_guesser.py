"""Fit the guesser's weights on rounds of human play and print them as Python.

    .venv/bin/python tools/tune_guesser.py ROUNDS.jsonl --cards CARDS.json [--model multilingual]

The split, so that the figures `fabula ai eval` reports on the second half are on unseen rounds:
the rounds file is cut in two halves in file order; only the first half is read here.

- text-only weights: fitted on the whole first half;
- memory weights: the first half's first half is the memory, its second half the rounds fitted.

Paste the printed `DEFAULT_WEIGHTS` (or, with ``--model multilingual``, `MULTILINGUAL_WEIGHTS`: the
same fit with the model that reads clues in other languages) into src/fabula/bots/semantic/guesser.py.
The data itself is never shipped; only these few numbers are.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from tqdm import tqdm

from fabula.bots.semantic.cards import TEXT_FEATURES
from fabula.bots.semantic.encoder import shared_encoder, shared_multilingual_encoder
from fabula.bots.semantic.evaluation import read_cards
from fabula.bots.semantic.guesser import Guesser
from fabula.bots.semantic.memory import MEMORY_FEATURES, ClueMemory, read_rounds
from fabula.bots.semantic.tuning import cross_entropy, fit, round_features


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("rounds")
    parser.add_argument("--cards", required=True)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--model", choices=("minilm", "multilingual"), default="minilm")
    args = parser.parse_args()
    rounds = read_rounds(args.rounds)
    cards = read_cards(args.cards)
    tune = rounds[: len(rounds) // 2]
    memory_part, fit_part = tune[: len(tune) // 2], tune[len(tune) // 2 :]

    encoder = shared_multilingual_encoder() if args.model == "multilingual" else shared_encoder()
    name = "MULTILINGUAL_WEIGHTS" if args.model == "multilingual" else "DEFAULT_WEIGHTS"
    text_guesser = Guesser(encoder=encoder)
    text_guesser.index.warm(list(cards.values()))
    text_guesser.encoder.encode([r.clue for r in tune])
    with tqdm(total=len(tune), desc="text features", disable=None, leave=False) as bar:
        x, mask, told, votes = round_features(text_guesser, tune, cards, bar.update)
    find_text = fit(x, mask, told, l2=args.l2)
    vote_text = fit(x, mask, votes, l2=args.l2)
    loss = cross_entropy(x, mask, told, find_text)
    print(f"# text only: {len(tune)} rounds, cross-entropy {loss:.4f}", file=sys.stderr)

    memory = ClueMemory(text_guesser.encoder)
    memory.add(memory_part)
    memory_guesser = Guesser(memory=memory, encoder=encoder)
    with tqdm(total=len(fit_part), desc="memory features", disable=None, leave=False) as bar:
        x, mask, told, votes = round_features(memory_guesser, fit_part, cards, bar.update)
    find_memory = fit(x, mask, told, l2=args.l2)
    vote_memory = fit(x, mask, votes, l2=args.l2)
    print(
        f"# memory: {len(memory_part)} remembered, {len(fit_part)} fitted, "
        f"cross-entropy {cross_entropy(x, mask, told, find_memory):.4f}",
        file=sys.stderr,
    )

    def show(w: np.ndarray) -> str:
        return "(" + ", ".join(f"{v:.3f}" for v in w) + ")"

    print(f"# features: {', '.join(TEXT_FEATURES)} | {', '.join(MEMORY_FEATURES)}")
    print(f"{name} = Weights(")
    print(f"    find_text={show(find_text)},")
    print(f"    vote_text={show(vote_text)},")
    print(f"    find_memory={show(find_memory)},")
    print(f"    vote_memory={show(vote_memory)},")
    print(")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
