"""Subjects: the thing a picture is about, each drawn standing at (x, base) with height h.

Every subject has the words a description needs ("a lighthouse"), tags, and what it may do in a
twist (`flies`: at home in the air; `swims`: at home in water; `holds`: can contain a small world).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .canvas import H, Point, W, num, smooth, star_points
from .paint import Paint
from .palettes import mix

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


# ------------------------------------------------------------------ buildings


def lighthouse(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w_base, w_top = h * 0.2, h * 0.12
    top = base - h * 0.78
    p.shadow(x, base, w_base * 1.6)
    wall = mix("#f4efe6", pal.sky_low, 0.15)
    c.polygon(
        [(x - w_base / 2, base), (x - w_top / 2, top), (x + w_top / 2, top), (x + w_base / 2, base)],
        fill=p.body(wall, x),
    )
    for k in range(3):
        y0 = base - h * (0.12 + k * 0.24)
        y1 = y0 - h * 0.1
        wa = w_base - (w_base - w_top) * (base - y0) / (base - top)
        wb = w_base - (w_base - w_top) * (base - y1) / (base - top)
        c.polygon([(x - wa / 2, y0), (x - wb / 2, y1), (x + wb / 2, y1), (x + wa / 2, y0)], fill=p.body(pal.accent, x))
    c.rect(x - w_top * 0.75, top - h * 0.02, w_top * 1.5, h * 0.025, fill=pal.ink)
    lamp_y = top - h * 0.09
    c.rect(x - w_top * 0.38, lamp_y, w_top * 0.76, h * 0.07, fill=pal.light)
    p.halo(x, lamp_y + h * 0.035, h * 0.35)
    c.polygon([(x - w_top * 0.5, lamp_y), (x, top - h * 0.2), (x + w_top * 0.5, lamp_y)], fill=pal.accent)
    side = 1 if p.light[0] < x else -1
    c.polygon(
        [(x, lamp_y + h * 0.035), (x + side * h * 1.4, lamp_y - h * 0.12), (x + side * h * 1.4, lamp_y + h * 0.2)],
        fill=pal.light,
        opacity=0.16,
    )
    c.rect(x - w_base * 0.12, base - h * 0.1, w_base * 0.24, h * 0.1, fill=pal.ink, rx=2)


def house(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.0
    wall_top = base - h * 0.55
    p.shadow(x, base, w * 1.2)
    wall = mix(pal.accent2, "#f0e0c0", 0.5)
    c.rect(x - w / 2, wall_top, w, base - wall_top, fill=p.body(wall, x))
    c.rect(x + w * 0.18, base - h * 0.98, w * 0.12, h * 0.3, fill=mix(pal.ink, wall, 0.3))
    c.polygon(
        [(x - w * 0.6, wall_top + 2), (x, base - h * 0.95), (x + w * 0.6, wall_top + 2)], fill=p.body(pal.accent, x)
    )
    lit = pal.light if pal.night or pal.mood in ("dusk", "storm", "candle") else mix(pal.sky_top, "#ffffff", 0.3)
    for wx in (x - w * 0.3, x + w * 0.12):
        c.rect(wx, wall_top + h * 0.1, w * 0.18, h * 0.14, fill=lit)
        if pal.night:
            p.halo(wx + w * 0.09, wall_top + h * 0.17, h * 0.18, strength=0.45)
    c.rect(x - w * 0.04, base - h * 0.28, w * 0.14, h * 0.28, fill=mix(pal.accent, pal.ink, 0.5), rx=3)


def tower(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 0.22
    p.shadow(x, base, w * 1.8)
    stone = mix("#b8b0a0", pal.near, 0.35)
    c.rect(x - w / 2, base - h * 0.82, w, h * 0.82, fill=p.body(stone, x))
    for k in range(5):
        c.rect(x - w / 2 + k * w / 4.5, base - h * 0.86, w / 9, h * 0.05, fill=p.body(stone, x))
    c.rect(x - w * 0.6, base - h * 0.83, w * 1.2, h * 0.03, fill=mix(stone, pal.ink, 0.4))
    c.polygon(
        [(x - w * 0.62, base - h * 0.86), (x, base - h), (x + w * 0.62, base - h * 0.86)], fill=p.body(pal.accent, x)
    )
    for k in range(3):
        c.path(
            f"M{num(x - w * 0.1)} {num(base - h * (0.25 + k * 0.2))} a{num(w * 0.1)} {num(w * 0.1)} 0 0 1 {num(w * 0.2)} 0 v{num(h * 0.06)} h{num(-w * 0.2)}Z",
            fill=pal.light if pal.night else pal.ink,
        )


# ------------------------------------------------------------------ plants


def tree(p: Paint, x: float, base: float, h: float) -> None:
    c, pal, rng = p.c, p.pal, p.rng
    p.shadow(x, base, h * 0.7)
    bark = mix("#5a3a22", pal.ink, 0.3)
    trunk_w = h * 0.07
    c.path(
        f"M{num(x - trunk_w)} {num(base)} C{num(x - trunk_w * 0.6)} {num(base - h * 0.3)} {num(x - trunk_w * 0.4)} {num(base - h * 0.45)} {num(x - trunk_w * 1.6)} {num(base - h * 0.62)} "
        f"L{num(x + trunk_w * 1.6)} {num(base - h * 0.62)} C{num(x + trunk_w * 0.4)} {num(base - h * 0.45)} {num(x + trunk_w * 0.6)} {num(base - h * 0.3)} {num(x + trunk_w)} {num(base)}Z",
        fill=p.body(bark, x),
    )
    leaf = mix(pal.near, "#5a8a3a", 0.45) if not pal.night else mix(pal.near, "#2a5040", 0.5)
    crown = []
    for _ in range(11):
        angle = rng.uniform(0, math.tau)
        crown.append(
            (
                x + math.cos(angle) * h * rng.uniform(0.05, 0.3),
                base - h * 0.68 + math.sin(angle) * h * rng.uniform(0.04, 0.2),
                h * rng.uniform(0.13, 0.2),
            )
        )
    for cx, cy, r in crown:
        c.circle(cx, cy + r * 0.2, r, fill=mix(leaf, pal.ink, 0.45))
    for cx, cy, r in crown:
        lit_dx = -r * 0.2 if p.light[0] < x else r * 0.2
        c.circle(cx + lit_dx, cy, r * 0.85, fill=p.body(leaf, cx, 0.8))


def mushroom(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.9)
    stem = mix("#f0e6d0", pal.sky_low, 0.2)
    c.path(
        f"M{num(x - h * 0.12)} {num(base)} Q{num(x - h * 0.08)} {num(base - h * 0.35)} {num(x - h * 0.1)} {num(base - h * 0.6)} L{num(x + h * 0.1)} {num(base - h * 0.6)} Q{num(x + h * 0.08)} {num(base - h * 0.35)} {num(x + h * 0.12)} {num(base)}Z",
        fill=p.body(stem, x),
    )
    cap = mix(pal.accent, "#c02020", 0.4)
    c.path(
        f"M{num(x - h * 0.48)} {num(base - h * 0.55)} C{num(x - h * 0.45)} {num(base - h * 1.05)} {num(x + h * 0.45)} {num(base - h * 1.05)} {num(x + h * 0.48)} {num(base - h * 0.55)} Q{num(x)} {num(base - h * 0.47)} {num(x - h * 0.48)} {num(base - h * 0.55)}Z",
        fill=p.body(cap, x),
    )
    for dx, dy, r in ((-0.25, 0.72, 0.06), (0.05, 0.86, 0.05), (0.22, 0.7, 0.045), (-0.05, 0.66, 0.035)):
        c.circle(x + dx * h, base - dy * h, r * h, fill="#fff8ee", opacity=0.9)


# ------------------------------------------------------------------ objects


def door(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 0.48
    p.shadow(x, base, w * 1.4)
    frame = mix("#6b4a30", pal.ink, 0.25)
    c.rect(x - w / 2 - h * 0.04, base - h, w + h * 0.08, h, fill=p.body(frame, x), rx=3)
    # the doorway shows another light
    c.rect(
        x - w / 2, base - h * 0.95, w, h * 0.95, fill=c.linear([(0, mix(pal.light, "#ffffff", 0.4)), (1, pal.light)])
    )
    p.halo(x, base - h * 0.45, h * 0.7, strength=0.35)
    c.polygon(
        [
            (x - w / 2, base - h * 0.95),
            (x - w / 2 - w * 0.35, base - h * 0.88),
            (x - w / 2 - w * 0.35, base + h * 0.03),
            (x - w / 2, base),
        ],
        fill=p.body(mix(pal.accent, "#6b4a30", 0.4), x - w),
    )
    c.circle(x - w / 2 - w * 0.26, base - h * 0.45, h * 0.015, fill=pal.light)
    c.polygon(
        [(x - w / 2, base), (x + w / 2, base), (x + w * 0.9, base + h * 0.25), (x - w * 0.9, base + h * 0.25)],
        fill=pal.light,
        opacity=0.18,
    )


def teacup(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.25
    p.shadow(x, base, w * 1.1)
    china = mix("#f6f1ea", pal.sky_low, 0.2)
    c.ellipse(x, base - h * 0.05, w * 0.62, h * 0.1, fill=p.body(china, x))
    c.path(
        f"M{num(x + w * 0.42)} {num(base - h * 0.72)} c{num(w * 0.28)} {num(-h * 0.05)} {num(w * 0.3)} {num(h * 0.38)} {num(-w * 0.04)} {num(h * 0.42)}",
        fill="none",
        stroke=p.body(china, x + w * 0.5),
        stroke_width=num(h * 0.07),
    )
    c.path(
        f"M{num(x - w / 2)} {num(base - h * 0.8)} C{num(x - w / 2)} {num(base - h * 0.1)} {num(x - w * 0.25)} {num(base - h * 0.12)} {num(x)} {num(base - h * 0.12)} "
        f"C{num(x + w * 0.25)} {num(base - h * 0.12)} {num(x + w / 2)} {num(base - h * 0.1)} {num(x + w / 2)} {num(base - h * 0.8)}Z",
        fill=p.body(china, x),
    )
    c.rect(x - w * 0.48, base - h * 0.6, w * 0.96, h * 0.07, fill=pal.accent, opacity=0.85)
    c.ellipse(x, base - h * 0.8, w / 2, h * 0.09, fill=mix(china, pal.ink, 0.15))
    c.ellipse(x, base - h * 0.79, w * 0.45, h * 0.07, fill=mix("#8a5030", pal.ink, 0.2))
    for k in (-1, 0, 1):
        sx = x + k * w * 0.16
        c.path(
            f"M{num(sx)} {num(base - h * 0.9)} c{num(-h * 0.08)} {num(-h * 0.12)} {num(h * 0.08)} {num(-h * 0.2)} 0 {num(-h * 0.34)}",
            fill="none",
            stroke="#ffffff",
            stroke_width=num(h * 0.025),
            opacity=0.45,
            stroke_linecap="round",
        )


def key(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    brass = mix("#d8a840", pal.light, 0.2)
    fill = p.body(brass, x)
    ring_r = h * 0.18
    c.circle(x, base - h + ring_r, ring_r, fill="none", stroke=fill, stroke_width=num(h * 0.07))
    c.circle(x, base - h + ring_r, ring_r * 0.35, fill=fill)
    c.rect(x - h * 0.035, base - h + ring_r * 2, h * 0.07, h - ring_r * 2, fill=fill)
    for k, length in enumerate((0.18, 0.12, 0.2)):
        c.rect(x, base - h * (0.05 + k * 0.1), h * length, h * 0.06, fill=fill)


def clock(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    r = h * 0.45
    cy = base - r - h * 0.05
    p.shadow(x, base, r * 1.6)
    case = mix("#c89a48", pal.light, 0.15)
    c.circle(x, cy - r - h * 0.04, h * 0.05, fill="none", stroke=case, stroke_width=num(h * 0.025))
    c.circle(x, cy, r, fill=p.body(case, x))
    c.circle(x, cy, r * 0.86, fill=mix("#fbf6ea", pal.sky_low, 0.2))
    for k in range(12):
        a = math.tau * k / 12
        c.line(
            x + math.cos(a) * r * 0.7,
            cy + math.sin(a) * r * 0.7,
            x + math.cos(a) * r * 0.8,
            cy + math.sin(a) * r * 0.8,
            stroke=pal.ink,
            stroke_width=num(h * 0.015),
        )
    hands = (p.rng.uniform(0, math.tau), 0.45, 0.03), (p.rng.uniform(0, math.tau), 0.68, 0.018)
    for angle, length, width in hands:
        end = (x + math.cos(angle) * r * length, cy + math.sin(angle) * r * length)
        c.line(x, cy, *end, stroke=pal.ink, stroke_width=num(h * width), stroke_linecap="round")
    c.circle(x, cy, h * 0.02, fill=pal.accent)


def lantern(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 0.42
    p.halo(x, base - h * 0.45, h * 1.1, strength=0.6)
    metal = mix("#3a3030", pal.ink, 0.3)
    c.path(
        f"M{num(x - h * 0.08)} {num(base - h)} a{num(h * 0.08)} {num(h * 0.08)} 0 0 1 {num(h * 0.16)} 0",
        fill="none",
        stroke=metal,
        stroke_width=num(h * 0.025),
    )
    c.polygon([(x - w * 0.55, base - h * 0.8), (x, base - h * 0.96), (x + w * 0.55, base - h * 0.8)], fill=metal)
    c.rect(
        x - w / 2,
        base - h * 0.8,
        w,
        h * 0.68,
        fill=c.radial([(0, "#ffffff"), (0.5, pal.light), (1, mix(pal.light, pal.accent, 0.5))]),
    )
    for dx in (-0.5, 0, 0.5):
        c.rect(x + dx * w - h * 0.012, base - h * 0.8, h * 0.024, h * 0.68, fill=metal)
    c.rect(x - w * 0.6, base - h * 0.14, w * 1.2, h * 0.14, fill=metal, rx=2)


def balloon(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    r = h * 0.36
    cy = base - h + r
    colors = (pal.accent, mix(pal.accent2, "#ffffff", 0.3))
    envelope = f"M{num(x - r)} {num(cy)} A{num(r)} {num(r)} 0 0 1 {num(x + r)} {num(cy)} C{num(x + r)} {num(cy + r * 0.8)} {num(x + r * 0.3)} {num(cy + r * 1.2)} {num(x + r * 0.2)} {num(cy + r * 1.45)} L{num(x - r * 0.2)} {num(cy + r * 1.45)} C{num(x - r * 0.3)} {num(cy + r * 1.2)} {num(x - r)} {num(cy + r * 0.8)} {num(x - r)} {num(cy)}Z"
    clip = c.clip(f'<path d="{envelope}"/>')
    c.path(envelope, fill=colors[0])
    c.begin(clip_path=clip)
    for k in range(-3, 4, 2):
        c.ellipse(x + k * r * 0.28, cy + r * 0.2, r * 0.14, r * 1.5, fill=colors[1])
    c.rect(x - r, cy - r, 2 * r, 3 * r, fill=p.body("#808080", x), opacity=0.35)
    c.end()
    basket_y = cy + r * 1.7
    for dx in (-0.18, 0.18):
        c.line(x + dx * r, cy + r * 1.45, x + dx * r * 0.8, basket_y, stroke=pal.ink, stroke_width=1)
    c.rect(x - r * 0.2, basket_y, r * 0.4, r * 0.28, fill=mix("#8a6030", pal.ink, 0.2), rx=2)


def staircase(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    steps = 9
    stone = mix("#e8e0d0", pal.sky_low, 0.3)
    side = 1 if p.rng.chance(0.5) else -1
    run, rise = h * 0.12, h / steps
    for k in range(steps):
        sx = x - side * h * 0.5 + side * k * run
        sy = base - k * rise
        c.polygon(
            [(sx, sy), (sx + side * run, sy), (sx + side * run, sy - rise), (sx, sy - rise)], fill=p.body(stone, sx)
        )
        c.rect(min(sx, sx + side * run), sy - rise, run, rise * 0.18, fill=mix(stone, "#ffffff", 0.4))
        c.polygon(
            [(sx, sy), (sx + side * run, sy), (sx + side * run, sy + rise * 0.9), (sx, sy + rise * 0.9)],
            fill=mix(stone, pal.ink, 0.45),
        )


def book(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.5
    p.shadow(x, base, w)
    cover = mix(pal.accent, pal.ink, 0.2)
    c.path(
        f"M{num(x - w / 2)} {num(base - h * 0.15)} L{num(x)} {num(base)} L{num(x + w / 2)} {num(base - h * 0.15)} L{num(x + w / 2)} {num(base - h * 0.08)} L{num(x)} {num(base + h * 0.08)} L{num(x - w / 2)} {num(base - h * 0.08)}Z",
        fill=cover,
    )
    paper = mix("#fbf5e6", pal.sky_low, 0.2)
    for side in (-1, 1):
        c.path(
            f"M{num(x)} {num(base - h * 0.02)} C{num(x + side * w * 0.15)} {num(base - h * 0.35)} {num(x + side * w * 0.35)} {num(base - h * 0.3)} {num(x + side * w * 0.48)} {num(base - h * 0.45)} "
            f"L{num(x + side * w * 0.48)} {num(base - h * 0.17)} C{num(x + side * w * 0.35)} {num(base - h * 0.05)} {num(x + side * w * 0.15)} {num(base - h * 0.1)} {num(x)} {num(base + h * 0.04)}Z",
            fill=p.body(paper, x + side * w * 0.25, 0.6),
        )
        for k in range(5):
            y = base - h * (0.12 + k * 0.05)
            c.line(
                x + side * w * 0.1,
                y - h * 0.08 + k * 0.5,
                x + side * w * 0.4,
                y - h * 0.16,
                stroke=pal.ink,
                stroke_width=0.8,
                opacity=0.25,
            )


def figure(p: Paint, x: float, base: float, h: float) -> None:
    """A small person in a coat, seen from behind or aside — a stand-in for the viewer."""
    c, pal = p.c, p.pal
    coat = pal.accent
    p.shadow(x, base, h * 0.5)
    c.rect(x - h * 0.07, base - h * 0.3, h * 0.05, h * 0.3, fill=pal.ink)
    c.rect(x + h * 0.02, base - h * 0.3, h * 0.05, h * 0.3, fill=pal.ink)
    c.path(
        f"M{num(x - h * 0.16)} {num(base - h * 0.22)} L{num(x - h * 0.1)} {num(base - h * 0.72)} Q{num(x)} {num(base - h * 0.78)} {num(x + h * 0.1)} {num(base - h * 0.72)} L{num(x + h * 0.16)} {num(base - h * 0.22)}Z",
        fill=p.body(coat, x),
    )
    c.circle(x, base - h * 0.84, h * 0.11, fill=p.body(pal.skin, x))
    c.path(
        f"M{num(x - h * 0.12)} {num(base - h * 0.86)} Q{num(x)} {num(base - h * 1.02)} {num(x + h * 0.12)} {num(base - h * 0.86)}Z",
        fill=mix("#3a2418", pal.ink, 0.3),
    )


# ------------------------------------------------------------------ creatures


def whale(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    L = h * 2.6
    body = mix("#4a6a8a", pal.water, 0.4)
    belly = mix(body, "#f0f0f0", 0.55)
    top = base - h
    outline = (
        f"M{num(x - L * 0.5)} {num(base - h * 0.5)} C{num(x - L * 0.48)} {num(top - h * 0.05)} {num(x + L * 0.1)} {num(top)} {num(x + L * 0.32)} {num(base - h * 0.55)} "
        f"C{num(x + L * 0.4)} {num(base - h * 0.5)} {num(x + L * 0.44)} {num(base - h * 0.7)} {num(x + L * 0.52)} {num(base - h * 0.85)} "
        f"C{num(x + L * 0.5)} {num(base - h * 0.55)} {num(x + L * 0.58)} {num(base - h * 0.45)} {num(x + L * 0.6)} {num(base - h * 0.35)} "
        f"C{num(x + L * 0.5)} {num(base - h * 0.38)} {num(x + L * 0.42)} {num(base - h * 0.3)} {num(x + L * 0.3)} {num(base - h * 0.22)} "
        f"C{num(x)} {num(base)} {num(x - L * 0.45)} {num(base)} {num(x - L * 0.5)} {num(base - h * 0.5)}Z"
    )
    c.path(outline, fill=p.vertical(mix(body, pal.light, 0.2), mix(body, pal.ink, 0.4)))
    c.path(
        f"M{num(x - L * 0.46)} {num(base - h * 0.35)} C{num(x - L * 0.3)} {num(base - h * 0.05)} {num(x + L * 0.1)} {num(base - h * 0.05)} {num(x + L * 0.28)} {num(base - h * 0.25)} "
        f"C{num(x)} {num(base - h * 0.28)} {num(x - L * 0.3)} {num(base - h * 0.3)} {num(x - L * 0.46)} {num(base - h * 0.35)}Z",
        fill=belly,
        opacity=0.8,
    )
    c.path(
        f"M{num(x - L * 0.15)} {num(base - h * 0.22)} q{num(L * 0.05)} {num(h * 0.35)} {num(L * 0.14)} {num(h * 0.3)} q{num(-L * 0.04)} {num(-h * 0.2)} {num(-L * 0.02)} {num(-h * 0.32)}Z",
        fill=mix(body, pal.ink, 0.35),
    )
    c.circle(x - L * 0.36, base - h * 0.45, h * 0.035, fill=pal.ink)


def fish(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    L = h * 1.6
    gold = mix("#f08a24", pal.accent, 0.3)
    cy = base - h / 2
    c.path(
        f"M{num(x + L * 0.1)} {num(cy)} C{num(x + L * 0.35)} {num(cy - h * 0.6)} {num(x + L * 0.6)} {num(cy - h * 0.3)} {num(x + L * 0.5)} {num(cy)} C{num(x + L * 0.6)} {num(cy + h * 0.35)} {num(x + L * 0.35)} {num(cy + h * 0.6)} {num(x + L * 0.1)} {num(cy)}Z",
        fill=mix(gold, "#ffffff", 0.25),
        opacity=0.85,
    )
    c.ellipse(x - L * 0.08, cy, L * 0.3, h * 0.3, fill=p.body(gold, x))
    c.path(
        f"M{num(x - L * 0.05)} {num(cy - h * 0.28)} q{num(L * 0.1)} {num(-h * 0.25)} {num(L * 0.2)} {num(-h * 0.05)}Z",
        fill=mix(gold, pal.ink, 0.2),
    )
    c.circle(x - L * 0.26, cy - h * 0.06, h * 0.05, fill="#ffffff")
    c.circle(x - L * 0.265, cy - h * 0.06, h * 0.025, fill=pal.ink)


def bird(p: Paint, x: float, base: float, h: float) -> None:
    """A white crane in flight."""
    c, pal = p.c, p.pal
    white = mix("#ffffff", pal.sky_low, 0.15)
    cy = base - h * 0.5
    span = h * 1.8
    c.path(
        f"M{num(x)} {num(cy)} C{num(x - span * 0.2)} {num(cy - h * 0.5)} {num(x - span * 0.4)} {num(cy - h * 0.45)} {num(x - span * 0.5)} {num(cy - h * 0.6)} "
        f"C{num(x - span * 0.35)} {num(cy - h * 0.2)} {num(x - span * 0.2)} {num(cy - h * 0.05)} {num(x)} {num(cy + h * 0.08)}Z",
        fill=p.body(white, x - span * 0.3, 0.6),
    )
    c.path(
        f"M{num(x)} {num(cy)} C{num(x + span * 0.2)} {num(cy - h * 0.45)} {num(x + span * 0.38)} {num(cy - h * 0.4)} {num(x + span * 0.5)} {num(cy - h * 0.5)} "
        f"C{num(x + span * 0.35)} {num(cy - h * 0.15)} {num(x + span * 0.2)} {num(cy)} {num(x)} {num(cy + h * 0.08)}Z",
        fill=p.body(white, x + span * 0.3, 0.6),
    )
    c.ellipse(x, cy + h * 0.05, span * 0.14, h * 0.08, fill=white)
    c.path(
        f"M{num(x - span * 0.12)} {num(cy + h * 0.04)} l{num(-span * 0.16)} {num(-h * 0.08)}",
        stroke=white,
        stroke_width=num(h * 0.05),
        stroke_linecap="round",
    )
    c.path(
        f"M{num(x - span * 0.28)} {num(cy - h * 0.04)} l{num(-span * 0.06)} {num(h * 0.02)}",
        stroke=pal.accent,
        stroke_width=num(h * 0.03),
    )
    c.circle(x - span * 0.27, cy - h * 0.05, h * 0.03, fill=pal.accent)
    c.path(
        f"M{num(x + span * 0.12)} {num(cy + h * 0.06)} l{num(span * 0.2)} {num(h * 0.06)}",
        stroke=pal.ink,
        stroke_width=num(h * 0.02),
    )


def boat(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 0.9
    hull = mix("#8a5a32", pal.accent, 0.25)
    c.path(
        f"M{num(x - w / 2)} {num(base - h * 0.22)} L{num(x + w / 2)} {num(base - h * 0.22)} Q{num(x + w * 0.38)} {num(base)} {num(x + w * 0.25)} {num(base)} L{num(x - w * 0.3)} {num(base)} Q{num(x - w * 0.42)} {num(base)} {num(x - w / 2)} {num(base - h * 0.22)}Z",
        fill=p.body(hull, x),
    )
    c.rect(x - h * 0.012, base - h, h * 0.024, h * 0.78, fill=pal.ink)
    sail = mix("#fbf3e4", pal.sky_low, 0.2)
    c.path(
        f"M{num(x + h * 0.02)} {num(base - h * 0.96)} Q{num(x + w * 0.5)} {num(base - h * 0.6)} {num(x + w * 0.42)} {num(base - h * 0.28)} L{num(x + h * 0.02)} {num(base - h * 0.28)}Z",
        fill=p.body(sail, x + w * 0.2, 0.6),
    )
    c.path(
        f"M{num(x - h * 0.02)} {num(base - h * 0.82)} Q{num(x - w * 0.3)} {num(base - h * 0.5)} {num(x - w * 0.34)} {num(base - h * 0.3)} L{num(x - h * 0.02)} {num(base - h * 0.3)}Z",
        fill=p.body(sail, x - w * 0.2, 0.6),
    )
    c.polygon([(x, base - h * 1.08), (x + h * 0.12, base - h * 1.03), (x, base - h * 0.98)], fill=pal.accent)


def star(p: Paint, x: float, base: float, h: float) -> None:
    """A fallen star, glowing."""
    c, pal = p.c, p.pal
    p.halo(x, base - h / 2, h * 1.3, strength=0.7)
    c.polygon(
        star_points(x, base - h / 2, h / 2, h * 0.22),
        fill=c.radial([(0, "#ffffff"), (0.6, pal.light), (1, mix(pal.light, pal.accent, 0.5))]),
    )


# ------------------------------------------------------------------ the second set
#
# Shapes here are mostly laid out in units of the height: `_at` reads points written as in SVG's
# ``points`` attribute, "dx,dy dx,dy …" — across from x (mirrored by ``flip``), up from base.


def _at(x: float, base: float, h: float, points: str, flip: float = 1) -> list[Point]:
    pairs = (pair.split(",") for pair in points.split())
    return [(x + flip * float(dx) * h, base - float(dy) * h) for dx, dy in pairs]


def _blob(p: Paint, x: float, base: float, h: float, points: str, *, fill: str, flip: float = 1) -> None:
    """A smooth closed shape through `_at` points."""
    p.c.path(smooth(_at(x, base, h, points, flip), closed=True), fill=fill)


def _xy(x: float, y: float) -> str:
    return f"{num(x)} {num(y)}"


def _along(curve: list[Point], t: float, off: float = 0) -> Point:
    """The point at ``t`` on the cubic Bézier ``curve``, moved ``off`` along its normal."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = curve
    u = 1 - t
    px = u**3 * ax + 3 * u * u * t * bx + 3 * u * t * t * cx + t**3 * dx
    py = u**3 * ay + 3 * u * u * t * by + 3 * u * t * t * cy + t**3 * dy
    tx = 3 * u * u * (bx - ax) + 6 * u * t * (cx - bx) + 3 * t * t * (dx - cx)
    ty = 3 * u * u * (by - ay) + 6 * u * t * (cy - by) + 3 * t * t * (dy - cy)
    n = math.hypot(tx, ty) or 1
    return px - ty / n * off, py + tx / n * off


def umbrella(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, top, rim, r = h * 0.95, base - h, base - h * 0.58, h * 0.07
    p.shadow(x, base, w * 0.8)
    handle = mix("#6a4028", pal.ink, 0.2)
    crook = f"M{_xy(x, rim)} V{num(base - r - h * 0.02)} a{num(r)} {num(r)} 0 0 1 {num(-2 * r)} 0"
    c.path(crook, fill="none", stroke=handle, stroke_width=num(h * 0.03), stroke_linecap="round")
    cloth = (mix(pal.accent, "#2a4a8a", 0.2), mix(pal.accent, "#ffffff", 0.55))
    rims = [(x - w / 2 + w * k / 5, rim + math.sin(math.pi * k / 5) * h * 0.05) for k in range(6)]
    for k in range(5):
        (x0, y0), (x1, y1) = rims[k], rims[k + 1]
        rib0, rib1, hem = (
            (x0, top + (y0 - top) * 0.12),
            (x1, top + (y1 - top) * 0.12),
            ((x0 + x1) / 2, (y0 + y1) / 2 - h * 0.07),
        )
        panel = f"M{_xy(x, top)} Q{_xy(*rib0)} {_xy(x0, y0)} Q{_xy(*hem)} {_xy(x1, y1)} Q{_xy(*rib1)} {_xy(x, top)}Z"
        c.path(panel, fill=p.body(cloth[k % 2], (x0 + x1) / 2, 0.8))
    c.rect(x - h * 0.012, top - h * 0.06, h * 0.024, h * 0.07, fill=handle, rx=num(h * 0.01))


def chair(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, dx, dy = h * 0.42, h * 0.16, h * 0.09
    x0, seat, leg = x - (w + dx) / 2, base - h * 0.45, h * 0.04
    wood = mix("#9a6438", pal.accent, 0.15)
    dark = mix(wood, pal.ink, 0.45)
    p.shadow(x, base - dy / 2, w * 1.3)
    for bx in (x0 + dx, x0 + dx + w - leg):
        c.rect(bx, base - h, leg, h - dy, fill=p.body(wood, bx), rx=num(leg * 0.3))
    c.rect(x0 + dx, base - h * 0.98, w, h * 0.11, fill=p.body(wood, x0 + dx + w / 2), rx=num(h * 0.02))
    c.rect(x0 + dx, base - h * 0.76, w, h * 0.04, fill=dark)
    for k in (1, 2, 3):
        c.rect(x0 + dx + w * k / 4 - leg * 0.3, base - h * 0.88, leg * 0.6, h * 0.12, fill=dark)
    back, edge = seat - dy, h * 0.05
    c.polygon([(x0, seat), (x0 + w, seat), (x0 + w + dx, back), (x0 + dx, back)], fill=mix(wood, pal.light, 0.25))
    c.polygon([(x0 + w, seat), (x0 + w + dx, back), (x0 + w + dx, back + edge), (x0 + w, seat + edge)], fill=dark)
    c.rect(x0, seat, w, edge, fill=p.body(wood, x))
    c.rect(x0 + leg, base - h * 0.16, w - 2 * leg, h * 0.025, fill=dark)
    for fx in (x0, x0 + w - leg):
        c.rect(fx, seat, leg, base - seat, fill=p.body(wood, fx), rx=num(leg * 0.3))


def birdcage(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, bottom, shoulder, top = h * 0.56, base - h * 0.08, base - h * 0.58, base - h * 0.86
    brass, bar = mix("#b8903c", pal.light, 0.1), num(h * 0.014)
    p.shadow(x, base, w * 1.2)
    dome = f"M{_xy(x - w / 2, bottom)} V{num(shoulder)} Q{_xy(x - w / 2, top)} {_xy(x, top)} Q{_xy(x + w / 2, top)} {_xy(x + w / 2, shoulder)} V{num(bottom)}Z"
    c.path(dome, fill=mix(pal.light, "#ffffff", 0.5), opacity=0.15)
    c.rect(x - w * 0.45, base - h * 0.348, w * 0.9, h * 0.016, fill=mix("#7a5030", pal.ink, 0.2))
    dl, dt, dw, dh = x + w * 0.04, base - h * 0.44, w * 0.3, h * 0.3
    door = f'<rect x="{num(dl)}" y="{num(dt)}" width="{num(dw)}" height="{num(dh)}" fill="#000"/>'
    c.begin(mask=c.mask(f'<rect width="{W}" height="{H}" fill="#fff"/>{door}'))
    for k in range(9):
        u, bx = -1 + k / 4, x + (-1 + k / 4) * w / 2
        tone = mix(brass, pal.light if (u < 0) == (p.light[0] < x) else pal.ink, 0.35 * abs(u))
        wire = f"M{_xy(bx, bottom)} V{num(shoulder)} Q{_xy(bx, top)} {_xy(x, top)}"
        c.path(wire, fill="none", stroke=tone, stroke_width=bar)
    for y in (shoulder, base - h * 0.3):
        c.rect(x - w / 2 - h * 0.008, y - h * 0.01, w + h * 0.016, h * 0.022, fill=p.body(brass, x), rx=num(h * 0.01))
    c.end()
    c.rect(dl, dt, dw, dh, fill="none", stroke=brass, stroke_width=num(h * 0.016))
    hinge, swing, sag = dl + dw, w * 0.32, h * 0.05
    leaf = [(hinge, dt), (hinge + swing, dt + sag), (hinge + swing, dt + dh + sag), (hinge, dt + dh)]
    c.polygon(leaf, fill=mix(brass, "#ffffff", 0.3), fill_opacity=0.25, stroke=brass, stroke_width=bar)
    for bx, by in ((hinge + swing * t, dt + sag * t) for t in (0.33, 0.66)):
        c.line(bx, by, bx, by + dh, stroke=brass, stroke_width=num(h * 0.01))
    c.rect(x - w / 2 - h * 0.03, bottom, w + h * 0.06, base - bottom, fill=p.body(brass, x), rx=num(h * 0.015))
    c.circle(x, top - h * 0.06, h * 0.045, fill="none", stroke=brass, stroke_width=num(h * 0.018))
    c.circle(x, top - h * 0.005, h * 0.025, fill=p.body(brass, x))


def bottle(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, nw, r = h * 0.38, h * 0.12, h * 0.05
    sh, neck = base - h * 0.56, base - h * 0.86
    p.shadow(x, base, w * 1.3)
    glass = mix(pal.water, "#8fd8b0", 0.45)
    right = f"C{_xy(x + w / 2, sh - h * 0.12)} {_xy(x + nw / 2, sh - h * 0.1)} {_xy(x + nw / 2, sh - h * 0.2)}"
    left = f"C{_xy(x - nw / 2, sh - h * 0.1)} {_xy(x - w / 2, sh - h * 0.12)} {_xy(x - w / 2, sh)}"
    outline = (
        f"M{_xy(x - w / 2 + r, base)} H{num(x + w / 2 - r)} Q{_xy(x + w / 2, base)} {_xy(x + w / 2, base - r)} V{num(sh)} "
        f"{right} V{num(neck)} H{num(x - nw / 2)} V{num(sh - h * 0.2)} {left} V{num(base - r)} "
        f"Q{_xy(x - w / 2, base)} {_xy(x - w / 2 + r, base)}Z"
    )
    edge, plug = mix(glass, "#ffffff", 0.5), neck + h * 0.03
    c.path(outline, fill=p.body(glass, x), fill_opacity=0.55, stroke=edge, stroke_width=num(h * 0.008))
    cork = [(x - nw * 0.42, plug), (x - nw * 0.55, base - h), (x + nw * 0.55, base - h), (x + nw * 0.42, plug)]
    c.polygon(cork, fill=p.body(mix("#c8955a", pal.accent, 0.1), x))
    c.rect(x - nw * 0.62, neck, nw * 1.24, h * 0.035, fill=p.body(mix(glass, pal.ink, 0.15), x), rx=num(h * 0.012))
    gleam = x + (-1 if p.light[0] < x else 1) * w * 0.3 - h * 0.015
    c.rect(gleam, sh + h * 0.02, h * 0.03, base - sh - h * 0.1, fill="#ffffff", opacity=0.4, rx=num(h * 0.015))


def hourglass(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, gw, nw, plate = h * 0.56, h * 0.42, h * 0.04, h * 0.07
    top, bot = base - h + plate, base - plate
    mid = (top + bot) / 2
    p.shadow(x, base, w * 1.2)
    wood = mix("#7a4a2a", pal.accent, 0.15)
    up, down = (mid - top) * 0.6, (mid - top) * 0.35
    glass = (
        f"M{_xy(x - gw / 2, top)} H{num(x + gw / 2)} C{_xy(x + gw / 2, top + up)} {_xy(x + nw / 2, mid - down)} {_xy(x + nw / 2, mid)} "
        f"C{_xy(x + nw / 2, mid + down)} {_xy(x + gw / 2, bot - up)} {_xy(x + gw / 2, bot)} H{num(x - gw / 2)} "
        f"C{_xy(x - gw / 2, bot - up)} {_xy(x - nw / 2, mid + down)} {_xy(x - nw / 2, mid)} "
        f"C{_xy(x - nw / 2, mid - down)} {_xy(x - gw / 2, top + up)} {_xy(x - gw / 2, top)}Z"
    )
    c.path(glass, fill=mix(pal.light, "#ffffff", 0.5), opacity=0.25)
    sand = mix("#e0b060", pal.light, 0.2)
    c.begin(clip_path=c.clip(f'<path d="{glass}"/>'))
    c.rect(x - gw / 2, mid - (mid - top) * 0.45, gw, (mid - top) * 0.45, fill=p.body(sand, x))
    c.path(f"M{_xy(x - gw / 2, bot)} Q{_xy(x, bot - (bot - mid) * 1.0)} {_xy(x + gw / 2, bot)}Z", fill=p.body(sand, x))
    c.end()
    c.rect(x - h * 0.005, mid, h * 0.01, (bot - mid) * 0.55, fill=sand)
    c.path(glass, fill="none", stroke=mix(pal.light, "#ffffff", 0.6), stroke_width=num(h * 0.008), opacity=0.7)
    for px in (x - w / 2 + h * 0.02, x + w / 2 - h * 0.055):
        c.rect(px, top, h * 0.035, bot - top, fill=p.body(wood, px), rx=num(h * 0.015))
    for y in (base - h, bot):
        c.rect(x - w / 2, y, w, plate, fill=p.body(wood, x), rx=num(h * 0.02))


def candle(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    cw, top, fh, ft = h * 0.24, base - h * 0.64, h * 0.3, base - h
    p.halo(x, base - h * 0.85, h * 0.95, strength=0.6)
    p.shadow(x, base, h * 0.4)
    c.ellipse(x, base - h * 0.03, h * 0.22, h * 0.035, fill=p.body(mix("#c89a48", pal.light, 0.15), x))
    wax = mix("#f4ead6", pal.light, 0.2)
    c.rect(x - cw / 2, top, cw, base - top - h * 0.04, fill=p.body(wax, x))
    drips = f"a{num(h * 0.02)} {num(h * 0.02)} 0 0 0 {num(h * 0.04)} 0 v{num(-h * 0.07)} a{num(h * 0.015)} {num(h * 0.015)} 0 0 0 {num(h * 0.03)} 0"
    c.path(f"M{_xy(x - cw / 2, top)} v{num(h * 0.12)} {drips} V{num(top)}Z", fill=mix(wax, "#ffffff", 0.4))
    c.ellipse(x, top, cw / 2, h * 0.025, fill=mix(wax, pal.light, 0.5))
    c.line(x, top, x, top - h * 0.05, stroke=pal.ink, stroke_width=num(h * 0.012))
    flame = (
        f"M{_xy(x, ft)} C{_xy(x + fh * 0.04, ft + fh * 0.3)} {_xy(x + fh * 0.2, ft + fh * 0.5)} {_xy(x + fh * 0.2, ft + fh * 0.72)} "
        f"A{num(fh * 0.2)} {num(fh * 0.22)} 0 0 1 {_xy(x - fh * 0.2, ft + fh * 0.72)} "
        f"C{_xy(x - fh * 0.2, ft + fh * 0.5)} {_xy(x - fh * 0.04, ft + fh * 0.3)} {_xy(x, ft)}Z"
    )
    c.path(flame, fill=c.radial([(0, "#ffffff"), (0.45, pal.light), (1, mix(pal.light, "#ff7a20", 0.55))], cy=0.7))


def bicycle(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    r, d = h * 0.37, h * 0.64
    cy = base - r
    p.shadow(x, base, h * 1.5)
    tyre, rim, spoke = mix("#2a2a2a", pal.ink, 0.4), mix("#c8c8c8", pal.light, 0.2), num(h * 0.005)
    stroke = {"fill": "none", "stroke_linecap": "round"}
    for hx in (x - d, x + d):
        for a in (math.pi * k / 6 for k in range(12)):
            c.line(hx, cy, hx + math.cos(a) * r * 0.88, cy + math.sin(a) * r * 0.88, stroke=rim, stroke_width=spoke)
        c.circle(hx, cy, r * 0.94, fill="none", stroke=tyre, stroke_width=num(r * 0.12))
        c.circle(hx, cy, r * 0.86, fill="none", stroke=rim, stroke_width=num(r * 0.04))
        c.circle(hx, cy, r * 0.06, fill=rim)
    bb, seat = (x - d * 0.08, cy + r * 0.05), (x - d * 0.3, cy - r * 1.2)
    head, neck = (x + d * 0.55, cy - r * 1.22), (x + d * 0.62, cy - r * 0.88)
    frame = f"M{_xy(x - d, cy)} L{_xy(*bb)} L{_xy(*neck)} L{_xy(*head)} L{_xy(*seat)} L{_xy(*bb)} M{_xy(*seat)} L{_xy(x - d, cy)}"
    fork = f"M{_xy(*head)} L{_xy(*neck)} L{_xy(x + d, cy)}"
    paint = mix(pal.accent, "#b83a3a", 0.3)
    c.path(f"{frame} {fork}", stroke=paint, stroke_width=num(r * 0.1), stroke_linejoin="round", **stroke)
    bars = f"M{_xy(*seat)} L{_xy(x - d * 0.34, cy - r * 1.42)} M{_xy(*head)} L{_xy(x + d * 0.52, cy - r * 1.5)} q{num(-r * 0.2)} {num(-r * 0.1)} {num(-r * 0.4)} {num(r * 0.06)}"
    c.path(bars, stroke=tyre, stroke_width=num(r * 0.08), **stroke)
    saddle = f"M{_xy(x - d * 0.34 - r * 0.22, cy - r * 1.46)} q{num(r * 0.22)} {num(-r * 0.1)} {num(r * 0.42)} 0 q{num(-r * 0.14)} {num(r * 0.1)} {num(-r * 0.42)} 0Z"
    c.path(saddle, fill=tyre, stroke=tyre, stroke_width=num(r * 0.06))
    c.circle(bb[0], bb[1], r * 0.2, fill=p.body(rim, bb[0]), stroke=tyre, stroke_width=num(r * 0.03))
    c.line(*bb, bb[0] + r * 0.22, bb[1] + r * 0.3, stroke=tyre, stroke_width=num(r * 0.07), stroke_linecap="round")


def kite(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    top, left, right, low, mid = _at(x, base, h, "0.06,1 -0.24,0.8 0.25,0.86 -0.03,0.44 0.03,0.83")
    colors = (pal.accent, mix(pal.accent2, "#ffffff", 0.25))
    for k, (a, b) in enumerate(((top, left), (top, right), (low, right), (low, left))):
        c.polygon([a, b, mid], fill=p.body(colors[k % 2], (a[0] + b[0]) / 2, 0.7))
    spars = f"M{_xy(*top)} L{_xy(*low)} M{_xy(*left)} L{_xy(*right)}"
    c.path(spars, stroke=mix(pal.ink, "#5a3a20", 0.3), stroke_width=num(h * 0.008), opacity=0.8)
    tail, s = _at(x, base, h, "-0.03,0.44 0.07,0.33 -0.06,0.22 0.05,0.1 0,0"), h * 0.035
    c.path(smooth(tail), fill="none", stroke=pal.ink, stroke_width=num(h * 0.006), opacity=0.8)
    for k, (tx, ty) in enumerate(tail[1:4]):
        for side in (-1, 1):
            c.polygon([(tx, ty), (tx + side * s, ty - s * 0.6), (tx + side * s, ty + s * 0.6)], fill=colors[k % 2])


def owl(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.6)
    plume = mix("#8a6a4a", pal.near, 0.2)
    dark, pale = mix(plume, pal.ink, 0.45), mix(plume, "#f4e8d4", 0.6)
    for s in (-1, 1):
        c.polygon(_at(x, base, h, "0.23,0.74 0.3,1 0.11,0.84", s), fill=dark)
    body = "-0.22,0.02 -0.31,0.3 -0.28,0.62 -0.2,0.82 0,0.87 0.2,0.82 0.28,0.62 0.31,0.3 0.22,0.02 0,-0.005"
    _blob(p, x, base, h, body, fill=p.body(plume, x))
    c.ellipse(x, base - h * 0.3, h * 0.17, h * 0.24, fill=pale)
    for row in range(3):
        for k in (-1, 0, 1):
            vx, vy = x + k * h * 0.08 + (row % 2) * h * 0.04 - h * 0.02, base - h * (0.42 - row * 0.1)
            vee = f"M{_xy(vx - h * 0.025, vy)} l{num(h * 0.025)} {num(h * 0.02)} l{num(h * 0.025)} {num(-h * 0.02)}"
            c.path(vee, fill="none", stroke=dark, stroke_width=num(h * 0.012), opacity=0.6)
    wing = "0.29,0.58 0.33,0.3 0.24,0.05 0.17,0.25 0.19,0.48"
    for s in (-1, 1):
        _blob(p, x, base, h, wing, fill=p.body(dark, x + s * h * 0.25, 0.6), flip=s)
        ex, ey = x + s * h * 0.11, base - h * 0.66
        for r, eye in ((0.12, pale), (0.07, mix(pal.light, "#f0a020", 0.55)), (0.04, pal.ink)):
            c.circle(ex, ey, h * r, fill=eye)
        c.circle(ex - h * 0.015, ey - h * 0.015, h * 0.012, fill="#ffffff")
        c.ellipse(x + s * h * 0.08, base - h * 0.01, h * 0.05, h * 0.02, fill=mix("#d89a40", pal.ink, 0.2))
    c.polygon(_at(x, base, h, "-0.03,0.6 0.03,0.6 0,0.51"), fill=mix("#d8a040", pal.ink, 0.3))


def fox(p: Paint, x: float, base: float, h: float) -> None:
    """Sitting in profile, facing left, its brush along the ground behind."""
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.7)
    fur = mix("#d8702a", pal.accent, 0.15)
    white, dark = mix("#f6efe4", pal.sky_low, 0.15), mix("#3a2218", pal.ink, 0.3)
    brush = "0.1,0.1 0.3,0.02 0.46,0.05 0.52,0.14 0.42,0.14 0.26,0.12 0.14,0.2"
    _blob(p, x, base, h, brush, fill=p.body(fur, x + h * 0.3))
    _blob(p, x, base, h, "0.47,0.045 0.52,0.14 0.44,0.14 0.42,0.08", fill=white)
    c.polygon(_at(x, base, h, "0.02,0.8 0.08,0.96 0.1,0.77"), fill=dark)
    body = "-0.15,0.01 -0.17,0.25 -0.18,0.5 -0.12,0.64 0.04,0.64 0.1,0.45 0.22,0.28 0.25,0.1 0.16,0 0,-0.005"
    _blob(p, x, base, h, body, fill=p.body(fur, x))
    c.ellipse(x + h * 0.12, base - h * 0.15, h * 0.12, h * 0.14, fill=p.body(mix(fur, pal.ink, 0.15), x + h * 0.12))
    for lx in (-0.155, -0.09):
        c.rect(x + lx * h, base - h * 0.4, h * 0.05, h * 0.4, fill=p.body(fur, x + lx * h), rx=num(h * 0.02))
        c.rect(x + lx * h, base - h * 0.15, h * 0.05, h * 0.15, fill=dark, rx=num(h * 0.02))
    _blob(p, x, base, h, "-0.18,0.48 -0.13,0.3 -0.1,0.45 -0.08,0.62 -0.16,0.62", fill=white)
    c.circle(x - h * 0.05, base - h * 0.73, h * 0.11, fill=p.body(fur, x))
    c.polygon(_at(x, base, h, "-0.12,0.8 -0.32,0.67 -0.1,0.63"), fill=fur)
    c.polygon(_at(x, base, h, "-0.32,0.67 -0.12,0.64 -0.02,0.66 -0.08,0.62 -0.2,0.64"), fill=white)
    c.polygon(_at(x, base, h, "-0.08,0.8 -0.05,0.98 0.03,0.81"), fill=p.body(fur, x))
    c.polygon(_at(x, base, h, "-0.06,0.82 -0.05,0.93 0,0.82"), fill=dark, opacity=0.6)
    c.circle(x - h * 0.315, base - h * 0.67, h * 0.018, fill=dark)
    c.ellipse(x - h * 0.1, base - h * 0.74, h * 0.018, h * 0.012, fill=dark)


def rabbit(p: Paint, x: float, base: float, h: float) -> None:
    """Sitting in profile, facing left, ears up."""
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.6)
    fur = mix("#b89a80", pal.near, 0.15)
    dark, pink = mix(fur, pal.ink, 0.3), mix("#e8a0a0", pal.light, 0.2)
    far_ear, ear = f"rotate(18 {_xy(x + h * 0.02, base - h * 0.8)})", f"rotate(8 {_xy(x - h * 0.05, base - h * 0.8)})"
    c.ellipse(x + h * 0.02, base - h * 0.8, h * 0.04, h * 0.2, fill=dark, transform=far_ear)
    c.circle(x + h * 0.25, base - h * 0.13, h * 0.055, fill=mix("#ffffff", pal.sky_low, 0.15))
    body = "-0.15,0 -0.2,0.2 -0.12,0.42 0,0.5 0.15,0.42 0.25,0.22 0.22,0.03 0.05,-0.005"
    _blob(p, x, base, h, body, fill=p.body(fur, x))
    c.ellipse(x + h * 0.1, base - h * 0.18, h * 0.13, h * 0.15, fill=p.body(fur, x + h * 0.1))
    c.ellipse(x + h * 0.04, base - h * 0.02, h * 0.14, h * 0.03, fill=dark)
    c.ellipse(x - h * 0.14, base - h * 0.02, h * 0.05, h * 0.025, fill=dark)
    hx, hy = x - h * 0.13, base - h * 0.55
    c.ellipse(x - h * 0.05, base - h * 0.8, h * 0.045, h * 0.21, fill=p.body(fur, x), transform=ear)
    c.ellipse(x - h * 0.05, base - h * 0.8, h * 0.02, h * 0.16, fill=pink, transform=ear)
    c.ellipse(hx, hy, h * 0.14, h * 0.11, fill=p.body(fur, hx), transform=f"rotate(-12 {_xy(hx, hy)})")
    c.circle(hx - h * 0.04, hy - h * 0.02, h * 0.022, fill=pal.ink)
    c.circle(hx - h * 0.046, hy - h * 0.026, h * 0.007, fill="#ffffff")
    c.circle(hx - h * 0.135, hy + h * 0.015, h * 0.015, fill=pink)


def snail(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 1.0)
    skin, shell = mix("#b8a890", pal.near, 0.2), mix("#c88a4a", pal.accent, 0.2)
    for stalk in ("-0.47,0.28 -0.5,0.56", "-0.53,0.26 -0.62,0.5"):
        (x0, y0), (x1, y1) = _at(x, base, h, stalk)
        c.line(x0, y0, x1, y1, stroke=mix(skin, pal.ink, 0.2), stroke_width=num(h * 0.025), stroke_linecap="round")
        c.circle(x1, y1, h * 0.025, fill=mix(skin, pal.ink, 0.35))
    foot = "0.62,0.01 0.4,0.1 -0.2,0.12 -0.42,0.3 -0.52,0.3 -0.58,0.18 -0.55,0.04 -0.4,0 0.2,-0.005"
    _blob(p, x, base, h, foot, fill=p.body(skin, x))
    cx, cy, r = x + h * 0.1, base - h * 0.55, h * 0.42
    c.circle(cx, cy, r, fill=p.body(shell, cx))
    turns = [(k * 0.35, r * 0.95 * k / 54) for k in range(1, 55)]
    coil = [(cx - h * 0.03 + rr * math.cos(a), cy - h * 0.02 - rr * math.sin(a)) for a, rr in turns]
    groove = mix(shell, pal.ink, 0.5)
    c.path(smooth(coil), fill="none", stroke=groove, stroke_width=num(h * 0.03), stroke_linecap="round")
    shine = smooth([(px + h * 0.01, py - h * 0.012) for px, py in coil])
    c.path(shine, fill="none", stroke=mix(shell, pal.light, 0.5), stroke_width=num(h * 0.01), opacity=0.6)


def elephant(p: Paint, x: float, base: float, h: float) -> None:
    """In profile, facing left, trunk down."""
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 1.1)
    grey = mix("#8c8c96", pal.near, 0.2)
    dark, nail = mix(grey, pal.ink, 0.35), mix(grey, "#f4ece0", 0.6)
    x += h * 0.04
    for lx in (-0.12, 0.42):
        c.rect(x + lx * h, base - h * 0.45, h * 0.13, h * 0.44, fill=dark, rx=num(h * 0.04))
    tail = f"M{_xy(x + h * 0.56, base - h * 0.66)} q{num(h * 0.05)} {num(h * 0.12)} {num(h * 0.03)} {num(h * 0.28)}"
    c.path(tail, fill="none", stroke=dark, stroke_width=num(h * 0.018))
    body = "-0.25,0.86 0.05,0.95 0.35,0.88 0.55,0.72 0.59,0.48 0.46,0.33 0.1,0.3 -0.2,0.34 -0.32,0.6"
    _blob(p, x, base, h, body, fill=p.body(grey, x))
    for lx in (-0.26, 0.3):
        c.rect(x + lx * h, base - h * 0.45, h * 0.14, h * 0.45, fill=p.body(grey, x + lx * h), rx=num(h * 0.04))
        for k in range(3):
            c.ellipse(x + (lx + 0.03 + k * 0.04) * h, base - h * 0.015, h * 0.017, h * 0.012, fill=nail)
    head = "-0.2,0.86 -0.36,0.98 -0.52,0.93 -0.6,0.78 -0.63,0.55 -0.64,0.3 -0.64,0.13 -0.69,0.06 -0.6,0.05 -0.56,0.17"
    _blob(p, x, base, h, f"{head} -0.55,0.4 -0.5,0.55 -0.38,0.5 -0.24,0.56", fill=p.body(grey, x - h * 0.4))
    tusk = f"M{_xy(x - h * 0.48, base - h * 0.54)} q{num(-h * 0.06)} {num(h * 0.1)} {num(-h * 0.2)} {num(h * 0.05)}"
    c.path(tusk, fill="none", stroke=mix("#f4ecd8", pal.light, 0.2), stroke_width=num(h * 0.04), stroke_linecap="round")
    ear = "-0.34,0.92 -0.12,0.95 -0.03,0.76 -0.07,0.5 -0.2,0.36 -0.3,0.46 -0.36,0.7"
    _blob(p, x, base, h, ear, fill=p.body(mix(grey, "#c89890", 0.2), x - h * 0.1, 1.3))
    c.circle(x - h * 0.47, base - h * 0.79, h * 0.02, fill=pal.ink)


def jellyfish(p: Paint, x: float, base: float, h: float) -> None:
    c, pal, rng = p.c, p.pal, p.rng
    w, top, rim = h * 0.5, base - h, base - h * 0.66
    pink = mix("#f08ad0", pal.accent2, 0.3)
    p.halo(x, base - h * 0.7, h * 0.6, color=mix(pink, "#ffffff", 0.4), strength=0.4)
    phase = rng.uniform(0, math.tau)
    for k in range(7):
        sx = x - w * 0.38 + w * 0.76 * k / 6
        pts = [(sx + math.sin(phase + k + j * 1.3) * h * 0.03, rim + (base - rim) * j / 5) for j in range(6)]
        c.path(smooth(pts), fill="none", stroke=mix(pink, "#ffffff", 0.3), stroke_width=num(h * 0.008), opacity=0.7)
    drop = (base - rim) * 0.75
    for k in (-1, 0, 1):  # the frilled mouth arms sway together
        arm = [(x + k * w * 0.17 + math.sin(phase + j * 1.2) * h * 0.035 * j / 4, rim + drop * j / 4) for j in range(5)]
        c.path(smooth(arm), fill="none", stroke=pink, stroke_width=num(h * 0.04), stroke_linecap="round", opacity=0.75)
    bell = f"M{_xy(x - w / 2, rim)} C{_xy(x - w / 2, top)} {_xy(x + w / 2, top)} {_xy(x + w / 2, rim)}"
    for k in range(6):  # the scalloped rim, right to left
        bell += f" Q{_xy(x + w / 2 - w * (k + 0.5) / 6, rim + h * 0.05)} {_xy(x + w / 2 - w * (k + 1) / 6, rim)}"
    glow = c.radial([(0, mix(pink, "#ffffff", 0.6)), (0.7, pink), (1, mix(pink, pal.ink, 0.3))], cy=0.3)
    c.path(bell + "Z", fill=glow, opacity=0.85)
    c.ellipse(x - w * 0.15, base - h * 0.85, w * 0.1, h * 0.05, fill="#ffffff", opacity=0.35)


def shell(p: Paint, x: float, base: float, h: float) -> None:
    """A nautilus resting on the lip of its opening: one turn of a logarithmic spiral."""
    c, pal = p.c, p.pal
    grow, end = math.log(3.2) / math.tau, 3.7
    angles = [end - math.tau * (1 - k / 40) for k in range(41)]
    unit = [(math.exp(grow * a) * math.cos(a), -math.exp(grow * a) * math.sin(a)) for a in angles]
    x0, x1 = min(px for px, _ in unit), max(px for px, _ in unit)
    y0, y1 = min(py for _, py in unit), max(py for _, py in unit)
    s = h / (y1 - y0)
    ox, oy = x - (x0 + x1) / 2 * s, base - y1 * s
    outer = [(ox + px * s, oy + py * s) for px, py in unit]
    inner = [(ox + px * s / 3.2, oy + py * s / 3.2) for px, py in unit]
    p.shadow(x, base, (x1 - x0) * s * 0.8)
    cream, stripe = mix("#f4e6cc", pal.sky_low, 0.15), mix("#b0582a", pal.accent, 0.2)
    (lx, ly), (ix, iy) = outer[-1], inner[-1]
    lip = ((lx + ix) / 2 - (iy - ly) * 0.25, (ly + iy) / 2 + (ix - lx) * 0.25)
    body = smooth(outer) + f" Q{_xy(*lip)} {_xy(ix, iy)}Z"
    c.path(body, fill=p.body(cream, x))
    c.begin(clip_path=c.clip(f'<path d="{body}"/>'))
    for k in range(2, 27, 2):  # flame stripes on the older half of the whorl
        (ax, ay), (bx, by), t = inner[k], outer[k], (0.7, 1.05, 0.85)[k % 3]
        ax, ay = ox + (ax - ox) * 0.8, oy + (ay - oy) * 0.8
        ex, ey = ax + (bx - ax) * t, ay + (by - ay) * t
        nx, ny = (ey - ay) * 0.09, -(ex - ax) * 0.09
        mx, my = (ax + ex) / 2 + nx * 1.5, (ay + ey) / 2 + ny * 1.5
        flame = f"Q{_xy(mx - nx / 2, my - ny / 2)} {_xy(ex - nx, ey - ny)} L{_xy(ex + nx, ey + ny)} Q{_xy(mx + nx / 2, my + ny / 2)}"
        c.path(f"M{_xy(ax, ay)} {flame} {_xy(ax, ay)}Z", fill=stripe, opacity=0.85)
    c.end()
    hood = [(ox + (px - ox) * 1.5, oy + (py - oy) * 1.5) for px, py in inner[-10:]]
    c.path(smooth(inner[-10:]) + " L" + smooth(hood[::-1])[1:] + "Z", fill=mix(cream, pal.ink, 0.6))
    c.circle(ox, oy, h * 0.05, fill=p.body(mix(cream, "#ffffff", 0.4), ox))
    edge = f"M{_xy(lx, ly)} Q{_xy(*lip)} {_xy(ix, iy)}"
    c.path(edge, fill="none", stroke=mix(cream, "#ffffff", 0.5), stroke_width=num(h * 0.015), stroke_linecap="round")


def feather(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    spine = _at(x, base, h, "0.06,0 0.12,0.4 0.06,0.8 -0.06,1")
    vane = mix(pal.accent, "#fff4e0", 0.45)
    shade, barb = mix(vane, pal.ink, 0.35), num(h * 0.005)
    for k, side in enumerate((-1, 1, -1, 1, -1)):  # down at the foot of the vane
        a, b = _along(spine, 0.2 + 0.02 * k), _along(spine, 0.12 + 0.02 * k, side * h * (0.07 + 0.01 * k))
        wisp = f"M{_xy(*a)} Q{_xy(*_along(spine, 0.19 + 0.02 * k, side * h * 0.05))} {_xy(*b)}"
        c.path(wisp, fill="none", stroke=vane, stroke_width=num(h * 0.012), stroke_linecap="round", opacity=0.7)
    ts = [0.2 + 0.8 * k / 12 for k in range(13)]
    width = [h * 0.13 * f for f in (0.3, 0.7, 0.88, 0.97, 1, 1, 0.97, 0.92, 0.85, 0.75, 0.6, 0.42, 0.2)]
    left = [_along(spine, t, -wd) for t, wd in zip(ts, width, strict=True)]
    right = [_along(spine, t, wd * 0.7) for t, wd in zip(ts, width, strict=True)]
    left[6], right[9] = _along(spine, ts[6], -width[6] * 0.6), _along(spine, ts[9], width[9] * 0.4)  # two splits
    c.path(smooth(left + right[::-1], closed=True), fill=p.body(vane, x, 0.7))
    for k in range(1, 12):
        (ax, ay), (mx, my) = _along(spine, ts[k]), _along(spine, ts[k + 1])
        for ex, ey in (left[k + 1], right[k + 1]):
            c.line(ax, ay, mx + (ex - mx) * 0.9, my + (ey - my) * 0.9, stroke=shade, stroke_width=barb, opacity=0.45)
    quill = smooth([_along(spine, k / 12) for k in range(13)])
    c.path(quill, fill="none", stroke=mix(vane, "#ffffff", 0.5), stroke_width=num(h * 0.012), stroke_linecap="round")


def crown(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.2
    p.shadow(x, base, w)
    gold = mix("#e8b830", pal.light, 0.2)
    tips = [(x + u * w, base - v * h) for u, v in ((-0.5, 0.8), (-0.24, 0.86), (0, 0.9), (0.24, 0.86), (0.5, 0.8))]
    rim = [(x - w * 0.44, base - h * 0.06)]
    for k, tip in enumerate(tips):
        rim += [tip, (tip[0] + w * 0.12, base - h * 0.42)] if k < 4 else [tip, (x + w * 0.44, base - h * 0.06)]
    points = "M" + " L".join(_xy(*pt) for pt in rim) + f" Q{_xy(x, base + h * 0.06)} {_xy(*rim[0])}Z"
    c.path(points, fill=p.body(gold, x))
    band = (
        f"M{_xy(x - w * 0.46, base - h * 0.3)} Q{_xy(x, base - h * 0.18)} {_xy(x + w * 0.46, base - h * 0.3)} "
        f"L{_xy(x + w * 0.44, base - h * 0.08)} Q{_xy(x, base + h * 0.04)} {_xy(x - w * 0.44, base - h * 0.08)}Z"
    )
    c.path(band, fill=p.body(mix(gold, pal.ink, 0.2), x))
    for tx, ty in tips:
        c.circle(tx, ty - h * 0.05, h * 0.05, fill=p.body(mix(gold, "#ffffff", 0.4), tx))
    for k in range(-2, 3):
        gx, gem = x + k * w * 0.18, (pal.accent, pal.accent2)[k % 2]
        c.ellipse(gx, base - h * (0.15 + 0.02 * abs(k)), h * 0.045, h * 0.06, fill=p.body(gem, gx))


def windmill(p: Paint, x: float, base: float, h: float) -> None:
    c, pal, rng = p.c, p.pal, p.rng
    hub, length = base - h * 0.62, h * 0.38
    p.shadow(x, base, h * 0.5)
    wall = mix("#e0d4c0", pal.sky_low, 0.2)
    c.polygon(_at(x, base, h, "-0.19,0 -0.11,0.6 0.11,0.6 0.19,0"), fill=p.body(wall, x))
    c.rect(x - h * 0.17, base - h * 0.3, h * 0.34, h * 0.03, fill=mix(wall, pal.ink, 0.5))
    cap = f"M{_xy(x - h * 0.14, base - h * 0.6)} Q{_xy(x, base - h * 0.82)} {_xy(x + h * 0.14, base - h * 0.6)}Z"
    c.path(cap, fill=p.body(mix(pal.accent, pal.ink, 0.2), x))
    arch = f"a{num(h * 0.04)} {num(h * 0.04)} 0 0 1 {num(h * 0.08)} 0"
    c.path(f"M{_xy(x - h * 0.04, base)} v{num(-h * 0.1)} {arch} v{num(h * 0.1)}Z", fill=mix(wall, pal.ink, 0.6))
    c.rect(x - h * 0.025, base - h * 0.45, h * 0.05, h * 0.07, fill=pal.light if pal.night else mix(wall, pal.ink, 0.6))
    cloth, spar = mix("#f2e8d8", pal.sky_low, 0.25), mix("#5a3a22", pal.ink, 0.3)
    turn, sail = rng.uniform(30, 60), length * 0.75
    for k in range(4):
        c.begin(transform=f"rotate({num(turn + 90 * k)} {_xy(x, hub)})")
        c.rect(x - h * 0.01, hub - length, h * 0.02, length, fill=spar)
        c.rect(x + h * 0.01, hub - length, h * 0.085, sail, fill=cloth, opacity=0.92)
        for y in (hub - length + sail * j / 8 for j in range(1, 8)):
            c.line(x + h * 0.01, y, x + h * 0.095, y, stroke=spar, stroke_width=num(h * 0.005))
        c.rect(x + h * 0.01, hub - length, h * 0.085, sail, fill="none", stroke=spar, stroke_width=num(h * 0.008))
        c.end()
    c.circle(x, hub, h * 0.03, fill=spar)


def bathtub(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, rim, bottom = h * 1.7, base - h * 0.72, base - h * 0.16
    p.shadow(x, base, w * 0.9)
    brass = mix("#c89a48", pal.light, 0.15)
    feet = ((-1, 0.24, 0.4), (1, 0.24, 0.4), (-1, 0.33, 0), (1, 0.33, 0))  # claw feet, the far pair darker
    for s, reach, tone in feet:
        fx, metal = x + s * w * reach, mix(brass, pal.ink, tone)
        leg = f"M{_xy(fx - h * 0.07, bottom - h * 0.02)} H{num(fx + h * 0.07)} L{_xy(fx + s * h * 0.05, base - h * 0.06)} H{num(fx - s * h * 0.02)}Z"
        c.path(leg, fill=p.body(metal, fx))
        c.ellipse(fx + s * h * 0.025, base - h * 0.04, h * 0.07, h * 0.04, fill=p.body(metal, fx))
    side = rim + (bottom - rim) * 0.4
    tub = (
        f"M{_xy(x - w / 2, rim)} H{num(x + w / 2)} C{_xy(x + w * 0.46, side)} {_xy(x + w * 0.42, bottom)} {_xy(x + w * 0.32, bottom)} "
        f"H{num(x - w * 0.32)} C{_xy(x - w * 0.42, bottom)} {_xy(x - w * 0.46, side)} {_xy(x - w / 2, rim)}Z"
    )
    c.path(tub, fill=p.body(mix(pal.accent2, "#f0ece4", 0.6), x))
    enamel = mix("#fbf8f2", pal.sky_low, 0.15)
    c.ellipse(x, rim, w / 2 + h * 0.01, h * 0.07, fill=p.body(enamel, x))
    c.ellipse(x, rim + h * 0.005, w / 2 - h * 0.04, h * 0.045, fill=mix(enamel, pal.ink, 0.25))
    c.ellipse(x, rim + h * 0.015, w / 2 - h * 0.06, h * 0.03, fill=mix(pal.water, "#ffffff", 0.3))
    chrome, tx = mix("#d0d4d8", pal.light, 0.2), x + w * 0.4
    tap = f"M{_xy(tx, rim)} V{num(base - h * 0.92)} Q{_xy(tx, base - h)} {_xy(tx - h * 0.08, base - h)} Q{_xy(tx - h * 0.14, base - h)} {_xy(tx - h * 0.14, base - h * 0.9)}"
    c.path(tap, fill="none", stroke=chrome, stroke_width=num(h * 0.035), stroke_linecap="round")
    for s in (-1, 1):
        c.circle(tx + s * h * 0.05, rim - h * 0.07, h * 0.025, fill=p.body(chrome, tx))


def piano(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.05
    p.shadow(x, base, w)
    wood = mix("#5a3320", pal.accent, 0.1)
    dark, light = mix(wood, pal.ink, 0.45), mix(wood, pal.light, 0.25)
    c.rect(x - w / 2, base - h * 0.95, w, h * 0.95, fill=p.body(wood, x))
    c.rect(x - w / 2 - h * 0.02, base - h, w + h * 0.04, h * 0.06, fill=p.body(dark, x), rx=num(h * 0.01))
    c.rect(x - w * 0.38, base - h * 0.88, w * 0.76, h * 0.24, fill=p.body(light, x), rx=num(h * 0.01))
    c.rect(x - w * 0.2, base - h * 0.72, w * 0.4, h * 0.1, fill=dark, opacity=0.5)
    c.rect(x - w / 2 - h * 0.03, base - h * 0.6, w + h * 0.06, h * 0.04, fill=p.body(dark, x))
    keys, kw = 21, w * 0.86 / 21
    k0, ky, kh = x - w * 0.43, base - h * 0.56, h * 0.08
    c.rect(k0, ky, w * 0.86, kh, fill=mix("#fbf8f0", pal.sky_low, 0.15))
    for k in range(1, keys):
        c.line(k0 + k * kw, ky, k0 + k * kw, ky + kh, stroke=mix("#fbf8f0", pal.ink, 0.4), stroke_width=num(h * 0.004))
        if k % 7 not in (0, 3):  # black keys in twos and threes
            c.rect(k0 + k * kw - kw * 0.3, ky, kw * 0.6, kh * 0.6, fill=mix("#1a1a1a", pal.ink, 0.3))
    for s in (-1, 1):
        c.rect(x + s * w * 0.47 - w * 0.03, base - h * 0.6, w * 0.06, h * 0.12, fill=p.body(dark, x))
    c.rect(x - w / 2, ky + kh, w, h * 0.05, fill=p.body(dark, x))
    c.rect(x - w * 0.42, base - h * 0.4, w * 0.84, h * 0.32, fill=p.body(light, x), rx=num(h * 0.01))
    for s in (-1, 1):
        c.rect(x + s * w * 0.46 - w * 0.025, base - h * 0.43, w * 0.05, h * 0.43, fill=p.body(dark, x + s * w / 2))
    c.rect(x - w / 2, base - h * 0.05, w, h * 0.05, fill=dark)
    for k in (-1, 0, 1):
        c.ellipse(x + k * h * 0.06, base - h * 0.06, h * 0.02, h * 0.012, fill=mix("#d8a840", pal.light, 0.2))


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
