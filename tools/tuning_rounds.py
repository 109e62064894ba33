"""Write the fingerprints of the tuning rounds (src/fabula/bots/semantic/tuning-rounds.bin).

    .venv/bin/python tools/tuning_rounds.py /work/shared/eval/boiteajeux/val.jsonl

The tuning rounds are the first half of the shared file in its order — its first
``len(rounds) // 2`` rounds (5,811 of 11,623), the rounds tools/tune_guesser.py and
tools/finetune_encoder.py learn from. What `fabula ai eval` warns about and `fabula ai split`
parts by (`fabula.bots.semantic.split`); tests/bots/test_split.py checks that this writes the
shipped file byte for byte. Run it again only if the guesser is ever tuned on other rounds.
"""

from __future__ import annotations

import argparse
import sys

from fabula.bots.semantic.memory import read_rounds
from fabula.bots.semantic.split import FINGERPRINTS, fingerprints


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("rounds", help="the shared val.jsonl")
    parser.add_argument("--out", default=str(FINGERPRINTS), help="where to write (default: the shipped file)")
    args = parser.parse_args()
    rounds = read_rounds(args.rounds)
    tuning = rounds[: len(rounds) // 2]
    data = fingerprints(tuning)
    with open(args.out, "wb") as handle:
        handle.write(data)
    print(f"{len(tuning):,} tuning rounds of {len(rounds):,}: {len(data):,} bytes to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
