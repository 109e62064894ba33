"""Fit the guesser's weights on rounds of human play and print them as Python.

    .venv/bin/python tools/tune_guesser.py ROUNDS.jsonl --cards CARDS.json \
        [--fold-adapters FIRST.safetensors SECOND.safetensors | --model multilingual]

The split, so that the figures `fabula ai eval` reports on the second half are on unseen rounds:
the rounds file is cut in two halves in file order; only the first half is read here, as two
quarters.

- text-only weights: fitted on both quarters;
- memory weights: one quarter is the memory, the other the rounds fitted (both ways round).

MiniLM's adapter (tools/finetune_encoder.py) has learned from the clues of the tuning half, so the
weights must be fitted on clues it has not seen: ``--fold-adapters`` names an adapter trained on
the first quarter only and one trained on the second only; each quarter's features come from the
adapter that did not see it (cross-fitting). The shipped adapter, trained on both quarters, is then
used with these weights. Without it, MiniLM is read as published (no adapter).

Paste the printed `DEFAULT_WEIGHTS` (or, with ``--model multilingual``, `MULTILINGUAL_WEIGHTS`: the
same fit with the model that reads clues in other languages) into src/fabula/bots/semantic/guesser.py.
The data itself is never shipped; only these few numbers are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from fabula.bots.semantic.cards import TEXT_FEATURES
from fabula.bots.semantic.encoder import Encoder, TextEncoder, shared_multilingual_encoder
from fabula.bots.semantic.evaluation import read_cards
from fabula.bots.semantic.guesser import Guesser
from fabula.bots.semantic.memory import MEMORY_FEATURES, ClueMemory, PastRound, read_rounds
from fabula.bots.semantic.tuning import cross_entropy, fit, round_features


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("rounds")
    parser.add_argument("--cards", required=True)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--model", choices=("minilm", "multilingual"), default="minilm")
    parser.add_argument(
        "--fold-adapters", nargs=2, type=Path, metavar=("FIRST", "SECOND"),
        help="MiniLM adapters trained on the first and on the second quarter only",
    )  # fmt: skip
    args = parser.parse_args()
    rounds = read_rounds(args.rounds)
    cards = read_cards(args.cards)
    tune = rounds[: len(rounds) // 2]

    quarters = tune[: len(tune) // 2], tune[len(tune) // 2 :]
    if args.model == "multilingual":
        encoders: tuple[TextEncoder, TextEncoder] = (shared_multilingual_encoder(),) * 2
    elif args.fold_adapters:
        # each quarter is read by the adapter trained on the other one
        encoders = (Encoder(adapter=args.fold_adapters[1]), Encoder(adapter=args.fold_adapters[0]))
    else:
        encoders = (Encoder(adapter=None),) * 2
    name = "MULTILINGUAL_WEIGHTS" if args.model == "multilingual" else "DEFAULT_WEIGHTS"

    def features(guesser: Guesser, rounds: list[PastRound], label: str) -> tuple[np.ndarray, ...]:
        guesser.index.warm(list(cards.values()))
        with tqdm(total=len(rounds), desc=label, disable=None, leave=False) as bar:
            return round_features(guesser, rounds, cards, bar.update)

    def stacked(parts: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))

    x, mask, told, votes = stacked(
        [
            features(Guesser(encoder=encoder), rounds, "text features")
            for encoder, rounds in zip(encoders, quarters, strict=True)
        ]
    )
    find_text = fit(x, mask, told, l2=args.l2)
    vote_text = fit(x, mask, votes, l2=args.l2)
    print(f"# text only: {len(x)} rounds, cross-entropy {cross_entropy(x, mask, told, find_text):.4f}", file=sys.stderr)

    memory_parts = []
    for encoder, fitted, remembered in zip(encoders, quarters, reversed(quarters), strict=True):
        memory = ClueMemory(encoder.published)
        memory.add(remembered)
        memory_parts.append(features(Guesser(memory=memory, encoder=encoder), fitted, "memory features"))
    x, mask, told, votes = stacked(memory_parts)
    find_memory = fit(x, mask, told, l2=args.l2)
    vote_memory = fit(x, mask, votes, l2=args.l2)
    print(
        f"# memory: each quarter fitted with the other as memory, {len(x)} rounds, "
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
