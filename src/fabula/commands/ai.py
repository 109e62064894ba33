"""`fabula ai eval`: the guesser measured against rounds of human play; `fabula ai split`: a rounds
file parted into the rounds the guesser was tuned on and the held-out others; `fabula ai export`:
played rounds (arena logs, a server's games) in the format of that data."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

if TYPE_CHECKING:
    from fabula.bots.semantic.memory import PastRound


def unreadable(error: OSError | ValueError) -> int:
    """Say why an input could not be read; the exit status for it."""
    if isinstance(error, OSError):
        print(f"error: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
    else:
        print(f"error: {error}", file=sys.stderr)
    return 2


def run_eval(rounds_path: str, cards_path: str, memory_path: str | None, online: bool, as_json: bool) -> int:
    from fabula.bots.semantic.encoder import ModelMissing
    from fabula.bots.semantic.evaluation import evaluate, read_cards
    from fabula.bots.semantic.memory import read_rounds

    try:
        cards = read_cards(cards_path)
        rounds = read_rounds(rounds_path)
        memory = read_rounds(memory_path) if memory_path else []
    except (OSError, ValueError) as error:
        return unreadable(error)
    if not rounds:
        print(f"error: {rounds_path} holds no rounds", file=sys.stderr)
        return 2
    warn_overlaps(rounds_path, rounds, memory)
    # disable=None: a bar only when stderr is a terminal.
    with tqdm(total=len(memory) + len(rounds), unit="round", disable=None, leave=False) as bar:
        try:
            report = evaluate(rounds, cards, memory=memory, progress=bar.update, online=online)
        except (ModelMissing, ValueError) as error:
            bar.close()
            print(f"error: {error}", file=sys.stderr)
            return 2
    if as_json:
        print(json.dumps(report.to_json()))
        return 0
    source = f"{report.memory_rounds:,} remembered rounds" if report.memory_rounds else "card texts only"
    print(f"{report.rounds:,} rounds, guessed from {source}")
    print(f"  {'':<26}{'guesser':>9}{'chance':>9}")
    print(f"  {'top-1 accuracy':<26}{report.top1:>9.1%}{report.chance_top1:>9.1%}")
    print(f"  {'mean log-loss':<26}{report.log_loss:>9.3f}{report.chance_log_loss:>9.3f}")
    print(f"  {'r with human vote shares':<26}{report.vote_share_r:>9.3f}{report.chance_vote_share_r:>9.3f}")
    print(f"  {'r of the vote-share model':<26}{report.vote_model_r:>9.3f}")
    print(f"  {'time per guess':<26}{report.seconds_per_guess * 1000:>7.2f} ms (clues embedded beforehand)")
    return 0


def warn_overlaps(rounds_path: str, rounds: Sequence[PastRound], memory: Sequence[PastRound]) -> None:
    """Warn (on standard error) when the rounds evaluated hold tuning rounds, or rounds of the memory."""
    from fabula.bots.semantic.evaluation import remembered
    from fabula.bots.semantic.split import HELDOUT_NAME, tuning_keys, tuning_overlap

    tuned = tuning_overlap(rounds)
    if tuned:
        print(
            f"warning: {tuned:,} of the {len(rounds):,} rounds evaluated are among the {len(tuning_keys()):,} rounds "
            "the guesser was tuned on (the first half of the shared val.jsonl: its weights and MiniLM's adapter "
            "learned from them), so these figures flatter it. For held-out figures, evaluate the others: "
            f'`fabula ai split {rounds_path} --out DIR` writes them to DIR/{HELDOUT_NAME} (docs/ai.md, "Measured").',
            file=sys.stderr,
        )
    again = remembered(rounds, memory)
    if again:
        print(
            f"warning: {again:,} of the {len(rounds):,} rounds evaluated are in --memory too: the guesser remembers "
            "their storyteller's cards.",
            file=sys.stderr,
        )


def run_split(rounds_path: str, out: str) -> int:
    """`fabula ai split`: ``rounds_path`` parted into ``out``/tuning.jsonl (the rounds the shipped
    guesser was tuned on) and ``out``/heldout.jsonl (the others), lines as they were, in order."""
    from fabula.bots.semantic.split import HELDOUT_NAME, SHARED_SHA256, SPLIT_SHA256, TUNING_NAME, split_lines

    try:
        tuning, held_out = split_lines(rounds_path)
        source = hashlib.sha256(Path(rounds_path).read_bytes()).hexdigest()
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        written = {}
        for name, lines in ((TUNING_NAME, tuning), (HELDOUT_NAME, held_out)):
            data = "".join(lines).encode("utf-8")
            (folder / name).write_bytes(data)
            written[name] = hashlib.sha256(data).hexdigest()
    except (OSError, ValueError) as error:
        return unreadable(error)
    print(
        f"{len(tuning) + len(held_out):,} rounds: {len(tuning):,} tuning rounds to {folder / TUNING_NAME}, "
        f"{len(held_out):,} held out to {folder / HELDOUT_NAME}",
        file=sys.stderr,
    )
    if source == SHARED_SHA256:
        same = written == SPLIT_SHA256
        print(
            "the shared val.jsonl: "
            + ("both files are the documented halves, byte for byte" if same else "NOT the documented halves"),
            file=sys.stderr,
        )
        return 0 if same else 1
    return 0


def run_export(
    logs: Sequence[str],
    *,
    albums: Sequence[str],
    data: str | None,
    out: str | None,
    cards_out: str | None,
    party: bool,
) -> int:
    """`fabula ai export`: arena logs, saved albums and a data folder's finished games → rounds in
    the evaluation format (``out``, or standard output), and their cards (``cards_out``)."""
    from fabula.research.export import cards_json, read_album, read_log, read_store

    if not (logs or albums or data):
        print("error: name at least one arena log, --album or --data", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    try:
        for path in logs:
            rows.extend(read_log(path, party=party))
        for path in albums:
            rows.extend(read_album(path, party=party))
        if data:
            rows.extend(read_store(data, party=party))
    except (OSError, ValueError) as error:
        return unreadable(error)
    if cards_out:
        from fabula.cards.library import DeckLibrary

        from .deck import builtin_decks, data_folder

        # Every deck the server knows (a room's own pictures are not among them).
        known = {
            card.id: card for deck in DeckLibrary(data_folder(data), builtin_decks()).decks() for card in deck.cards
        }
        try:
            described = cards_json(rows, known)
        except KeyError as error:
            print(f"error: {error.args[0]}", file=sys.stderr)
            return 2
        with open(cards_out, "w", encoding="utf-8") as handle:
            json.dump(described, handle, ensure_ascii=False, indent=1)
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in rows)
    if out is None or out == "-":
        sys.stdout.write(lines)
    else:
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(lines)
    print(f"{len(rows):,} rounds exported", file=sys.stderr)
    return 0
