"""`fabula ai eval`: the guesser measured against rounds of human play."""

from __future__ import annotations

import json
import sys

from tqdm import tqdm


def run_eval(rounds_path: str, cards_path: str, memory_path: str | None, online: bool, as_json: bool) -> int:
    from fabula.bots.semantic.encoder import ModelMissing
    from fabula.bots.semantic.evaluation import evaluate, read_cards
    from fabula.bots.semantic.memory import read_rounds

    try:
        cards = read_cards(cards_path)
        rounds = read_rounds(rounds_path)
        memory = read_rounds(memory_path) if memory_path else []
    except OSError as error:
        print(f"error: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
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
