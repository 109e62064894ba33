"""Settings: the world behind the subject, painted back to front with aerial perspective.

A setting paints its backdrop (`back`), tells the subject where it may stand (`Scene`), and may
paint something in front of the subject (`front`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .backdrop import clouds, hills, sky, stars, sun_or_moon
from .canvas import Canvas, H, Rng, W, fill_below, num, ridge, smooth
from .palettes import Palette, mix


@dataclass
class Scene:
    """What a subject needs to know about its setting."""

    name: str
    #: words for the description: "on a calm sea"
    phrase: str
    tags: tuple[str, ...]
    horizon: float
    #: where a subject standing on the ground has its feet
    floor: float
    light: tuple[float, float]
    #: what the ground is: "land", "water", "air" (no ground), "indoor", "underwater"
    ground: str
    front: Callable[[Canvas, Rng], None] | None = None
    #: whether the mood's words fit ("at dusk" does not fit deep under the sea)
    outdoor: bool = True


# ------------------------------------------------------------------ the mood's weather


def weather(c: Canvas, pal: Palette, rng: Rng, horizon: float) -> None:
    """What the mood adds over the backdrop: storm clouds, a bank of mist."""
    if pal.mood == "storm":
        dark = mix(pal.sky_top, "#000000", 0.35)
        for _ in range(7):
            x, y, r = rng.uniform(-40, W + 40), rng.uniform(10, 110), rng.uniform(45, 80)
            c.circle(x, y, r, fill=dark, opacity=0.75)
        x = rng.uniform(80, 320)
        c.path(f"M{num(x)} 90 l-18 70 l16 -4 l-22 80", fill="none", stroke=pal.light, stroke_width=3, opacity=0.85)
    if pal.mood == "mist":
        c.rect(
            0,
            horizon - 120,
            W,
            260,
            fill=c.linear([(0, pal.sky_low, 0), (0.5, pal.sky_low, 0.85), (1, pal.sky_low, 0)]),
        )


# ------------------------------------------------------------------ the settings


def sea(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(330, 380)
    sky(c, pal, horizon + 2)
    lx = rng.uniform(60, 340)
    if pal.night:
        stars(c, pal, rng, 70, horizon)
    clouds(c, pal, rng, 3, 60, horizon - 90, 0.8)
    if sun:
        sun_or_moon(c, pal, rng, lx, horizon - rng.uniform(90, 200), rng.uniform(22, 34))
    c.rect(
        0,
        horizon,
        W,
        H - horizon,
        fill=c.linear([(0, mix(pal.water, pal.sky_low, 0.45)), (1, mix(pal.water, "#000000", 0.35))]),
    )
    # the light's path on the water
    if sun:
        c.polygon([(lx - 6, horizon), (lx + 6, horizon), (lx + 70, H), (lx - 70, H)], fill=pal.light, opacity=0.18)
    for i in range(14):
        y = horizon + 8 + (i**1.5) * 6.5
        if y > H:
            break
        for _ in range(3 + i // 2):
            x = rng.uniform(-20, W)
            c.path(
                f"M{num(x)} {num(y)} q{num(8 + i)} {num(-3 - i * 0.3)} {num(16 + 2 * i)} 0",
                fill="none",
                stroke=mix(pal.water, "#ffffff", 0.35),
                stroke_width=num(0.6 + i * 0.12),
                opacity=0.5,
            )
    return Scene(
        "sea", "on a calm sea", ("sea", "water", "horizon"), horizon, horizon + 150, (lx, horizon - 120), "water"
    )


def cloudscape(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    sky(c, pal)
    lx = rng.uniform(80, 320)
    if pal.night:
        stars(c, pal, rng, 90, 400)
    if sun:
        sun_or_moon(c, pal, rng, lx, rng.uniform(80, 160), rng.uniform(20, 30))
    clouds(c, pal, rng, 3, 120, 260, 0.9)
    sea_of_clouds = mix(pal.sky_low, "#ffffff", 0.25 if not pal.night else 0.05)
    for i, y in enumerate((430, 480, 540)):
        color = mix(sea_of_clouds, pal.sky_mid, 0.25 * (2 - i))
        pts = []
        for k in range(14):
            pts.append((-30 + k * 34, y + rng.uniform(-18, 8) - (12 if k % 2 else 0)))
        c.path(fill_below(smooth(pts)), fill=color)
    return Scene("clouds", "high above the clouds", ("clouds", "sky", "height"), 430, 470, (lx, 120), "air")


def forest(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(380, 420)
    sky(c, pal, horizon + 40)
    lx = rng.uniform(70, 330)
    if pal.night:
        stars(c, pal, rng, 50, horizon - 100)
    if sun:
        sun_or_moon(c, pal, rng, lx, rng.uniform(90, 170), rng.uniform(18, 26))
    for depth, base, count in ((0.75, horizon - 40, 16), (0.5, horizon - 10, 12), (0.25, horizon + 25, 9)):
        color = pal.haze(pal.near, depth)
        for _ in range(count):
            x, h = rng.uniform(-20, W + 20), rng.uniform(110, 190) * (1.15 - depth * 0.5)
            _pine(c, x, base + rng.uniform(0, 25), h, color)
        c.rect(0, base + 20, W, H, fill=color)
    c.rect(0, horizon + 40, W, H, fill=c.linear([(0, pal.ground), (1, mix(pal.ground, "#000000", 0.4))]))

    def front(c: Canvas, rng: Rng) -> None:
        dark = mix(pal.ink, "#000000", 0.2)
        for x in (rng.uniform(-60, -20), rng.uniform(W + 10, W + 50)):
            _pine(c, x, H + 20, rng.uniform(420, 520), dark)

    return Scene(
        "forest",
        "in a deep pine forest",
        ("forest", "trees", "woods"),
        horizon,
        horizon + 120,
        (lx, 130),
        "land",
        front,
    )


def _pine(c: Canvas, x: float, base: float, height: float, color: str) -> None:
    w = height * 0.32
    tiers = 4
    points = [(x, base - height)]
    for i in range(1, tiers + 1):
        y = base - height + height * i / tiers * 0.92
        spread = w * (0.35 + 0.65 * i / tiers)
        points.append((x + spread, y))
        if i < tiers:
            points.append((x + spread * 0.45, y - height * 0.05))
    right = points[1:]
    left = [(2 * x - px, py) for px, py in reversed(right)]
    c.polygon([points[0], *right, (x + w * 0.08, base), (x - w * 0.08, base), *left], fill=color)


def desert(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(350, 390)
    sky(c, pal, horizon + 30)
    lx = rng.uniform(80, 320)
    if pal.night:
        stars(c, pal, rng, 80, horizon)
    if sun:
        sun_or_moon(c, pal, rng, lx, horizon - rng.uniform(60, 170), rng.uniform(34, 48))
    sand = mix("#e0b070", pal.accent2, 0.3) if not pal.night else mix("#b08850", pal.sky_top, 0.55)
    for depth, y, rough in ((0.6, horizon, 10), (0.35, horizon + 50, 22), (0.12, horizon + 120, 30)):
        c.path(fill_below(smooth(ridge(rng, y, rough, 5))), fill=mix(sand, pal.sky_low, depth))
        c.path(
            smooth(ridge(rng, y + 6, rough * 0.5, 5)),
            fill="none",
            stroke=mix(sand, "#ffffff", 0.25),
            stroke_width=1.5,
            opacity=0.5,
        )
    return Scene(
        "desert",
        "in a desert of dunes",
        ("desert", "sand", "dunes"),
        horizon,
        horizon + 160,
        (lx, horizon - 100),
        "land",
    )


def night_hills(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(380, 420)
    sky(c, pal, horizon + 40)
    lx = rng.uniform(70, 330)
    stars(c, pal, rng, 120 if pal.night else 0, horizon)
    clouds(c, pal, rng, 2, 80, 220, 0.7)
    if sun:
        sun_or_moon(c, pal, rng, lx, rng.uniform(80, 170), rng.uniform(20, 30))
    for depth, y, rough in ((0.7, horizon - 20, 25), (0.4, horizon + 20, 30), (0.1, horizon + 80, 22)):
        hills(c, rng, y, rough, pal.haze(pal.near, depth), 5)
    return Scene(
        "hills", "among rolling hills", ("hills", "countryside", "open land"), horizon, horizon + 150, (lx, 120), "land"
    )


def mountains(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(390, 430)
    sky(c, pal, horizon + 40)
    lx = rng.uniform(70, 330)
    if pal.night:
        stars(c, pal, rng, 80, horizon - 150)
    if sun:
        sun_or_moon(c, pal, rng, lx, rng.uniform(70, 150), rng.uniform(18, 26))
    snow = mix(pal.light, "#ffffff", 0.6)
    for depth, base, peak_h in ((0.7, horizon - 30, 210), (0.45, horizon, 170), (0.2, horizon + 40, 120)):
        color = pal.haze(pal.mid, depth)
        x = rng.uniform(-80, 0)
        while x < W + 60:
            w, h = rng.uniform(140, 220), peak_h * rng.uniform(0.7, 1.1)
            top = (x + w / 2, base - h)
            c.polygon([(x, base + 10), top, (x + w, base + 10)], fill=color)
            c.polygon(
                [
                    top,
                    (top[0] - w * 0.14, top[1] + h * 0.22),
                    (top[0] - w * 0.02, top[1] + h * 0.17),
                    (top[0] + w * 0.1, top[1] + h * 0.25),
                ],
                fill=mix(snow, color, depth * 0.6),
            )
            x += w * rng.uniform(0.45, 0.7)
        c.rect(0, base + 8, W, H, fill=color)
    c.rect(0, horizon + 45, W, H, fill=c.linear([(0, pal.near), (1, pal.ground)]))
    return Scene(
        "mountains",
        "in a valley below snowy mountains",
        ("mountains", "valley", "peaks"),
        horizon,
        horizon + 140,
        (lx, 110),
        "land",
    )


def snowfield(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(370, 410)
    sky(c, pal, horizon + 20)
    lx = rng.uniform(70, 330)
    if pal.night:
        stars(c, pal, rng, 70, horizon)
    if sun:
        sun_or_moon(c, pal, rng, lx, rng.uniform(90, 170), rng.uniform(18, 28))
    snow = mix("#ffffff", pal.sky_mid, 0.25 if not pal.night else 0.6)
    hills(c, rng, horizon, 8, mix(snow, pal.sky_low, 0.4), 5)
    hills(c, rng, horizon + 60, 18, snow, 5)

    def front(c: Canvas, rng: Rng) -> None:
        for _ in range(90):
            c.circle(
                rng.uniform(0, W),
                rng.uniform(0, H),
                rng.uniform(0.8, 2.6),
                fill="#ffffff",
                opacity=rng.uniform(0.4, 0.9),
            )

    return Scene(
        "snow",
        "in a snowy field while snow falls",
        ("snow", "winter", "cold"),
        horizon,
        horizon + 150,
        (lx, 130),
        "land",
        front,
    )


def underwater(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    deep = mix(pal.water, "#001020", 0.55)
    c.rect(0, 0, W, H, fill=c.linear([(0, mix(pal.water, "#ffffff", 0.25)), (0.5, pal.water), (1, deep)]))
    lx = rng.uniform(120, 280)
    for _ in range(6):
        x = lx + rng.uniform(-140, 140)
        c.polygon(
            [(x - 12, 0), (x + 12, 0), (x + rng.uniform(40, 110), H), (x + rng.uniform(-60, 10), H)],
            fill="#ffffff",
            opacity=num(rng.uniform(0.04, 0.09)),
        )
    floor = rng.uniform(480, 520)
    c.path(fill_below(smooth(ridge(rng, floor, 14, 6))), fill=mix(pal.accent2, deep, 0.6))
    for _ in range(9):
        x, h = rng.uniform(0, W), rng.uniform(60, 170)
        pts = [(x + math.sin(k * 1.3 + x) * 8, floor + 20 - h * k / 6) for k in range(7)]
        c.path(
            smooth(pts),
            fill="none",
            stroke=mix(pal.accent2, deep, 0.35),
            stroke_width=num(rng.uniform(3, 6)),
            stroke_linecap="round",
        )

    def front(c: Canvas, rng: Rng) -> None:
        for _ in range(26):
            x, y = rng.uniform(0, W), rng.uniform(0, H)
            c.circle(
                x, y, rng.uniform(1.5, 5), fill="none", stroke="#ffffff", stroke_width=1, opacity=rng.uniform(0.3, 0.7)
            )

    return Scene(
        "underwater",
        "deep under the sea",
        ("underwater", "deep sea", "bubbles"),
        floor - 40,
        floor + 30,
        (lx, 0),
        "underwater",
        front,
        outdoor=False,
    )


def room(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    wall = mix(pal.accent2, pal.sky_mid if not pal.night else "#201510", 0.65)
    floor_y = rng.uniform(430, 460)
    c.rect(0, 0, W, floor_y, fill=c.linear([(0, mix(wall, "#000000", 0.25)), (1, wall)]))
    # the window shows the outside mood
    wx, wy, ww, wh = rng.uniform(60, 200), rng.uniform(90, 140), rng.uniform(110, 150), rng.uniform(150, 200)
    c.rect(wx - 8, wy - 8, ww + 16, wh + 16, fill=mix(wall, "#000000", 0.35), rx=4)
    c.rect(wx, wy, ww, wh, fill=c.linear([(0, pal.sky_top), (1, pal.sky_low)]))
    if pal.night and sun:
        c.circle(wx + ww * 0.7, wy + wh * 0.3, 12, fill=pal.light)
    c.rect(wx + ww / 2 - 3, wy, 6, wh, fill=mix(wall, "#000000", 0.35))
    c.rect(wx, wy + wh / 2 - 3, ww, 6, fill=mix(wall, "#000000", 0.35))
    c.polygon(
        [(wx, wy + wh), (wx + ww, wy + wh), (wx + ww + 120, floor_y + 120), (wx - 60, floor_y + 120)],
        fill=pal.light,
        opacity=0.08,
    )
    boards = mix(pal.accent2, "#3a2010", 0.55)
    c.rect(0, floor_y, W, H - floor_y, fill=c.linear([(0, mix(boards, "#000000", 0.3)), (1, boards)]))
    for i in range(-6, 7):
        c.line(
            W / 2 + i * 20,
            floor_y,
            W / 2 + i * 90,
            H,
            stroke=mix(boards, "#000000", 0.35),
            stroke_width=1.2,
            opacity=0.6,
        )
    c.rect(0, floor_y - 6, W, 8, fill=mix(wall, "#000000", 0.45))
    return Scene(
        "room",
        "in an empty room with a tall window",
        ("room", "indoors", "window"),
        floor_y,
        floor_y + 90,
        (wx + ww / 2, wy + wh / 2),
        "indoor",
        outdoor=False,
    )


def lake(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(330, 370)
    sky(c, pal, horizon)
    lx = rng.uniform(70, 330)
    if pal.night:
        stars(c, pal, rng, 70, horizon)
    clouds(c, pal, rng, 2, 60, horizon - 120, 0.8)
    ly = horizon - rng.uniform(90, 180)
    if sun:
        sun_or_moon(c, pal, rng, lx, ly, rng.uniform(18, 26))
    shore = pal.haze(pal.near, 0.5)
    hills(c, rng, horizon - 25, 18, shore, 5)
    c.rect(
        0,
        horizon,
        W,
        H - horizon,
        fill=c.linear([(0, mix(pal.sky_low, pal.water, 0.4)), (1, mix(pal.sky_top, pal.water, 0.5))]),
    )
    if sun:  # the mirror: the light reflected, dimmer
        c.circle(lx, 2 * horizon - ly, 20, fill=pal.light, opacity=0.35)
    for i in range(8):
        y = horizon + 15 + i * 28
        c.line(rng.uniform(0, 200), y, rng.uniform(200, W), y, stroke="#ffffff", stroke_width=1, opacity=0.12)
    return Scene(
        "lake",
        "by a still lake",
        ("lake", "water", "reflection", "stillness"),
        horizon,
        horizon + 150,
        (lx, ly),
        "water",
    )


def city(c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene:
    horizon = rng.uniform(400, 440)
    sky(c, pal, horizon)
    lx = rng.uniform(70, 330)
    if pal.night:
        stars(c, pal, rng, 60, 250)
    if sun:
        sun_or_moon(c, pal, rng, lx, rng.uniform(80, 160), rng.uniform(18, 26))
    window = mix(pal.light, "#ffcc66", 0.4)
    stone = pal.ink if pal.night else mix(pal.accent2, pal.near, 0.5)
    for depth, base, top in ((0.6, horizon - 30, 200), (0.3, horizon, 120), (0.0, horizon + 60, 60)):
        color = pal.haze(stone, depth)
        x = -10.0
        while x < W:
            w, h = rng.uniform(30, 70), rng.uniform(top * 0.5, top * 1.3)
            c.rect(x, base - h, w, h + 200, fill=color)
            if rng.chance(0.5):
                c.polygon([(x - 3, base - h), (x + w / 2, base - h - w * 0.5), (x + w + 3, base - h)], fill=color)
            if pal.night or pal.mood in ("dusk", "storm"):
                for _ in range(int(w * h / 700)):
                    c.rect(
                        x + rng.uniform(4, w - 8),
                        base - h + rng.uniform(8, h),
                        4,
                        6,
                        fill=window,
                        opacity=rng.uniform(0.5, 1) * (1 - depth * 0.6),
                    )
            x += w + rng.uniform(-4, 6)
    return Scene(
        "rooftops",
        "among the rooftops of a sleeping town",
        ("town", "rooftops", "houses"),
        horizon,
        horizon + 120,
        (lx, 120),
        "land",
    )


class Setting(Protocol):
    def __call__(self, c: Canvas, pal: Palette, rng: Rng, sun: bool = True) -> Scene: ...


SETTINGS: dict[str, Setting] = {
    "sea": sea,
    "clouds": cloudscape,
    "forest": forest,
    "desert": desert,
    "hills": night_hills,
    "mountains": mountains,
    "snow": snowfield,
    "underwater": underwater,
    "room": room,
    "lake": lake,
    "town": city,
}
