"""Twists: what makes a picture strange — scale, impossible physics, odd pairings.

A twist places the subject (and sometimes a second one) in the scene and returns what the
sentence that describes the whole picture says (`fabula.cards.art.words.Told`: which of its
sentences, with the parts and words it chose), so the description comes from the same code that
drew it; `fabula.cards.art.words.say` writes it in each language.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .canvas import H, W, num, smooth
from .paint import Paint
from .palettes import Palette, mix
from .settings import Scene
from .subjects import SUBJECTS, Subject
from .words import Told


def fitted_height(s: Subject, height: float, width: float) -> float:
    """The height at which ``s`` fits in ``height`` × ``width``."""
    return min(height, width / s.aspect)


def small_figure(p: Paint, x: float, base: float, h: float = 40) -> None:
    SUBJECTS["figure"].draw(p, x, base, h)


def umbrella_figure(p: Paint, x: float, base: float, h: float = 46) -> None:
    small_figure(p, x, base, h)
    c = p.c
    top = base - h * 1.25
    c.path(
        f"M{num(x - h * 0.45)} {num(top + h * 0.18)} Q{num(x)} {num(top - h * 0.25)} {num(x + h * 0.45)} {num(top + h * 0.18)}Z",
        fill=p.body(p.pal.accent2, x),
    )
    c.line(x, top + h * 0.15, x, base - h * 0.55, stroke=p.pal.ink, stroke_width=1.2)


# ------------------------------------------------------------------ the twists


def giant(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    h = fitted_height(s, 420, 330)
    x = W / 2 + p.rng.uniform(-20, 20)
    base = scene.floor + 20 if scene.ground != "water" else scene.horizon + 110
    if scene.ground == "water":
        p.c.ellipse(x, base, s.aspect * h * 0.6, 10, fill="#ffffff", opacity=0.2)
    s.draw(p, x, base, h)
    size = ("size", "big" if s.aspect > 1 else "tall")
    side = 1 if p.rng.chance(0.5) else -1
    fx = x + side * (s.aspect * h / 2 + 28)
    fx = min(max(fx, 30), W - 30)
    if scene.ground == "water":
        SUBJECTS["boat"].draw(p, fx, base + 30, 42)
        return Told("giant.water", s, scene, pal, choices=(size,))
    small_figure(p, fx, base + 18, 34)
    # a whale or a jellyfish does not stand
    posture = ("floats" if scene.ground == "underwater" else "lies") if s.swims else "stands"
    return Told("giant.land", s, scene, pal, choices=(size, ("posture", posture)))


def floating(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    h = fitted_height(s, 190, 240)
    x, base = W / 2 + p.rng.uniform(-50, 50), 330 + p.rng.uniform(-30, 20)
    fx, fy = x + p.rng.uniform(-110, 110), scene.floor + 25
    p.c.ellipse(x, fy + 8, s.aspect * h * 0.35, 8, fill=pal.ink, opacity=0.25)
    p.c.path(
        smooth([(fx + 6, fy - 30), ((fx + x) / 2 + 20, (fy + base) / 2), (x, base - 4)]),
        fill="none",
        stroke=mix(pal.light, "#ffffff", 0.5),
        stroke_width=1.2,
    )
    s.draw(p, x, base, h)
    small_figure(p, fx, fy, 44)
    return Told("floating", s, scene, pal)


def upside_down(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    h = fitted_height(s, 230, 280)
    x = W / 2 + p.rng.uniform(-40, 40)
    top = 20.0
    rope = mix(pal.ink, pal.light, 0.3)
    p.c.line(x, 0, x, top + 10, stroke=rope, stroke_width=2)
    p.c.begin(transform=f"rotate(180 {num(x)} {num(top + h / 2 + 10)})")
    s.draw(p, x, top + h + 10, h)
    p.c.end()
    hang = "ceiling" if scene.ground == "indoor" else "sky"
    return Told("upside_down", s, scene, pal, choices=(("hang", hang),))


def bubble(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    c = p.c
    r = 135.0
    x = W / 2 + p.rng.uniform(-25, 25)
    cy = (scene.floor - r + 5) if scene.ground in ("land", "indoor", "underwater") else 300
    if scene.ground in ("land", "indoor", "underwater"):
        p.shadow(x, cy + r, r * 1.4)
    h = fitted_height(s, r * 1.15, r * 1.4)
    s.draw(p, x, cy + r * 0.55, h)
    c.circle(
        x,
        cy,
        r,
        fill=c.radial([(0, "#ffffff", 0), (0.8, mix(pal.sky_low, "#ffffff", 0.5), 0.12), (1, "#ffffff", 0.45)]),
        stroke=mix(pal.light, "#ffffff", 0.6),
        stroke_width=1.5,
        stroke_opacity=0.7,
    )
    c.path(
        f"M{num(x - r * 0.7)} {num(cy - r * 0.35)} A{num(r * 0.8)} {num(r * 0.8)} 0 0 1 {num(x - r * 0.2)} {num(cy - r * 0.75)}",
        fill="none",
        stroke="#ffffff",
        stroke_width=6,
        stroke_linecap="round",
        opacity=0.55,
    )
    rests = "rests" if scene.ground in ("land", "indoor", "underwater") else "floats"
    return Told("bubble", s, scene, pal, choices=(("rests", rests),))


def reflection(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    assert other is not None
    c = p.c
    water = scene.horizon + p.rng.uniform(60, 90)
    x = W / 2 + p.rng.uniform(-30, 30)
    rock = mix(pal.ink, pal.near, 0.3)
    c.path(
        f"M{num(x - 110)} {num(water + 2)} Q{num(x - 60)} {num(water - 26)} {num(x)} {num(water - 22)} Q{num(x + 70)} {num(water - 24)} {num(x + 110)} {num(water + 2)}Z",
        fill=rock,
    )
    h = fitted_height(s, 230, 200)
    s.draw(p, x, water - 14, h)
    ho = fitted_height(other, 200, 220)
    c.begin(opacity="0.5", clip_path=c.clip(f'<rect x="0" y="{num(water)}" width="{W}" height="{H}"/>'))
    c.begin(transform=f"translate(0 {num(2 * water)}) scale(1 -1)")
    other.draw(p, x, water - 4, ho)
    c.end()
    c.end()
    for k in range(6):
        y = water + 12 + k * 22
        c.line(x - 120 + k * 7, y, x + 120 - k * 9, y, stroke="#ffffff", stroke_width=1.5, opacity=0.25)
    return Told("reflection", s, scene, pal, other)


def world_inside(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    assert other is not None
    h = fitted_height(s, 250, 330)
    x = W / 2
    base = scene.floor + 20
    s.draw(p, x, base, h)
    inner_h = fitted_height(other, h * 0.55, s.aspect * h * 0.55)
    if s.name == "teacup":
        # the tea is a little sea: the thing stands in it
        other.draw(p, x, base - h * 0.8, inner_h)
        return Told("world_inside.teacup", s, scene, pal, other)
    if s.name == "book":
        other.draw(p, x + h * 0.2, base - h * 0.3, inner_h)
        return Told("world_inside.book", s, scene, pal, other)
    if s.name == "bathtub":
        other.draw(p, x, base - h * 0.55, inner_h)
        return Told("world_inside.bathtub", s, scene, pal, other)
    if s.name == "bottle":
        other.draw(p, x, base - h * 0.08, fitted_height(other, h * 0.45, s.aspect * h * 0.75))
        return Told("world_inside.bottle", s, scene, pal, other)
    other.draw(p, x, base - h * 0.2, inner_h)
    return Told("world_inside", s, scene, pal, other)


def rain(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    c = p.c
    dark = mix(pal.sky_top, "#000000", 0.3)
    for _ in range(9):
        c.circle(p.rng.uniform(20, W - 20), p.rng.uniform(20, 80), p.rng.uniform(35, 60), fill=dark, opacity=0.9)
    for _ in range(11):
        x, y = p.rng.uniform(30, W - 30), p.rng.uniform(130, scene.floor - 70)
        size = fitted_height(s, 46, 50)
        c.begin(transform=f"rotate({num(p.rng.uniform(-35, 35))} {num(x)} {num(y)})")
        s.draw(p, x, y, size)
        c.end()
    umbrella_figure(p, W / 2 + p.rng.uniform(-60, 60), scene.floor + 25, 50)
    return Told("rain", s, scene, pal)


def stairs_up(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    c = p.c
    rng = p.rng
    side = 1 if rng.chance(0.5) else -1
    x0, y0 = W / 2 - side * rng.uniform(60, 150), scene.floor + 40
    tx, ty = W / 2 + side * rng.uniform(-20, 100), rng.uniform(110, 190)
    # the stair bends on its way up, like a ribbon
    bend = rng.uniform(-160, 160)
    stone = mix("#ece4d4", pal.sky_low, 0.3)
    steps = 18
    for k in range(steps):
        t = k / steps
        sx = x0 + (tx - x0) * t + bend * math.sin(math.pi * t)
        sy = y0 + (ty + 70 - y0) * t
        w = 34 - 18 * t
        c.rect(sx - w / 2, sy - 9, w, 9, fill=p.body(stone, sx))
        c.rect(sx - w / 2, sy, w, 6, fill=mix(stone, pal.ink, 0.45))
    h = fitted_height(s, 130, 150)
    s.draw(p, tx, ty + 60, h)
    small_figure(p, x0 + (tx - x0) * 0.3 + bend * math.sin(math.pi * 0.3), y0 + (ty + 70 - y0) * 0.3 - 9, 30)
    return Told("stairs_up", s, scene, pal)


def sky_swim(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    h = fitted_height(s, 200, 330)
    x, base = W / 2 + p.rng.uniform(-20, 20), 250 + p.rng.uniform(-40, 30)
    s.draw(p, x, base, h)
    for k in range(5):
        p.c.circle(
            x - s.aspect * h * 0.5 - 10 - k * 14,
            base - h * 0.6 - k * 9,
            3 + k,
            fill="none",
            stroke="#ffffff",
            stroke_width=1,
            opacity=0.6,
        )
    return Told("sky_swim", s, scene, pal)


def glow(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    c = p.c
    c.rect(0, 0, W, H, fill="#000000", opacity=0.35)
    h = fitted_height(s, 230, 280)
    x, base = W / 2 + p.rng.uniform(-30, 30), scene.floor + 15
    p.halo(x, base - h / 2, h * 1.2, strength=0.8)
    s.draw(p, x, base, h)
    p.halo(x, base - h / 2, h * 0.7, strength=0.35)
    side = 1 if p.rng.chance(0.5) else -1
    small_figure(p, min(max(x + side * (s.aspect * h / 2 + 40), 30), W - 30), base + 12, 48)
    return Told("glow", s, scene, pal)


def rooted(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    c, rng = p.c, p.rng
    h = fitted_height(s, 230, 260)
    x, base = W / 2, scene.floor + 10
    root = mix("#6a4a2a", pal.ink, 0.35)
    for _ in range(7):
        ex, ey = x + rng.uniform(-150, 150), base + rng.uniform(30, 90)
        c.path(
            smooth([(x + rng.uniform(-20, 20), base - 5), ((x + ex) / 2, base + rng.uniform(5, 30)), (ex, ey)]),
            fill="none",
            stroke=root,
            stroke_width=num(rng.uniform(3, 7)),
            stroke_linecap="round",
        )
    s.draw(p, x, base, h)
    leaf = mix(pal.near, "#6a9a3a", 0.5)
    top = base - h
    for _ in range(6):
        bx, by = x + rng.uniform(-90, 90), top - rng.uniform(30, 90)
        c.path(
            smooth([(x + rng.uniform(-10, 10), top + 10), ((x + bx) / 2, (top + by) / 2 + 10), (bx, by)]),
            fill="none",
            stroke=root,
            stroke_width=4,
            stroke_linecap="round",
        )
        for _ in range(3):
            c.circle(
                bx + rng.uniform(-22, 22), by + rng.uniform(-18, 12), rng.uniform(12, 22), fill=p.body(leaf, bx, 0.7)
            )
    return Told("rooted", s, scene, pal)


def balloons(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    c, rng = p.c, p.rng
    h = fitted_height(s, 160, 220)
    x, base = W / 2 + rng.uniform(-30, 30), 400 + rng.uniform(-30, 10)
    if scene.ground != "air":  # its shadow far below: it has left the ground
        p.c.ellipse(x, scene.floor + 20, s.aspect * h * 0.35, 7, fill=pal.ink, opacity=0.25)
    anchor = (x, base - h - 4)
    colors = [pal.accent, pal.accent2, mix(pal.accent, "#ffffff", 0.4), mix(pal.light, pal.accent, 0.3)]
    for k in range(9):
        bx, by = x + rng.uniform(-95, 95), base - h - rng.uniform(110, 230)
        c.line(anchor[0], anchor[1], bx, by + 22, stroke=pal.ink, stroke_width=0.8, opacity=0.7)
        color = colors[k % len(colors)]
        c.ellipse(bx, by, 19, 23, fill=p.body(color, bx))
        c.ellipse(bx - 6, by - 8, 4, 6, fill="#ffffff", opacity=0.5)
    s.draw(p, x, base, h)
    return Told("balloons", s, scene, pal)


def moon_swap(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    x, y = W / 2 + p.rng.uniform(-70, 70), 150 + p.rng.uniform(-30, 30)
    p.halo(x, y, 170, strength=0.75)
    p.c.circle(x, y, 78, fill=mix(pal.light, pal.sky_top, 0.5), opacity=0.45)
    h = fitted_height(s, 120, 130)
    s.draw(p, x, y + h / 2, h)
    return Told("moon_swap", s, scene, pal)


def shadow(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    assert other is not None
    c = p.c
    h = fitted_height(s, 190, 200)
    away = -1 if p.light[0] > W / 2 else 1
    x, base = W / 2 - away * 70, scene.floor + 10
    dark = mix(pal.ink, "#000000", 0.35)
    if scene.ground == "indoor":
        # thrown upright onto the wall behind, bigger than the thing itself
        ho = fitted_height(other, 300, 300)
        c.begin(filter=c.silhouette(dark), opacity="0.6")
        other.draw(p, x + away * 90, scene.horizon, ho)
        c.end()
        s.draw(p, x, base, h)
        return Told("shadow.indoor", s, scene, pal, other)
    ho = fitted_height(other, 300, 320)
    c.begin(
        filter=c.silhouette(dark),
        opacity="0.6",
        transform=f"translate({num(x)} {num(base)}) skewX({num(away * -38)}) scale(1 0.62) translate({num(-x)} {num(-base)})",
    )
    other.draw(p, x, base, ho)
    c.end()
    s.draw(p, x, base, h)
    return Told("shadow.outdoor", s, scene, pal, other)


def carries(p: Paint, scene: Scene, s: Subject, other: Subject | None, pal: Palette) -> Told:
    assert other is not None
    h = fitted_height(s, 170, 330)
    x, base = (
        W / 2 + p.rng.uniform(-15, 15),
        (scene.horizon + 70 if scene.ground == "water" else 360 + p.rng.uniform(-40, 20)),
    )
    s.draw(p, x, base, h)
    ho = fitted_height(other, h * 0.9, s.aspect * h * 0.45)
    back_y = base - h * _BACK.get(s.name, 0.55)
    other.draw(p, x - s.aspect * h * 0.05, back_y, ho)
    moves = ("swims" if s.swims else "wades") if scene.ground == "water" else "travels"
    return Told("carries", s, scene, pal, other, choices=(("moves", moves),))


#: How high up its drawing each carrier's back is (a load stands there).
_BACK = {"whale": 0.9, "elephant": 0.95, "snail": 0.97, "crane": 0.55, "fish": 0.55}


@dataclass(frozen=True)
class Twist:
    name: str
    tags: tuple[str, ...]
    paint: Callable[[Paint, Scene, Subject, Subject | None, Palette], Told]
    #: whether the twist fits this subject in this setting and mood
    fits: Callable[[Subject, Scene, Palette], bool]
    #: what the second subject must be, if the twist needs one
    other: Callable[[Subject, Subject], bool] | None = None
    #: it replaces the sun or moon
    no_sun: bool = False
    #: the setting must have water
    water: bool = False


def _grounded(scene: Scene) -> bool:
    return scene.ground in ("land", "indoor")


_SMALL = {
    "key",
    "teacup",
    "clock",
    "lantern",
    "fish",
    "star",
    "book",
    "mushroom",
    "feather",
    "umbrella",
    "candle",
    "hourglass",
    "shell",
    "crown",
    "bottle",
    "kite",
    "chair",
    "door",
}

TWISTS: dict[str, Twist] = {
    t.name: t
    for t in (
        Twist(
            "giant",
            ("giant", "scale", "smallness"),
            giant,
            lambda s, sc, pal: s.kind not in ("building", "celestial") and s.name != "figure" and sc.ground != "air",
        ),
        Twist(
            "floating",
            ("floating", "lightness", "tether"),
            floating,
            lambda s, sc, pal: _grounded(sc) and s.name != "figure" and not s.flies,
        ),
        Twist(
            "upside_down",
            ("upside down", "inversion", "gravity"),
            upside_down,
            lambda s, sc, pal: s.name != "figure" and sc.ground != "underwater",
        ),
        Twist("bubble", ("bubble", "glass", "fragile", "kept"), bubble, lambda s, sc, pal: s.name != "figure"),
        Twist(
            "reflection",
            ("reflection", "mirror", "double"),
            reflection,
            lambda s, sc, pal: s.kind in ("building", "plant") or s.name in ("figure", "door", "lantern"),
            other=lambda s, o: (
                o.name != s.name and o.kind in ("creature", "building", "plant", "object") and o.name != "staircase"
            ),
            water=True,
        ),
        Twist(
            "world_inside",
            ("miniature", "world within", "containment"),
            world_inside,
            lambda s, sc, pal: s.name in ("teacup", "book", "bottle", "bathtub") and sc.ground in ("land", "indoor"),
            other=lambda s, o: o.kind in ("building", "plant") or o.name in ("boat", "figure"),
        ),
        Twist(
            "rain",
            ("rain", "falling", "abundance"),
            rain,
            lambda s, sc, pal: s.name in _SMALL and sc.ground in ("land", "indoor") and not pal.night,
        ),
        Twist(
            "stairs_up",
            ("stairs", "ascent", "reaching"),
            stairs_up,
            lambda s, sc, pal: s.name not in ("staircase", "figure") and sc.ground == "land",
        ),
        Twist(
            "sky_swim",
            ("swimming", "sky", "impossible"),
            sky_swim,
            lambda s, sc, pal: s.swims and sc.ground in ("land", "air"),
        ),
        Twist(
            "glow",
            ("glow", "darkness", "warmth"),
            glow,
            lambda s, sc, pal: (
                pal.night and s.name != "figure" and sc.ground in ("land", "indoor", "water", "underwater")
            ),
        ),
        Twist(
            "rooted",
            ("roots", "growth", "transformation"),
            rooted,
            lambda s, sc, pal: (
                s.kind in ("object", "building") and s.name not in ("staircase",) and sc.ground == "land"
            ),
        ),
        Twist(
            "balloons",
            ("balloons", "lift", "escape"),
            balloons,
            lambda s, sc, pal: not s.flies and s.name != "figure" and sc.ground in ("land", "water", "air"),
        ),
        Twist(
            "moon_swap",
            ("moon", "night sky", "substitution"),
            moon_swap,
            lambda s, sc, pal: (
                pal.night and pal.mood != "moonlit" and sc.outdoor and s.name in _SMALL | {"fish", "house", "balloon"}
            ),
            no_sun=True,
        ),
        Twist(
            "shadow",
            ("shadow", "secret self", "light"),
            shadow,
            # things that stand: a whale or a jellyfish does not
            lambda s, sc, pal: _grounded(sc) and not pal.night and s.name != "staircase" and not s.swims,
            other=lambda s, o: o.name != s.name and o.kind in ("creature", "building", "plant") and o.name != "figure",
        ),
        Twist(
            "carries",
            ("carrying", "journey", "burden"),
            carries,
            lambda s, sc, pal: (
                s.name in ("whale", "crane", "fish", "elephant", "snail") and sc.ground in ("land", "water", "air")
            ),
            other=lambda s, o: o.kind in ("building", "plant"),
        ),
    )
}
