"""The tuning and held-out rounds: `fabula ai eval` warns about tuning rounds (and rounds it also
remembers), `fabula ai split` parts a rounds file, and the shipped fingerprints are those of the
shared file's first half (checked against the shared file when it is there).

The rounds of the first tests are written here (tests/bots/test_semantic.py); only the last
tests read the evaluation data, and skip without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabula.bots.semantic import split as split_module
from fabula.bots.semantic.memory import PastRound, read_rounds
from fabula.bots.semantic.split import (
    DIGEST_SIZE,
    FINGERPRINTS,
    HELDOUT_NAME,
    SHARED_SHA256,
    SPLIT_SHA256,
    TUNING_NAME,
    fingerprints,
    round_key,
    split_lines,
    tuning_keys,
    tuning_overlap,
)
from fabula.cli import main

from .test_semantic import CARDS, ROUNDS

ROOT = Path(__file__).resolve().parents[2]
#: The shared evaluation data: $FABULA_EVAL_DATA, else the workplace's shared folder beside the checkout.
SHARED = Path(os.environ.get("FABULA_EVAL_DATA", ROOT.parent / "shared" / "eval" / "boiteajeux"))
needs_shared = pytest.mark.skipif(
    not (SHARED / "val.jsonl").exists(), reason=f"the evaluation data is not at {SHARED} (set FABULA_EVAL_DATA)"
)


@pytest.fixture
def tuned_on_two() -> Iterator[frozenset[bytes]]:
    """The guesser 'tuned' on the first two of ROUNDS (the shipped fingerprints set aside)."""
    keys = frozenset(round_key(PastRound.from_json(r)) for r in ROUNDS[:2])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(split_module, "tuning_keys", lambda: keys)
        yield keys


def write(path: Path, rounds: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rounds), encoding="utf-8")
    return path


def test_a_round_is_known_by_its_clue_its_card_and_its_table_in_any_order() -> None:
    past = PastRound.from_json(ROUNDS[0])
    shuffled = PastRound(past.clue, tuple(reversed(past.cards)), past.storyteller_card, {})
    assert round_key(shuffled) == round_key(past)
    assert len(round_key(past)) == DIGEST_SIZE
    for other in (
        PastRound(past.clue + "!", past.cards, past.storyteller_card),
        PastRound(past.clue, past.cards, past.cards[0]),
        PastRound(past.clue, (*past.cards[:-1], "Z"), past.storyteller_card),
    ):
        assert round_key(other) != round_key(past)
    data = fingerprints([PastRound.from_json(r) for r in ROUNDS] * 2)
    assert len(data) == len(ROUNDS) * DIGEST_SIZE  # (each once)
    chunks = [data[i : i + DIGEST_SIZE] for i in range(0, len(data), DIGEST_SIZE)]
    assert chunks == sorted(chunks)


def test_eval_warns_how_many_tuning_rounds_it_was_given_and_what_gives_the_others(
    tmp_path: Path, tuned_on_two: frozenset[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps(CARDS))
    mixed = write(tmp_path / "mixed.jsonl", ROUNDS)
    assert main(["ai", "eval", str(mixed), "--cards", str(cards), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["tuning_rounds"] == 2
    assert f"warning: 2 of the {len(ROUNDS)} rounds evaluated are among the 2 rounds the guesser was tuned on" in err
    assert f"fabula ai split {mixed} --out DIR` writes them to DIR/heldout.jsonl" in err
    assert "--memory" not in err

    held_out = write(tmp_path / "held_out.jsonl", ROUNDS[2:])
    assert main(["ai", "eval", str(held_out), "--cards", str(cards), "--memory", str(mixed)]) == 0
    out, err = capsys.readouterr()
    assert "tuned on" not in err
    assert f"warning: {len(ROUNDS) - 2} of the {len(ROUNDS) - 2} rounds evaluated are in --memory too" in err
    assert "rounds, guessed from" in out


def test_eval_of_held_out_rounds_says_nothing(
    tmp_path: Path, tuned_on_two: frozenset[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps(CARDS))
    held_out = write(tmp_path / "held_out.jsonl", ROUNDS[2:])
    assert main(["ai", "eval", str(held_out), "--cards", str(cards), "--json", "--memory", str(held_out)]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert (report["tuning_rounds"], report["remembered_rounds"]) == (0, len(ROUNDS) - 2)
    assert "tuned on" not in err


def test_split_parts_a_file_by_round_keeping_each_line_as_it_was(
    tmp_path: Path, tuned_on_two: frozenset[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    # a tuning round written again by another program (its table reordered, keys in another
    # order, non-ASCII kept), CRLF endings, a blank line, no newline at the end
    again = {**ROUNDS[1], "cards": list(reversed(ROUNDS[1]["cards"])), "source": "elsewhere"}
    lines = [
        json.dumps(ROUNDS[2]) + "\r\n",
        json.dumps(dict(reversed(list(again.items()))), ensure_ascii=False) + "\n",
        "\n",
        json.dumps({**ROUNDS[3], "clue": "Le chat qui dort là"}, ensure_ascii=False) + "\n",
        json.dumps(ROUNDS[0]),
    ]
    source = tmp_path / "rounds.jsonl"
    source.write_bytes("".join(lines).encode("utf-8"))
    tuning, held_out = split_lines(source)
    assert tuning == [lines[1], lines[4] + "\n"]
    assert held_out == [lines[0], lines[3]]

    assert main(["ai", "split", str(source), "--out", str(tmp_path / "halves")]) == 0
    assert (tmp_path / "halves" / TUNING_NAME).read_bytes() == "".join(tuning).encode("utf-8")
    assert (tmp_path / "halves" / HELDOUT_NAME).read_bytes() == "".join(held_out).encode("utf-8")
    err = capsys.readouterr().err
    assert "4 rounds: 2 tuning rounds to" in err
    assert "2 held out to" in err
    assert "shared val.jsonl" not in err


def test_split_refuses_what_is_not_a_rounds_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(ROUNDS[0]) + "\n" + '{"clue": "x", "cards": ["L", "N"], "storyteller_card": "Z"}\n')
    assert main(["ai", "split", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "line 2" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert main(["ai", "split", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "out")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_shipped_fingerprints_are_the_tuning_half_of_11623_rounds() -> None:
    raw = FINGERPRINTS.read_bytes()
    assert len(raw) == 5811 * DIGEST_SIZE
    assert len(tuning_keys()) == 5811
    assert all(k not in tuning_keys() for k in map(round_key, map(PastRound.from_json, ROUNDS)))


@needs_shared
def test_the_fingerprints_and_the_split_are_made_again_byte_for_byte_from_the_shared_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    val = SHARED / "val.jsonl"
    assert hashlib.sha256(val.read_bytes()).hexdigest() == SHARED_SHA256
    made = tmp_path / "tuning-rounds.bin"
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "tuning_rounds.py"), str(val), "--out", str(made)],
        check=True,
        capture_output=True,
    )
    assert made.read_bytes() == FINGERPRINTS.read_bytes()

    out = tmp_path / "halves"
    assert main(["ai", "split", str(val), "--out", str(out)]) == 0
    assert "both files are the documented halves, byte for byte" in capsys.readouterr().err
    lines = val.read_bytes().splitlines(keepends=True)
    assert (out / TUNING_NAME).read_bytes() == b"".join(lines[:5811])
    assert (out / HELDOUT_NAME).read_bytes() == b"".join(lines[5811:])
    for name, digest in SPLIT_SHA256.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest


@needs_shared
def test_the_first_300_rounds_are_tuning_rounds_and_the_last_300_are_not() -> None:
    rounds = read_rounds(SHARED / "val.jsonl")
    assert tuning_overlap(rounds[:300]) == 300
    assert tuning_overlap(rounds[-300:]) == 0
    assert tuning_overlap(rounds) == 5811
