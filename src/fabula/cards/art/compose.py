"""Planning and painting the original deck: which setting, subject, twist and mood each card gets.

The planner walks the cards in order and gives each the least-used subject, twist, setting and
mood that fit together — so the deck spreads over everything it can draw, never repeats a
subject with the same twist or in the same setting, and is the same for the same seed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .canvas import H, W, Canvas, Rng
from .paint import Paint
from .palettes import MOODS, Palette, palette
from .settings import SETTINGS, Scene, weather
from .subjects import SUBJECTS, Subject
from .twists import TWISTS, Twist


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
    description: str
    tags: tuple[str, ...]


def _probe(setting: str) -> Scene:
    """What a setting offers (its ground, whether it is outdoors), from a throwaway painting."""
    return SETTINGS[setting](Canvas(), palette("day", Rng("probe")), Rng("probe"))


def plan_deck(seed: int, count: int) -> list[Plan]:
    rng = Rng(f"{seed}/plan")
    scenes = {name: _probe(name) for name in SETTINGS}
    moods = {name: palette(name, Rng("probe")) for name in MOODS}
    # A fixed random order breaks ties between equally used choices.
    order = {name: rng.random() for name in [*SUBJECTS, *TWISTS, *SETTINGS, *MOODS]}
    used: Counter[str] = Counter()
    pairs: set[tuple[str, str]] = set()
    plans: list[Plan] = []

    def least_used(names: list[str]) -> list[str]:
        return sorted(names, key=lambda name: (used[name], order[name]))

    subjects = [name for name in SUBJECTS if name != "figure" or True]
    for number in range(1, count + 1):
        plan = _next(number, least_used, subjects, scenes, moods, pairs, used)
        if plan is None:
            raise RuntimeError(f"the deck cannot be planned past card {number - 1}")
        plans.append(plan)
        for name in (plan.subject, plan.twist, plan.setting, plan.mood):
            used[name] += 1
        if plan.other:
            used[plan.other] += 1
        pairs.update({(plan.subject, plan.twist), (plan.subject, plan.setting), (plan.twist, plan.setting + plan.mood)})
    return plans


def _next(
    number: int,
    least_used: object,
    subjects: list[str],
    scenes: dict[str, Scene],
    moods: dict[str, Palette],
    pairs: set[tuple[str, str]],
    used: Counter[str],
) -> Plan | None:
    order = least_used  # type: ignore[assignment]
    for subject_name in order(subjects):  # type: ignore[operator]
        subject = SUBJECTS[subject_name]
        for twist_name in order(list(TWISTS)):  # type: ignore[operator]
            twist = TWISTS[twist_name]
            if (subject_name, twist_name) in pairs:
                continue
            for setting in order(list(SETTINGS)):  # type: ignore[operator]
                scene = scenes[setting]
                if (subject_name, setting) in pairs or (twist.water and scene.ground != "water"):
                    continue
                for mood in order(list(MOODS)):  # type: ignore[operator]
                    if (mood == "candle") != (setting == "room") and mood == "candle":
                        continue  # lamplight is an indoor mood
                    if used[twist_name] >= MAX_PER_TWIST:
                        break
                    if (twist_name, setting + mood) in pairs or not twist.fits(subject, scene, moods[mood]):
                        continue
                    other = _other(twist, subject, order)
                    if twist.other is not None and other is None:
                        continue
                    return Plan(number, setting, mood, subject_name, twist_name, other)
    return None


def _other(twist: Twist, subject: Subject, order: object) -> str | None:
    if twist.other is None:
        return None
    for name in order(list(SUBJECTS)):  # type: ignore[operator]
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
    sentence = twist.paint(Paint(c, pal, rng, scene.light), scene, subject, other, pal)
    if scene.front is not None:
        scene.front(c, rng)
    # The deck's common finish: a soft vignette and a fine paper grain.
    c.rect(0, 0, W, H, fill=c.radial([(0.55, "#000000", 0), (1, "#000000", 0.45)], r=0.75))
    c.grain(seed * 100 + plan.number)
    tags = [*subject.tags, *twist.tags, *scene.tags, pal.mood]
    if other is not None:
        tags.append(other.tags[0])
    unique = tuple(dict.fromkeys(tags))[:12]
    return Painting(c.svg(), sentence, unique)
