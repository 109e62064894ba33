"""The semantic bots' cost: model load time, resident memory, and time per decision.

Two kinds of decision are timed. A *guess* is one `Guesser.guess` for a clue never seen before (so
the clue is embedded, not taken from the cache) over a table of the original deck's cards, without
and with a memory of 3,000 finished rounds (synthetic: random tables, clues from the deck's own
associations), and for Chinese clues, which the multilingual model reads (loaded on the first one:
its load and resident memory are shown apart). A *bot move* is one `SemanticBot.choose` in real
games (odyssey with 6 and 12 players, party with 8, every level at the table, the hard bots with
that memory): the storyteller weighing every clue it knows, a decoy, a vote. The vector cache on
disk is pointed at an empty folder first, so the start-up figures are those of a first run.

Run: ``python benchmarks/bots.py`` (``--guesses N``, ``--json``). With ``--eval DIR`` (a folder
holding ``val.jsonl`` and ``cards.json``) it also prints the held-out accuracy figures of
docs/ai.md: the second half of the rounds, guessed from the card texts alone, then with the first
half as memory.

Targets (issue 6): p95 time per decision ≤ 300 ms; the model's resident memory ≤ 400 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

P95_TARGET_MS = 300
RSS_TARGET_MB = 400
#: Words and endings combined into clues no earlier guess has seen.
_WORDS = (
    "Silence", "Journey", "Forgotten", "Home", "Waiting", "Secret", "Dream", "Balance", "Courage", "Hope",
    "Far away", "Lost", "Together", "Night", "Growing", "Escape", "Patience", "Freedom", "Wonder", "Fear",
)  # fmt: skip
_ZH_WORDS = (
    "寂靜", "旅程", "遺忘", "回家", "等待", "秘密", "夢想", "平衡", "勇氣", "希望",
    "遠方", "迷路", "在一起", "黑夜", "成長", "逃離", "耐心", "自由", "驚奇", "害怕",
)  # fmt: skip
_ENDINGS = (
    "", " again", " at last", " of the heart", " in the rain", " before dawn", " and nothing else",
    " for a while", " too soon", " that never was", " under the bed", " in my pocket",
)  # fmt: skip


def rss_mb() -> float:
    """This process's resident memory now (Linux /proc), else its peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def clues(count: int, rng: random.Random, *, chinese: bool = False) -> list[str]:
    """``count`` different clues no guess has seen before, in English or in Chinese."""
    out: dict[str, None] = {}
    while len(out) < count:
        if chinese:
            text = f"{rng.choice(_ZH_WORDS)}的{rng.choice(_ZH_WORDS)}{'…' * rng.randrange(2)}{rng.randrange(100)}"
        else:
            text = f"{rng.choice(_WORDS)}{rng.choice(_ENDINGS)} {rng.choice(_WORDS).lower()}{'.' * rng.randrange(3)}"
        out[text] = None
    return list(out)


def time_guesses(
    guesser: Any, deck: list[Any], texts: list[str], table_size: int, rng: random.Random
) -> dict[str, float]:
    timings = []
    for text in texts:
        table = rng.sample(deck, table_size)
        start = time.perf_counter()
        guesser.guess(text, table)
        timings.append((time.perf_counter() - start) * 1000)
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(percentile(timings, 0.95), 2),
        "max_ms": round(max(timings), 2),
    }


def time_bot_moves(memory: Any, rng: random.Random) -> dict[str, dict[str, float]]:
    """Milliseconds per `choose`, by level and kind of move, over a few whole games (the last
    table's bots give their clues in Chinese: keys ``zh-Hant …``)."""
    from fabula.bots.base import make_bot
    from fabula.cards.original import original_deck
    from fabula.rules import Game, Phase

    cards = {card.id: card for card in original_deck().cards}
    timings: dict[str, list[float]] = {}
    tables = (("odyssey", 6, 3, "en"), ("odyssey", 12, 1, "en"), ("party", 8, 1, "en"), ("odyssey", 6, 2, "zh-Hant"))
    for mode, seats, games, language in tables:
        for number in range(games):
            levels = [("easy", "normal", "hard")[seat % 3] for seat in range(seats)]
            game = Game.new(mode, seats=seats, seed=number, deck=list(cards))
            bots = [
                make_bot(level, random.Random(rng.random()), cards=cards, memory=memory, language=language)
                for level in levels
            ]
            prefix = "" if language == "en" else f"{language} "
            while game.phase is not Phase.OVER:
                seat = rng.choice(game.awaiting)
                view, legal = game.view(seat).to_json(), game.legal_actions(seat)
                start = time.perf_counter()
                action = bots[seat].choose(view, legal)
                elapsed = (time.perf_counter() - start) * 1000
                game.apply(action)
                for key in (prefix + levels[seat], f"{prefix}{levels[seat]} {type(action).__name__.lower()}"):
                    timings.setdefault(key, []).append(elapsed)
    return {
        key: {
            "moves": len(values),
            "p50_ms": round(statistics.median(values), 2),
            "p95_ms": round(percentile(values, 0.95), 2),
            "max_ms": round(max(values), 2),
        }
        for key, values in sorted(timings.items())
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--guesses", type=int, default=300, help="decisions timed per setting (default 300)")
    parser.add_argument("--eval", metavar="DIR", help="also measure accuracy on DIR/val.jsonl and DIR/cards.json")
    parser.add_argument("--json", action="store_true")
    args, _ = parser.parse_known_args()  # dev.py bench passes every benchmark the same arguments
    cold = tempfile.TemporaryDirectory()
    os.environ["FABULA_VECTOR_CACHE"] = str(Path(cold.name) / "vectors.npz")

    import numpy as np  # noqa: F401 - counted in the baseline, not in the model

    from fabula.bots.semantic.associations import associations
    from fabula.bots.semantic.encoder import shared_encoder
    from fabula.bots.semantic.guesser import Guesser
    from fabula.bots.semantic.memory import ClueMemory, PastRound
    from fabula.cards.original import original_deck

    deck = list(original_deck().cards)
    before = rss_mb()
    start = time.perf_counter()
    encoder = shared_encoder()
    load_s = time.perf_counter() - start
    after_load = rss_mb()
    guesser = Guesser()
    start = time.perf_counter()
    guesser.index.warm(deck)
    warm_s = time.perf_counter() - start
    after_cards = rss_mb()

    rng = random.Random(6)
    memory = ClueMemory(encoder.published)
    phrases = {card.id: associations(card) for card in deck}
    past = []
    for _ in range(3000):
        table = rng.sample(deck, rng.choice((4, 5, 6)))
        told = table[0]
        past.append(PastRound(rng.choice(phrases[told.id]), tuple(c.id for c in table), told.id, {told.id: 1.0}))
    start = time.perf_counter()
    memory.add(past)
    memory_s = time.perf_counter() - start
    remembering = Guesser(memory=memory)
    remembering.guess("warm up", deck[:6])
    after_memory = rss_mb()

    texts = clues(4 * args.guesses, rng)
    chunks = [texts[i * args.guesses : (i + 1) * args.guesses] for i in range(4)]
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "model_load_s": round(load_s, 3),
        "model_rss_mb": round(after_load - before, 1),
        "deck_vectors_s": round(warm_s, 3),
        "model_and_deck_rss_mb": round(after_cards - before, 1),
        "memory_rounds": len(memory),
        "memory_build_s_clues_cached": round(memory_s, 2),
        "with_memory_rss_mb": round(after_memory - before, 1),
        "decision_6_cards": time_guesses(guesser, deck, chunks[0], 6, rng),
        "decision_12_cards": time_guesses(guesser, deck, chunks[1], 12, rng),
        "decision_6_cards_memory": time_guesses(remembering, deck, chunks[2], 6, rng),
        "decision_12_cards_memory": time_guesses(remembering, deck, chunks[3], 12, rng),
    }
    before_multilingual = rss_mb()
    start = time.perf_counter()
    remembering.guess("指引之光", deck[:6])  # loads the multilingual model and reads the deck with it
    figures["multilingual_load_and_deck_s"] = round(time.perf_counter() - start, 2)
    figures["multilingual_rss_mb"] = round(rss_mb() - before_multilingual, 1)
    chinese = clues(args.guesses, rng, chinese=True)
    figures["decision_6_cards_chinese"] = time_guesses(remembering, deck, chinese, 6, rng)
    start = time.perf_counter()
    figures["bot_moves"] = time_bot_moves(memory, rng)
    figures["bot_games_s"] = round(time.perf_counter() - start, 1)
    figures["with_bots_rss_mb"] = round(rss_mb() - before, 1)
    worst = max(
        [v["p95_ms"] for k, v in figures.items() if k.startswith("decision_")]
        + [v["p95_ms"] for v in figures["bot_moves"].values()]
    )
    figures["p95_target_met"] = worst <= P95_TARGET_MS
    figures["rss_target_met"] = figures["with_bots_rss_mb"] <= RSS_TARGET_MB

    if args.eval:
        from fabula.bots.semantic.evaluation import evaluate, read_cards
        from fabula.bots.semantic.memory import read_rounds

        rounds = read_rounds(Path(args.eval) / "val.jsonl")
        cards = read_cards(Path(args.eval) / "cards.json")
        first, second = rounds[: len(rounds) // 2], rounds[len(rounds) // 2 :]
        figures["held_out_text_only"] = evaluate(second, cards).to_json()
        figures["held_out_memory_first_half"] = evaluate(second, cards, memory=first).to_json()

    if args.json:
        print(json.dumps(figures))
        return
    print(f"Semantic guesser, Python {figures['python']}, {figures['cpus']} CPUs")
    print(f"  model load             {load_s:.2f} s, resident memory +{figures['model_rss_mb']:.0f} MB")
    print(f"  original deck vectors  {warm_s:.2f} s, model + deck +{figures['model_and_deck_rss_mb']:.0f} MB")
    print(f"  memory of {len(memory):,} rounds   all in +{figures['with_memory_rss_mb']:.0f} MB")
    print(
        f"  multilingual model     {figures['multilingual_load_and_deck_s']:.2f} s with the deck's vectors, "
        f"+{figures['multilingual_rss_mb']:.0f} MB"
    )
    decisions = ("decision_6_cards", "decision_12_cards", "decision_6_cards_memory", "decision_12_cards_memory")
    for key in (*decisions, "decision_6_cards_chinese"):
        row = figures[key]
        label = key.removeprefix("decision_").replace("_", " ")
        times = f"p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  max {row['max_ms']:6.1f} ms"
        print(f"  decision, {label:<18} {times}")
    print(f"  bot moves in whole games ({figures['bot_games_s']} s; all in +{figures['with_bots_rss_mb']:.0f} MB):")
    for key, row in figures["bot_moves"].items():
        times = f"p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  max {row['max_ms']:6.1f} ms"
        print(f"    {key:<24} {row['moves']:5d} moves  {times}")
    print(
        f"  targets: p95 ≤ {P95_TARGET_MS} ms {'met' if figures['p95_target_met'] else 'MISSED'}, "
        f"resident memory ≤ {RSS_TARGET_MB} MB {'met' if figures['rss_target_met'] else 'MISSED'}"
    )
    for key in ("held_out_text_only", "held_out_memory_first_half"):
        if key in figures:
            row = figures[key]
            print(
                f"  {key.replace('_', ' '):<28} top-1 {row['top1']:.1%} (chance {row['chance_top1']:.1%}), "
                f"log-loss {row['log_loss']:.3f} (chance {row['chance_log_loss']:.3f}), r {row['vote_share_r']:.3f}"
            )


if __name__ == "__main__":
    main()
