"""Moods: the palette and light of a picture, named so a description can say "at dusk".

A mood is a set of HSL colours; each card shifts its mood's hue a little, so two cards with the
same mood are related but not identical.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

from .canvas import Rng


def hsl(h: float, s: float, lum: float) -> str:
    """``#rrggbb`` from hue in degrees, saturation and lightness in 0..1."""
    r, g, b = colorsys.hls_to_rgb((h % 360) / 360, min(max(lum, 0), 1), min(max(s, 0), 1))
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def mix(a: str, b: str, t: float) -> str:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb, strict=True))


@dataclass(frozen=True, slots=True)
class Palette:
    mood: str
    #: how a description says it: "at dusk", "at night"
    phrase: str
    night: bool
    sky_top: str
    sky_mid: str
    sky_low: str
    far: str
    mid: str
    near: str
    ground: str
    water: str
    light: str
    accent: str
    accent2: str
    ink: str
    skin: str

    def haze(self, color: str, depth: float) -> str:
        """``color`` pushed towards the horizon sky by ``depth`` (0 near .. 1 far): aerial perspective."""
        return mix(color, self.sky_low, depth)


@dataclass(frozen=True, slots=True)
class _Mood:
    name: str
    phrase: str
    night: bool
    sky: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    land: tuple[float, float, float]
    water: tuple[float, float, float]
    light: tuple[float, float, float]
    accent: tuple[float, float, float]
    accent2: tuple[float, float, float]


MOODS: dict[str, _Mood] = {
    mood.name: mood
    for mood in (
        _Mood(
            "dawn",
            "at dawn",
            False,
            ((220, 0.45, 0.55), (330, 0.45, 0.75), (30, 0.8, 0.82)),
            (280, 0.18, 0.38),
            (210, 0.35, 0.55),
            (45, 1.0, 0.85),
            (350, 0.65, 0.55),
            (200, 0.5, 0.45),
        ),
        _Mood(
            "day",
            "under a clear sky",
            False,
            ((205, 0.65, 0.52), (200, 0.6, 0.7), (190, 0.45, 0.86)),
            (120, 0.3, 0.4),
            (200, 0.55, 0.45),
            (50, 1.0, 0.9),
            (8, 0.75, 0.55),
            (45, 0.85, 0.55),
        ),
        _Mood(
            "golden",
            "in the late afternoon",
            False,
            ((210, 0.4, 0.55), (35, 0.6, 0.72), (40, 0.85, 0.78)),
            (30, 0.35, 0.35),
            (30, 0.4, 0.45),
            (42, 1.0, 0.8),
            (200, 0.6, 0.4),
            (10, 0.7, 0.5),
        ),
        _Mood(
            "dusk",
            "at dusk",
            False,
            ((250, 0.45, 0.28), (300, 0.35, 0.45), (25, 0.85, 0.62)),
            (260, 0.25, 0.22),
            (255, 0.35, 0.3),
            (35, 1.0, 0.72),
            (45, 0.9, 0.6),
            (180, 0.5, 0.5),
        ),
        _Mood(
            "night",
            "at night",
            True,
            ((230, 0.55, 0.1), (225, 0.5, 0.2), (215, 0.45, 0.32)),
            (225, 0.35, 0.14),
            (220, 0.45, 0.2),
            (50, 0.9, 0.86),
            (42, 0.95, 0.62),
            (190, 0.7, 0.55),
        ),
        _Mood(
            "moonlit",
            "under the moon",
            True,
            ((195, 0.5, 0.12), (190, 0.45, 0.25), (175, 0.35, 0.42)),
            (190, 0.3, 0.17),
            (185, 0.4, 0.25),
            (60, 0.5, 0.9),
            (30, 0.9, 0.6),
            (300, 0.4, 0.6),
        ),
        _Mood(
            "mist",
            "in the mist",
            False,
            ((160, 0.12, 0.62), (150, 0.14, 0.74), (90, 0.16, 0.84)),
            (150, 0.14, 0.42),
            (170, 0.18, 0.5),
            (55, 0.5, 0.92),
            (15, 0.6, 0.55),
            (200, 0.35, 0.45),
        ),
        _Mood(
            "storm",
            "under a stormy sky",
            False,
            ((215, 0.25, 0.2), (210, 0.2, 0.35), (195, 0.2, 0.55)),
            (205, 0.15, 0.2),
            (200, 0.3, 0.28),
            (55, 0.8, 0.85),
            (45, 0.9, 0.55),
            (0, 0.7, 0.5),
        ),
        _Mood(
            "aurora",
            "under the northern lights",
            True,
            ((250, 0.5, 0.1), (200, 0.6, 0.2), (160, 0.5, 0.32)),
            (220, 0.3, 0.12),
            (210, 0.4, 0.2),
            (140, 0.8, 0.7),
            (330, 0.7, 0.62),
            (50, 0.9, 0.6),
        ),
        _Mood(
            "winter",
            "on a winter morning",
            False,
            ((210, 0.4, 0.66), (205, 0.35, 0.8), (20, 0.4, 0.9)),
            (215, 0.2, 0.78),
            (205, 0.35, 0.62),
            (40, 0.7, 0.92),
            (355, 0.6, 0.5),
            (200, 0.5, 0.35),
        ),
        _Mood(
            "candle",
            "in warm lamplight",
            True,
            ((20, 0.45, 0.14), (25, 0.5, 0.24), (35, 0.55, 0.36)),
            (25, 0.35, 0.2),
            (30, 0.3, 0.3),
            (40, 1.0, 0.75),
            (10, 0.7, 0.5),
            (150, 0.4, 0.4),
        ),
        _Mood(
            "spring",
            "on a bright spring day",
            False,
            ((195, 0.55, 0.6), (175, 0.4, 0.75), (70, 0.5, 0.86)),
            (100, 0.4, 0.42),
            (180, 0.45, 0.5),
            (55, 1.0, 0.9),
            (330, 0.65, 0.6),
            (45, 0.9, 0.6),
        ),
    )
}


def palette(mood: str, rng: Rng) -> Palette:
    """The mood's colours, every hue shifted by the same small random turn."""
    m = MOODS[mood]
    turn = rng.uniform(-14, 14)

    def c(spec: tuple[float, float, float], dl: float = 0.0, ds: float = 0.0) -> str:
        return hsl(spec[0] + turn, spec[1] + ds, spec[2] + dl)

    land = m.land
    return Palette(
        mood=m.name,
        phrase=m.phrase,
        night=m.night,
        sky_top=c(m.sky[0]),
        sky_mid=c(m.sky[1]),
        sky_low=c(m.sky[2]),
        far=c(land, 0.16, -0.05),
        mid=c(land, 0.07),
        near=c(land),
        ground=c(land, -0.06, 0.05),
        water=c(m.water),
        light=c(m.light),
        accent=c(m.accent),
        accent2=c(m.accent2),
        ink=c(land, -0.14 if land[2] > 0.2 else -0.07, 0.05),
        skin=hsl(25 + turn / 3, 0.45, 0.62 if not m.night else 0.45),
    )
