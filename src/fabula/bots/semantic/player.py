"""Bots that read the clue: storyteller, decoy, voter and the party and team moves, three personas.

Every decision starts from the guesser's two scores of a clue against a card (`Guesser`'s weights):
*find* — how much it looks like the storyteller's card — and *draw* — how much of the table's
votes it would attract. What differs between the personas is how much noise they add, which clues
they know and how far they model the other players:

- **storyteller**: weighs every clue it knows against every card in its hand. For each pair it
  imagines the table many times (each other player dealt a random hand from the rest of the deck
  plays the card that draws most), estimates each voter's chance of finding its card, and takes
  the pair with the best expected score: 3 × P(some but not all find). Never the card's title or a
  phrase its description contains word for word.
- **decoy**: plays the hand card that draws most for the clue (two in a three-player game).
- **voter**: ranks the table by *find* (own cards excluded by the rules); with two tokens it puts
  the second one down only when that is worth more than the +1 for a single token.
- **party**: the clue is given blind, so a broad one; everyone plays the card that draws most and
  votes for the image it expects the crowd on; the storyteller's red token goes there too, and its
  own green token on the runner-up. **teams**: a member with a strong card plays it, otherwise
  proposes it and lets the teammate decide; once both have proposed, the one asked plays.

A voter's noise is a Gumbel perturbation of its scores with the persona's scale: each voter reads
the table a little differently, as people do (without it, identical bots would all vote alike).

>>> import random
>>> from fabula.cards.original import original_deck
>>> from fabula.rules import Game
>>> deck = original_deck()
>>> game = Game.new("odyssey", seats=4, seed=2, deck=[card.id for card in deck.cards])
>>> bot = SemanticBot(PERSONAS["hard"], {card.id: card for card in deck.cards}, random.Random(1))
>>> teller = game.awaiting[0]
>>> move = bot.choose(game.view(teller).to_json(), game.legal_actions(teller))
>>> type(move).__name__, move.card in game.view(teller).hand, 0 < len(move.clue) <= 200
('Tell', True, True)
"""

from __future__ import annotations

import itertools
import random
import re
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.cards.model import Card
from fabula.rules import Action, BlindClue, PlaceRed, Play, Propose, Tell, Vote

from .associations import associations
from .cards import DeckMatrix, card_texts
from .guesser import Guesser, softmax
from .memory import ClueMemory, normalise_clue
from .vocabulary import clue_pool, mystery_clue

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Persona:
    """How one level plays: the same machinery, more or less noise and foresight."""

    name: str
    #: scale of the Gumbel noise on a voter's or decoy's scores (0: always the best)
    noise: float
    #: only the simple words (and the card's own tags) as clues
    simple_clues: bool
    #: imagine the table and aim for "some but not all"; otherwise pick the clue closest to the card
    models_others: bool
    #: tables imagined per clue
    samples: int
    #: how sharply the others are assumed to vote (the model's temperature on *find*)
    others_sharpness: float
    #: softmax temperature over expected scores when choosing a clue (0: the best)
    clue_temperature: float
    #: may use the memory of finished games, when the server gives one
    uses_memory: bool


PERSONAS: dict[str, Persona] = {
    "easy": Persona("easy", noise=1.2, simple_clues=True, models_others=False, samples=0,
                    others_sharpness=1.0, clue_temperature=0.0, uses_memory=False),
    "normal": Persona("normal", noise=0.6, simple_clues=False, models_others=True, samples=8,
                      others_sharpness=1.5, clue_temperature=0.15, uses_memory=False),
    "hard": Persona("hard", noise=0.35, simple_clues=False, models_others=True, samples=24,
                    others_sharpness=3.0, clue_temperature=0.0, uses_memory=True),
}  # fmt: skip


def _title_forms(title: str) -> set[str]:
    """A title as a clue would repeat it: whole, and without a leading article."""
    whole = normalise_clue(title)
    forms = {whole}
    for article in ("the ", "a ", "an "):
        if whole.startswith(article):
            forms.add(whole[len(article) :])
    return forms - {""}


_FILLER = frozenset(("a", "an", "the", "of", "in", "on", "at", "to", "into", "and", "or", "is", "are", "its"))


def _unspaced(character: str) -> bool:
    """A letter of a script written without spaces between words (Chinese, Japanese)."""
    return unicodedata.east_asian_width(character) in "WF" and unicodedata.category(character) == "Lo"


def _words(text: str) -> set[str]:
    """The words of a text; in a script without spaces, each pair of neighbouring letters stands for one."""
    words: set[str] = set()
    for token in normalise_clue(text).split():
        word = token.strip(",.;:!?'\"()")
        if not any(_unspaced(character) for character in word):
            words.add(word)
            continue
        for run in re.findall(r"[^\W_]+", word):  # runs of letters and digits, punctuation between
            if len(run) == 1:
                words.add(run)
            words.update(a + b for a, b in itertools.pairwise(run))
    return words - _FILLER - {""}


def allowed_clue(clue: str, card: Card) -> bool:
    """Whether a bot may give ``clue`` for ``card``: not its title, and not a phrase lifted from its
    description (several words all found in it). One word of the description is allowed — "key"
    for a key is a poor clue, not a copy.

    >>> card = Card("x", "The Escaping Key", "An old key is lifted into the sky by balloons.")
    >>> [allowed_clue(clue, card) for clue in ("Escaping key", "the lifted key", "Key", "Freedom", "Old secrets")]
    [False, False, True, True, True]

    In Chinese or Japanese, written without spaces, two neighbouring characters count as a word:

    >>> card = Card("y", "逃跑的鑰匙", "一把舊鑰匙被氣球帶上天空。")
    >>> [allowed_clue(clue, card) for clue in ("逃跑的鑰匙！", "舊鑰匙", "帶上天空", "鑰匙", "自由", "自由的鑰匙")]
    [False, False, False, True, True, True]
    """
    said = normalise_clue(clue)
    if not said or said in _title_forms(card.title):
        return False
    words = _words(said)
    return len(words) < 2 or not words <= _words(card.description)


class _DeckPlan:
    """What a storyteller needs per deck, computed once and shared: the deck's matrix and every
    candidate clue's find and draw scores against every card."""

    def __init__(self, guesser: Guesser, cards: Sequence[Card], simple: bool, language: str = "en") -> None:
        self.cards = tuple(cards)
        phrases: dict[str, None] = dict.fromkeys(clue_pool(simple_only=simple, language=language))
        if language == "en":
            # The deck's own evocations and tags are English: only an English storyteller uses them.
            if not simple:
                for card in self.cards:
                    phrases.update(dict.fromkeys(associations(card)))
            for card in self.cards:
                phrases.update(dict.fromkeys(tag.strip().capitalize() for tag in card.tags if tag.strip()))
        self.clues = tuple(phrases)
        # Clues in Chinese, or a deck captioned in Chinese, are weighed by the model that reads
        # them, as a voter's guesser would.
        guesser = guesser.reader(self.clues[0], self.cards)
        self.matrix = DeckMatrix(guesser.index, self.cards)
        vectors = guesser.encoder.encode(self.clues)
        features = self.matrix.features(vectors)  # clues × cards × features
        weights = guesser.weights
        self.find: Floats = features @ np.asarray(weights.find_text)
        self.draw: Floats = features @ np.asarray(weights.vote_text)
        self._allowed: dict[Card, npt.NDArray[np.bool_]] = {}
        guesser.encoder.save_cache([*self.clues, *(text for card in self.cards for text in card_texts(card))])

    def allowed_for(self, card: Card) -> npt.NDArray[np.bool_]:
        """Which of the clues a bot may give for ``card`` (`allowed_clue`), worked out once."""
        found = self._allowed.get(card)
        if found is None:
            found = self._allowed[card] = np.array([allowed_clue(clue, card) for clue in self.clues], dtype=bool)
        return found


_plans: dict[tuple[tuple[str, ...], bool, str], _DeckPlan] = {}
_plans_lock = threading.Lock()


def deck_plan(guesser: Guesser, cards: Sequence[Card], *, simple: bool, language: str = "en") -> _DeckPlan:
    """The shared plan of a deck for clues in ``language`` (built on first use: seconds for a new
    deck, then cached)."""
    key = (tuple(card.id for card in cards), simple, language)
    plan = _plans.get(key)
    if plan is None:
        with _plans_lock:
            plan = _plans.get(key)
            if plan is None:
                plan = _plans[key] = _DeckPlan(guesser, cards, simple, language)
    return plan


def _blank(card_id: str) -> Card:
    """A card the bot was not told about: it plays it blind."""
    return Card(card_id, "", "")


class SemanticBot:
    """A bot of one `Persona` for a table whose cards are ``cards`` (card id → card)."""

    def __init__(
        self,
        persona: Persona,
        cards: Mapping[str, Card],
        rng: random.Random | None = None,
        memory: ClueMemory | None = None,
        guesser: Guesser | None = None,
        *,
        language: str = "en",
    ) -> None:
        self.persona = persona
        #: the language of its clues (`vocabulary.LANGUAGES`); it reads clues in any
        self.language = language
        self.cards = cards
        self.rng = rng or random.Random()
        self._np = np.random.default_rng(self.rng.getrandbits(64))
        use_memory = memory if persona.uses_memory else None
        self.guesser = guesser or Guesser(memory=use_memory)

    # ------------------------------------------------------------------ the one entry point

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        first = legal[0]
        if isinstance(first, Tell):
            return self._tell(view, [a for a in legal if isinstance(a, Tell)])
        if isinstance(first, BlindClue):
            return first.with_clue(self._blind_clue())
        if isinstance(first, (Play, Propose)):
            return self._play(view, legal)
        return self._vote(view, legal)

    # ------------------------------------------------------------------ helpers

    def card(self, card_id: str) -> Card:
        return self.cards.get(card_id) or _blank(card_id)

    def _gumbel(self, count: int) -> Floats:
        if self.persona.noise <= 0:
            return np.zeros(count)
        noise: Floats = self._np.gumbel(size=count) * self.persona.noise
        return noise

    def _scores(self, clue: str, card_ids: Sequence[str]) -> tuple[Floats, Floats]:
        """(find, draw) scores of the cards for the clue: the guesser's logits, before the softmax.

        A clue said aloud without typed words (``""``) is a mystery clue to a bot, which cannot
        hear: every card scores the same, and the persona's noise alone picks among them."""
        if not clue.strip():
            return np.zeros(len(card_ids)), np.zeros(len(card_ids))
        return self.guesser.scores(clue, [self.card(card_id) for card_id in card_ids])

    def _deck(self, view: dict[str, Any]) -> list[Card]:
        known = list(self.cards.values())
        hand = [self.card(card_id) for card_id in view.get("hand") or ()]
        return known + [card for card in hand if card.id not in self.cards]

    # ------------------------------------------------------------------ storyteller

    def _tell(self, view: dict[str, Any], legal: list[Tell]) -> Tell:
        persona = self.persona
        plan = deck_plan(self.guesser, self._deck(view), simple=persona.simple_clues, language=self.language)
        hand = [action.card for action in legal]
        columns = np.array([plan.matrix.position[card_id] for card_id in hand])
        allowed = np.stack([plan.allowed_for(self.card(card_id)) for card_id in hand], axis=1)
        if persona.models_others:
            expected = self._expected_scores(view, plan, columns)
        else:
            # The beginner's way: the word that fits the card best, whoever else might see it too.
            expected = plan.find[:, columns] - plan.find.mean(axis=1, keepdims=True)
        expected = np.where(allowed, expected, -np.inf)
        if not np.isfinite(expected).any():  # no clue it knows is allowed (a deck titled with its words)
            action = legal[self.rng.randrange(len(legal))]
            card = self.card(action.card)
            clues = (mystery_clue(k, self.language) for k in range(1, 1000))
            return action.with_clue(next(clue for clue in clues if allowed_clue(clue, card)))
        if persona.clue_temperature > 0:
            flat = expected.ravel()
            finite = np.isfinite(flat)
            weights = np.zeros_like(flat)
            weights[finite] = softmax(flat[finite] / persona.clue_temperature)
            pick = int(self._np.choice(len(flat), p=weights / weights.sum()))
        else:
            best = np.flatnonzero(expected.ravel() == expected.max())
            pick = int(best[self.rng.randrange(len(best))])
        clue_row, hand_column = divmod(pick, len(hand))
        clue = plan.clues[clue_row]
        return legal[hand_column].with_clue(clue[:1].upper() + clue[1:])

    def _expected_scores(self, view: dict[str, Any], plan: _DeckPlan, hand: npt.NDArray[np.intp]) -> Floats:
        """Clues × hand cards: 3 × P(some but not all voters find the card), over imagined tables."""
        seats, mode = int(view["seats"]), str(view["mode"])
        if mode == "teams":
            teams = seats // 2
            decoy_players, per_player, voters = teams, 1, teams - 1
        else:
            per_player = 2 if seats == 3 else 1
            decoy_players, voters = seats - 1, seats - 1
        hand_size = max(len(hand), 1)
        others = np.setdiff1d(np.arange(len(plan.cards)), hand)
        samples = self.persona.samples
        if len(others) < decoy_players:  # told of no other cards: nothing to imagine a table with
            return np.zeros((len(plan.clues), len(hand)))
        if len(others) < decoy_players * hand_size:  # a tiny deck: the others hold what there is
            hand_size = max(1, len(others) // max(decoy_players, 1))
        dealt = np.stack([self._np.permutation(others)[: decoy_players * hand_size] for _ in range(samples)]).reshape(
            samples, decoy_players, hand_size
        )
        draw = plan.draw[:, dealt]  # clues × samples × players × hand
        order = np.argsort(-draw, axis=3)[..., :per_player]
        decoys = np.take_along_axis(np.broadcast_to(dealt, draw.shape), order, axis=3)
        sharp = self.persona.others_sharpness
        # A voter's chance of finding the card: its share of the table under the find scores.
        decoy_weight = self._decoy_weights(plan, decoys, sharp)  # clues × samples
        mine = np.exp(sharp * plan.find[:, hand])  # clues × hand
        found = mine[:, None, :] / (mine[:, None, :] + decoy_weight[:, :, None])  # clues × samples × hand
        some_not_all = 1.0 - found**voters - (1.0 - found) ** voters
        result: Floats = 3.0 * some_not_all.mean(axis=1)
        return result

    @staticmethod
    def _decoy_weights(plan: _DeckPlan, decoys: npt.NDArray[np.intp], sharp: float) -> Floats:
        """Clues × samples: the summed exp(find) of each imagined table's decoys."""
        clues = np.arange(len(plan.clues))[:, None, None, None]
        weights: Floats = np.exp(sharp * plan.find[clues, decoys]).sum(axis=(2, 3))
        return weights

    def _blind_clue(self) -> str:
        """Party: a clue before seeing the hand — a broad one, so that many images can fit."""
        pool = clue_pool(simple_only=self.persona.simple_clues, language=self.language)
        return pool[self.rng.randrange(len(pool))]

    # ------------------------------------------------------------------ decoy, party play, teams

    def _play(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        clue = str(view["clue"] or "")
        hand = list(view["hand"] or ())
        _, draw = self._scores(clue, hand)
        noisy = draw + self._gumbel(len(hand))
        ranked = [hand[i] for i in np.argsort(-noisy)]
        plays = [a for a in legal if isinstance(a, Play)]
        proposals = [a for a in legal if isinstance(a, Propose)]
        if proposals:
            return self._team_play(view, plays, proposals, ranked, draw)
        count = len(plays[0].cards)
        wanted = set(ranked[:count])
        for action in plays:
            if set(action.cards) == wanted:
                return action
        return plays[0]  # pragma: no cover - every pair of hand cards is legal

    def _team_play(
        self, view: dict[str, Any], plays: list[Play], proposals: list[Propose], ranked: list[str], draw: Floats
    ) -> Action:
        best = ranked[0]
        play = next(a for a in plays if a.cards == (best,))
        strong = float(softmax(draw).max()) >= 0.35  # one card clearly draws: no need to ask
        if strong or view.get("my_proposal") is not None:
            return play
        return next(a for a in proposals if a.card == best)

    # ------------------------------------------------------------------ voting

    def _vote(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        clue = str(view["clue"] or "")
        table = [slot["card"] for slot in view["table"]]
        find, draw = self._scores(clue, table)
        party = bool(view.get("mode") == "party")
        reds = [a for a in legal if isinstance(a, PlaceRed)]
        votes = [a for a in legal if isinstance(a, Vote)]
        # Party: the crowd's favourite is what counts; elsewhere the storyteller's card.
        scores = (draw if party else find) + self._gumbel(len(table))
        by_slot = {slot: float(scores[slot - 1]) for slot in range(1, len(table) + 1)}
        if reds and not view.get("red_token_placed"):
            return max(reds, key=lambda a: by_slot[a.slot])
        if not votes:
            return legal[0]
        singles = [a for a in votes if len(a.slots) == 1]
        best = max(singles or votes, key=lambda a: by_slot[a.slots[0]])
        if party and view.get("my_red") is not None:
            # The storyteller's green token avoids the red one's slot: a vote there scores nothing.
            others = [a for a in singles if a.slots[0] != view["my_red"]]
            if others:
                best = max(others, key=lambda a: by_slot[a.slots[0]])
        pairs = [a for a in votes if len(a.slots) == 2 and a.slots[0] != a.slots[1]]
        if not pairs:
            return best
        return self._one_or_two(view, best, pairs, find)

    def _one_or_two(self, view: dict[str, Any], best: Vote, pairs: list[Vote], find: Floats) -> Vote:
        """Two tokens: the second only when the chance it adds is worth more than the +1 bonus."""
        options = view.get("options") or {}
        chance = softmax(find)
        first = best.slots[0]
        second_choices = [a for a in pairs if first in a.slots]
        if not second_choices or options.get("found_if") == "all_tokens":
            return best
        pair = max(second_choices, key=lambda a: float(chance[sum(a.slots) - first - 1]))
        second = sum(pair.slots) - first
        bonus = 1.0 if options.get("single_token_bonus", True) else 0.0
        one = float(chance[first - 1]) * (3.0 + bonus)
        two = float(chance[first - 1] + chance[second - 1]) * 3.0
        return pair if two > one else best
