"""Masked PPO on Fabula's vector observation: one learner seat against three built-in bots.

    python3 dev.py train                                  # set up (PyTorch's CPU build too), then train
    .venv/bin/python examples/train_ppo.py --steps 40000 --out runs/ppo.zip
    .venv/bin/python examples/baselines.py --policy runs/ppo.zip --players random normal

The table is the baselines' (`examples/baselines.py`): a four-seat ``odyssey`` game of two
storyteller turns each (8 rounds). The learner sits at a seat drawn every game; the others are played by
``--opponent`` bots inside the env (`fabula.research.pettingzoo.env`'s ``opponents``), so the
learner sees only its own turns: its clue (a picture of its hand and a word of the vocabulary),
its cards, its votes. Its reward is its points of each round, given at its next move.

sb3-contrib's `MaskablePPO` reads the legal moves from the env's ``action_masks()``. After
training, the policy plays ``--eval-games`` games against the same bots, and so does a random
player on the same deals: both mean scores are printed, and the policy is saved for the baselines
(`policy_player`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from fabula.bots.arena import SeatContext
from fabula.research.actions import ActionSpace
from fabula.research.observations import card_list
from fabula.research.openspiel import DEFAULT_CLUES
from fabula.research.pettingzoo import FabulaAECEnv, env
from fabula.research.vectors import CardEmbeddings, VectorLayout
from fabula.rules import Action, Game

MODE, SEATS, OPTIONS = "odyssey", 4, {"storyteller_cycles": 2}
#: The learner's words: a clue is one of them with a picture of its hand.
CLUES = DEFAULT_CLUES.split("|")


class LearnerSeat(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One seat of a Fabula table as a single-agent Gymnasium env, the other seats played by
    ``opponent`` bots inside the Fabula env; the learner's seat is drawn anew every game (a policy
    that only ever sat first would meet seats it never saw in the arena). ``action_masks()`` is
    what MaskablePPO asks for."""

    def __init__(self, opponent: str = "normal", seed: int | None = None) -> None:
        # a Fabula env per learner seat (its opponents are fixed when it is made)
        self.tables: list[FabulaAECEnv] = [
            env(
                MODE,
                SEATS,
                options=OPTIONS,
                clues=CLUES,
                observations="vector",
                opponents={f"seat_{other}": opponent for other in range(SEATS) if other != learner},
                seed=None if seed is None else seed + learner,
            )
            for learner in range(SEATS)
        ]
        self.learner = 0
        space = self.tables[0].observation_space("seat_0")
        assert isinstance(space, gymnasium.spaces.Dict)
        self.observation_space = space["observation"]
        actions = self.tables[0].action_space("seat_0")
        assert isinstance(actions, gymnasium.spaces.Discrete)
        self.action_space = actions
        self._mask: npt.NDArray[np.bool_] = np.zeros(int(actions.n), dtype=np.bool_)

    @property
    def table(self) -> FabulaAECEnv:
        return self.tables[self.learner]

    def reset(
        self,
        *,
        seed: int | None = None,
        options: dict[str, Any] | None = None,  # noqa: ARG002 - Gymnasium's signature
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        self.learner = int(self.np_random.integers(SEATS))
        self.table.reset(seed=seed)
        observation, _, _, _, info = self.table.last()
        return self._take(observation), info

    def step(self, action: np.int64) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        self.table.step(int(action))
        observation, reward, terminated, truncated, info = self.table.last()
        return self._take(observation), float(reward), terminated, truncated, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        return self._mask

    def score(self) -> int:
        """The learner's score in the game being played."""
        return self.table.game.scores[self.learner]

    def _take(self, observation: Any) -> npt.NDArray[np.float32]:
        self._mask = observation["action_mask"].astype(np.bool_)
        vector: npt.NDArray[np.float32] = observation["observation"]
        return vector


#: Cosines of related texts differ by a tenth or so: scaled, they differ as the other inputs do.
SHARPNESS = 10.0


class Matches(BaseFeaturesExtractor):  # type: ignore[misc]  # (SB3's classes are not followed)
    """What the policy network reads of the observation: its numbers without the embeddings, and
    how near the pictures and the words are — the clue to each card of the hand and the table, each
    card of the hand to each word of the vocabulary (cosines of the unit embeddings, from the
    layout's fields). An MLP would have to learn dot products of 384 numbers to find that; given
    them, a few thousand moves teach it to vote for the card nearest the clue."""

    def __init__(self, observation_space: gymnasium.spaces.Box, fields: dict[str, tuple[int, int]], words: Any) -> None:
        width = len(words[0])
        clue, hand, table = fields["clue"], fields["hand"], fields["table"]
        hands, slots = (hand[1] - hand[0]) // (2 + width), (table[1] - table[0]) // (5 + width)
        embedded = [np.arange(clue[0] + 1, clue[1])]
        embedded += [hand[0] + h * (2 + width) + 2 + np.arange(width) for h in range(hands)]
        embedded += [table[0] + t * (5 + width) + 5 + np.arange(width) for t in range(slots)]
        rest = np.setdiff1d(np.arange(observation_space.shape[0]), np.concatenate(embedded))
        super().__init__(observation_space, len(rest) + hands + slots + hands * len(words))
        self.shape = (hands, slots, width)
        for name, index in (
            ("rest", rest),
            ("clue", embedded[0]),
            ("hand", np.concatenate(embedded[1 : 1 + hands])),
            ("table", np.concatenate(embedded[1 + hands :])),
        ):
            self.register_buffer(name, torch.as_tensor(index, dtype=torch.long))
        self.register_buffer("words", torch.as_tensor(np.asarray(words), dtype=torch.float32))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        hands, slots, width = self.shape
        batch = observations.shape[0]
        clue = observations[:, self.clue]
        hand = observations[:, self.hand].reshape(batch, hands, width)
        table = observations[:, self.table].reshape(batch, slots, width)
        return torch.cat(
            [
                observations[:, self.rest],
                _centred(torch.einsum("bd,bhd->bh", clue, hand)),
                _centred(torch.einsum("bd,btd->bt", clue, table)),
                _centred(torch.einsum("bhd,wd->bhw", hand, self.words).reshape(batch, -1)),
            ],
            dim=1,
        )


def _centred(cosines: torch.Tensor) -> torch.Tensor:
    """Cosines as they differ from the others of their kind (zeros stay zeros: empty places)."""
    present = cosines != 0
    count = present.sum(dim=1, keepdim=True).clamp(min=1)
    mean = cosines.sum(dim=1, keepdim=True) / count
    return SHARPNESS * torch.where(present, cosines - mean, torch.zeros_like(cosines))


def matches_kwargs() -> dict[str, Any]:
    """`Matches`' arguments for the training table: the layout's fields and the vocabulary's embeddings."""
    _, layout, embeddings = _table(MODE, SEATS)
    fields = {name: (part.start, part.stop) for name, part in layout.fields.items()}
    return {"fields": fields, "words": [embeddings.clue(word).tolist() for word in CLUES]}


def train(steps: int, opponent: str, seed: int) -> MaskablePPO:
    """A MaskablePPO policy trained for ``steps`` of the learner's moves."""
    model = new_model(opponent, seed)
    model.learn(total_timesteps=steps, progress_bar=False)
    return model


def new_model(opponent: str, seed: int) -> MaskablePPO:
    """An untrained MaskablePPO learner at the table. Its logger writes nowhere: SB3's own would
    leave an empty ``SB3-<date>`` folder in the temp directory at every `learn`."""
    model = MaskablePPO(
        "MlpPolicy",
        LearnerSeat(opponent, seed=seed),
        n_steps=1024,
        batch_size=256,
        learning_rate=3e-4,
        ent_coef=0.01,
        gamma=0.99,
        seed=seed,
        verbose=0,
        policy_kwargs={
            "net_arch": [64, 64],
            "features_extractor_class": Matches,
            "features_extractor_kwargs": matches_kwargs(),
        },
    )
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


#: Picks a move id from a vector observation and its mask.
Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], int]


def evaluate(policy: Policy, games: int, opponent: str, seed: int) -> list[int]:
    """The learner seat's final score in each of ``games`` games (the same deals for every policy)."""
    table = LearnerSeat(opponent)
    scores = []
    for game in range(games):
        observation, _ = table.reset(seed=seed + game)
        done = False
        while not done:
            observation, _, terminated, truncated, _ = table.step(np.int64(policy(observation, table.action_masks())))
            done = terminated or truncated
        scores.append(table.score())
    return scores


def model_policy(model: MaskablePPO) -> Policy:
    def choose(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> int:
        action, _ = model.predict(observation, action_masks=mask, deterministic=True)
        return int(action)

    return choose


def random_policy(seed: int) -> Policy:
    rng = np.random.default_rng(seed)
    return lambda _, mask: int(rng.choice(np.flatnonzero(mask)))


class PolicyPlayer:
    """A saved policy as an arena player (`fabula.bots.playing.SearchingBot`): the arena hands it a
    game its seat cannot tell from the real one, whose view of that seat is the seat's own; the
    policy reads that view as the vector observation, as in training."""

    def __init__(self, model: MaskablePPO, rng: random.Random) -> None:
        self.model, self.rng = model, rng

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:  # noqa: ARG002 - the Bot protocol's
        raise TypeError("a policy player moves by `search` (it reads the seat's view as a vector)")

    def search(self, sample: Game, seat: int, legal: Sequence[Action]) -> Action:  # noqa: ARG002 - read off the sample
        space, layout, embeddings = _table(sample.mode, sample.seats)
        _, mask = space.legal_with_mask(sample, seat, sample.awaiting)
        observation = layout.encode(sample.view(seat), embeddings)
        action, _ = self.model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        return space.decode(sample, seat, int(action))


@cache
def _table(mode: str, seats: int) -> tuple[ActionSpace, VectorLayout, CardEmbeddings]:
    """The action space, layout and embeddings of the training table, once per process."""
    space = ActionSpace.create(mode, seats, OPTIONS, CLUES)
    return space, VectorLayout.of(space), CardEmbeddings(card_list(None))


def policy_player(path: Path) -> Callable[[SeatContext], PolicyPlayer]:
    """An arena agent factory (`fabula.bots.arena.AgentFactory`) playing the policy saved at ``path``."""
    model = MaskablePPO.load(path, device="cpu")
    return lambda context: PolicyPlayer(model, context.rng)


def interval(scores: Sequence[int]) -> str:
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else float("nan")
    return f"{mean:.2f} ± {half:.2f}"


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40_000, help="the learner's moves to train on")
    parser.add_argument("--opponent", default="normal", help="the built-in level of the other three seats")
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/ppo.zip"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # (a small network: threads cost more than they give on 2 cores)
    start = time.perf_counter()
    model = train(args.steps, args.opponent, args.seed)
    trained = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    # evaluation deals are far from the training's seeds
    policy = evaluate(model_policy(model), args.eval_games, args.opponent, seed=10**6)
    randomly = evaluate(random_policy(args.seed), args.eval_games, args.opponent, seed=10**6)
    print(
        f"trained {args.steps} steps in {trained:.0f} s, saved {args.out}\n"
        f"mean score over {args.eval_games} games against three {args.opponent} bots (95% interval):"
        f" policy {interval(policy)}, random {interval(randomly)}",
        file=sys.stderr,
    )
    return {"seconds": trained, "policy": policy, "random": randomly}


if __name__ == "__main__":
    main()
