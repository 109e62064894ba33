"""Planning and painting the original deck: which setting, subject, twist and mood each card gets.

The planner walks the cards in order and gives each the least-used subject, twist, setting and
mood that fit together — so the deck spreads over everything it can draw, never repeats a
subject with the same twist or in the same setting, and is the same for the same seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .canvas import Canvas, H, Rng, W
from .paint import Paint
from .palettes import MOODS, palette
from .settings import SETTINGS, Scene, weather
from .subjects import SUBJECTS, Subject
from .twists import TWISTS, Twist
from .words import LANGUAGES, say

#: No twist on more than this many cards: a deck of variations on one idea would bore.
MAX_PER_TWIST = 7


@dataclass(frozen=True)
class Plan:
    number: int
    setting: str
    mood: str
    subject: str
    twist: str
    other: str | None


@dataclass(frozen=True)
class Painting:
    svg: str
    #: the sentence that describes it, in English
    description: str
    tags: tuple[str, ...]
    #: the same sentence in each other language of the client: (language, sentence)
    translations: tuple[tuple[str, str], ...] = ()


def _probe(setting: str) -> Scene:
    """What a setting offers (its ground, whether it is outdoors), from a throwaway painting."""
    return SETTINGS[setting](Canvas(), palette("day", Rng("probe")), Rng("probe"))


def plan_deck(seed: int, count: int) -> list[Plan]:
    planner = _Planner(seed)
    plans = []
    for number in range(1, count + 1):
        plan = planner.next(number)
        if plan is None:
            raise RuntimeError(f"the deck cannot be planned past card {number - 1}")
        plans.append(plan)
    return plans


class _Planner:
    def __init__(self, seed: int) -> None:
        rng = Rng(f"{seed}/plan")
        self.scenes = {name: _probe(name) for name in SETTINGS}
        self.moods = {name: palette(name, Rng("probe")) for name in MOODS}
        # A fixed random order breaks ties between equally used choices.
        self.order = {name: rng.random() for name in [*SUBJECTS, *TWISTS, *SETTINGS, *MOODS]}
        self.used: Counter[str] = Counter()
        self.pairs: set[tuple[str, str]] = set()

    def least_used(self, names: Iterable[str]) -> list[str]:
        return sorted(names, key=lambda name: (self.used[name], self.order[name]))

    def next(self, number: int) -> Plan | None:
        plan = self._find(number)
        if plan is not None:
            for name in (plan.subject, plan.twist, plan.setting, plan.mood, plan.other):
                if name:
                    self.used[name] += 1
            # The same twist in the same mood makes the same layout in the same light: look-alikes.
            self.pairs.update({(plan.subject, plan.twist), (plan.subject, plan.setting), (plan.twist, plan.mood)})
        return plan

    def _find(self, number: int) -> Plan | None:
        for subject_name in self.least_used(SUBJECTS):
            subject = SUBJECTS[subject_name]
            for twist_name in self.least_used(TWISTS):
                twist = TWISTS[twist_name]
                if (subject_name, twist_name) in self.pairs or self.used[twist_name] >= MAX_PER_TWIST:
                    continue
                for setting in self.least_used(SETTINGS):
                    scene = self.scenes[setting]
                    if (subject_name, setting) in self.pairs or (twist.water and scene.ground != "water"):
                        continue
                    for mood in self.least_used(MOODS):
                        if mood == "candle" and setting != "room":
                            continue  # lamplight is an indoor mood
                        if (twist_name, mood) in self.pairs or not twist.fits(subject, scene, self.moods[mood]):
                            continue
                        other = self._other(twist, subject)
                        if twist.other is not None and other is None:
                            continue
                        return Plan(number, setting, mood, subject_name, twist_name, other)
        return None

    def _other(self, twist: Twist, subject: Subject) -> str | None:
        if twist.other is None:
            return None
        for name in self.least_used(SUBJECTS):
            if twist.other(subject, SUBJECTS[name]):
                return name
        return None


def paint(plan: Plan, seed: int) -> Painting:
    rng = Rng(f"{seed}/card/{plan.number}")
    pal = palette(plan.mood, rng)
    twist, subject = TWISTS[plan.twist], SUBJECTS[plan.subject]
    other = SUBJECTS[plan.other] if plan.other else None
    c = Canvas()
    scene = SETTINGS[plan.setting](c, pal, rng, sun=not twist.no_sun)
    weather(c, pal, rng, scene.horizon)
    told = twist.paint(Paint(c, pal, rng, scene.light), scene, subject, other, pal)
    if scene.front is not None:
        scene.front(c, rng)
    # The deck's common finish: a soft vignette and a fine paper grain.
    c.rect(0, 0, W, H, fill=c.radial([(0.55, "#000000", 0), (1, "#000000", 0.45)], r=0.75))
    c.grain(seed * 100 + plan.number)
    tags = [*subject.tags, *twist.tags, *scene.tags, pal.mood]
    if other is not None:
        tags.append(other.tags[0])
    unique = tuple(dict.fromkeys(tags))[:12]
    translations = tuple((language, say(told, language)) for language in LANGUAGES if language != "en")
    return Painting(c.svg(), say(told, "en"), unique, translations)
