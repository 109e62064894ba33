"""The tuning rounds and the held-out rounds of the human evaluation data (``val.jsonl``).

The guesser's weights and MiniLM's adapter were fitted on the first half of the shared file
(rounds 1–5,811, in file order: tools/tune_guesser.py, tools/finetune_encoder.py); the figures of
docs/ai.md are measured on the second half (rounds 5,812–11,623). A figure measured on a tuning
round flatters the guesser — on the file's first 300 rounds it finds the storyteller's card
63.7% of the time, on its last 300 32.3% — so `fabula ai eval` counts the tuning rounds among
those it is given (`tuning_overlap`) and warns, and `fabula ai split` (`split_lines`) parts any
rounds file into its tuning rounds and the others.

The data is not shipped; what is shipped is a fingerprint of each tuning round
(``tuning-rounds.bin``: the sorted 8-byte BLAKE2b digests of `round_key`, 5,811 × 8 bytes,
written by tools/tuning_rounds.py from the shared file). A round is known by its clue, its
storyteller's card and the set of cards on its table — not by the order of the table or its vote
shares, so a round written again by another program (`fabula ai export`, a re-shuffled table,
rounded shares) is still known. No two rounds of the shared file share a key.

>>> round_key(PastRound("Winter", ("68", "10", "7"), "10")) == round_key(PastRound("Winter", ("7", "68", "10"), "10"))
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from .memory import PastRound, round_of_line

__all__ = [
    "DIGEST_SIZE",
    "FINGERPRINTS",
    "HELDOUT_NAME",
    "SHARED_SHA256",
    "SPLIT_SHA256",
    "TUNING_NAME",
    "fingerprints",
    "round_key",
    "split_lines",
    "tuning_keys",
    "tuning_overlap",
]

#: Bytes of a round's fingerprint.
DIGEST_SIZE = 8
#: The fingerprints of the tuning rounds, shipped with the package.
FINGERPRINTS = Path(__file__).with_name("tuning-rounds.bin")
#: The files `fabula ai split` writes in its folder.
TUNING_NAME, HELDOUT_NAME = "tuning.jsonl", "heldout.jsonl"
#: SHA-256 of the shared ``val.jsonl`` (11,623 rounds) the split was made from.
SHARED_SHA256 = "5b68d1c98ff1f98692e7d780efda8a41588166fe301fac5d12b35154be6f4770"
#: SHA-256 of the two files `fabula ai split` writes from it.
SPLIT_SHA256 = {
    TUNING_NAME: "159a4c43a9a28bab49e5c9f36dd94900231d47ef2e6847c15f20a03aee5891e1",
    HELDOUT_NAME: "28aee4fb459a46868d6b67b9a8aa097a70a8381e16f1da725d591f111706e3fd",
}


def round_key(past: PastRound) -> bytes:
    """A round's fingerprint: the digest of its clue, storyteller's card and sorted table."""
    canonical = json.dumps([past.clue, past.storyteller_card, sorted(past.cards)], ensure_ascii=False)
    return hashlib.blake2b(canonical.encode("utf-8"), digest_size=DIGEST_SIZE).digest()


def fingerprints(rounds: Iterable[PastRound]) -> bytes:
    """The ``tuning-rounds.bin`` of ``rounds``: their keys sorted, one after another."""
    return b"".join(sorted({round_key(past) for past in rounds}))


@cache
def tuning_keys() -> frozenset[bytes]:
    """The keys of the rounds the shipped guesser was tuned on."""
    raw = FINGERPRINTS.read_bytes()
    return frozenset(raw[i : i + DIGEST_SIZE] for i in range(0, len(raw), DIGEST_SIZE))


def tuning_overlap(rounds: Sequence[PastRound]) -> int:
    """How many of ``rounds`` the shipped guesser was tuned on."""
    known = tuning_keys()
    return sum(round_key(past) in known for past in rounds)


def split_lines(path: str | Path) -> tuple[list[str], list[str]]:
    """The lines of a rounds file (blank ones dropped, each ending in a newline) parted into the
    tuning rounds and the others, each in file order and byte for byte as in the file.
    `ValueError` names a line that is no round."""
    known = tuning_keys()
    tuning: list[str] = []
    held_out: list[str] = []
    with open(path, encoding="utf-8", newline="") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            past = round_of_line(line, f"{path}, line {number}")
            text = line if line.endswith("\n") else line + "\n"
            (tuning if round_key(past) in known else held_out).append(text)
    return tuning, held_out
