"""`fabula ai eval`: the guesser measured against rounds of human play; `fabula ai export`: played
rounds (arena logs, a server's games) in the format of that data."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm


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
