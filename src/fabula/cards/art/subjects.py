"""Subjects: the thing a picture is about, each drawn standing at (x, base) with height h.

Every subject has the words a description needs ("a lighthouse"), tags, and what it may do in a
twist (`flies`: at home in the air; `swims`: at home in water; `holds`: can contain a small world).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .buildings import door, house, lighthouse, staircase, tower, windmill
from .creatures import bird, elephant, figure, fish, fox, jellyfish, owl, rabbit, snail, whale
from .nature import feather, mushroom, shell, star, tree
from .objects import (
    bathtub,
    birdcage,
    book,
    bottle,
    candle,
    chair,
    clock,
    crown,
    hourglass,
    key,
    kite,
    lantern,
    piano,
    teacup,
    umbrella,
)
from .paint import Paint
from .vehicles import balloon, bicycle, boat

Draw = Callable[[Paint, float, float, float], None]


@dataclass(frozen=True)
class Subject:
    name: str
    #: "a lighthouse" — with its article
    noun: str
    tags: tuple[str, ...]
    draw: Draw
    #: width / height of the drawing
    aspect: float
    kind: str = "object"
    flies: bool = False
    swims: bool = False
    holds: bool = False
    #: light of its own (a lantern, a lighthouse): it can light a dark scene
    shines: bool = False
    plural: str = ""

    @property
    def bare(self) -> str:
        """The noun without its article: "lighthouse"."""
        return self.noun.split(" ", 1)[1]

    @property
    def many(self) -> str:
        return self.plural or self.bare + "s"


SUBJECTS: dict[str, Subject] = {
    s.name: s
    for s in (
        Subject(
            "lighthouse", "a lighthouse", ("lighthouse", "beacon", "guidance"), lighthouse, 0.3, "building", shines=True
        ),
        Subject("house", "a small house", ("house", "home", "shelter"), house, 1.2, "building", holds=True),
        Subject("tower", "a stone tower", ("tower", "castle", "solitude"), tower, 0.3, "building"),
        Subject("tree", "a round tree", ("tree", "growth", "nature"), tree, 0.7, "plant"),
        Subject("mushroom", "a red mushroom", ("mushroom", "fairy tale", "forest floor"), mushroom, 1.0, "plant"),
        Subject("door", "a door", ("door", "threshold", "passage", "choice"), door, 0.6, shines=True),
        Subject("teacup", "a teacup", ("teacup", "tea", "comfort"), teacup, 1.3, holds=True),
        Subject("key", "an old key", ("key", "secret", "unlocking"), key, 0.35),
        Subject("clock", "a clock", ("clock", "time", "waiting"), clock, 0.9),
        Subject("lantern", "a lantern", ("lantern", "light", "warmth"), lantern, 0.45, shines=True),
        Subject("balloon", "a hot-air balloon", ("balloon", "journey", "flight"), balloon, 0.75, flies=True),
        Subject("staircase", "a staircase", ("stairs", "ascent", "steps"), staircase, 1.1),
        Subject("book", "an open book", ("book", "story", "pages"), book, 1.5, holds=True),
        Subject(
            "figure",
            "a person in a coat",
            ("person", "wanderer", "alone"),
            figure,
            0.35,
            "creature",
            plural="people in coats",
        ),
        Subject("whale", "a whale", ("whale", "ocean", "giant"), whale, 2.6, "creature", flies=False, swims=True),
        Subject(
            "fish", "a goldfish", ("goldfish", "fish", "pet"), fish, 1.6, "creature", swims=True, plural="goldfish"
        ),
        Subject("crane", "a white crane", ("crane", "bird", "grace"), bird, 1.8, "creature", flies=True),
        Subject("boat", "a sailing boat", ("boat", "sail", "voyage"), boat, 0.9, swims=True),
        Subject("star", "a fallen star", ("star", "wish", "light"), star, 1.0, "celestial", flies=True, shines=True),
        Subject("umbrella", "an open umbrella", ("umbrella", "rain", "shelter"), umbrella, 0.95),
        Subject("chair", "a wooden chair", ("chair", "waiting", "absence"), chair, 0.6),
        Subject("birdcage", "an open birdcage", ("birdcage", "freedom", "escape"), birdcage, 0.62),
        Subject("bottle", "a glass bottle", ("bottle", "message", "keepsake"), bottle, 0.4, holds=True),
        Subject("hourglass", "an hourglass", ("hourglass", "time", "patience"), hourglass, 0.56, plural="hourglasses"),
        Subject("candle", "a lit candle", ("candle", "flame", "vigil"), candle, 0.45, shines=True),
        Subject("bicycle", "a bicycle", ("bicycle", "ride", "childhood"), bicycle, 2.02),
        Subject("kite", "a kite", ("kite", "wind", "play"), kite, 0.5, flies=True),
        Subject("owl", "an owl", ("owl", "wisdom", "night"), owl, 0.66, "creature"),
        Subject("fox", "a fox", ("fox", "cunning", "wild"), fox, 0.85, "creature", plural="foxes"),
        Subject("rabbit", "a rabbit", ("rabbit", "timidity", "meadow"), rabbit, 0.6, "creature"),
        Subject("snail", "a snail", ("snail", "slowness", "home"), snail, 1.3, "creature"),
        Subject("elephant", "an elephant", ("elephant", "memory", "giant"), elephant, 1.3, "creature"),
        Subject(
            "jellyfish",
            "a jellyfish",
            ("jellyfish", "drifting", "sea"),
            jellyfish,
            0.55,
            "creature",
            flies=False,
            swims=True,
            plural="jellyfish",
        ),
        Subject("shell", "a seashell", ("seashell", "spiral", "shore"), shell, 1.18),
        Subject("feather", "a feather", ("feather", "lightness", "flight"), feather, 0.4, flies=True),
        Subject("crown", "a crown", ("crown", "royalty", "power"), crown, 1.25),
        Subject("windmill", "a windmill", ("windmill", "wind", "countryside"), windmill, 0.8, "building"),
        Subject("bathtub", "a clawfoot bathtub", ("bathtub", "bath", "calm"), bathtub, 1.75),
        Subject("piano", "an upright piano", ("piano", "music", "melody"), piano, 1.1),
    )
}
