"""Subjects: the thing a picture is about, each drawn standing at (x, base) with height h.

Every subject has the words a description needs ("a lighthouse"), tags, and what it may do in a
twist (`flies`: at home in the air; `swims`: at home in water; `holds`: can contain a small world).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .canvas import num, smooth, star_points
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
    c.polygon([(x - w_base / 2, base), (x - w_top / 2, top), (x + w_top / 2, top), (x + w_base / 2, base)], fill=p.body(wall, x))
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
    c.polygon([(x, lamp_y + h * 0.035), (x + side * h * 1.4, lamp_y - h * 0.12), (x + side * h * 1.4, lamp_y + h * 0.2)], fill=pal.light, opacity=0.16)
    c.rect(x - w_base * 0.12, base - h * 0.1, w_base * 0.24, h * 0.1, fill=pal.ink, rx=2)


def house(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.0
    wall_top = base - h * 0.55
    p.shadow(x, base, w * 1.2)
    wall = mix(pal.accent2, "#f0e0c0", 0.5)
    c.rect(x - w / 2, wall_top, w, base - wall_top, fill=p.body(wall, x))
    c.rect(x + w * 0.18, base - h * 0.98, w * 0.12, h * 0.3, fill=mix(pal.ink, wall, 0.3))
    c.polygon([(x - w * 0.6, wall_top + 2), (x, base - h * 0.95), (x + w * 0.6, wall_top + 2)], fill=p.body(pal.accent, x))
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
    c.polygon([(x - w * 0.62, base - h * 0.86), (x, base - h), (x + w * 0.62, base - h * 0.86)], fill=p.body(pal.accent, x))
    for k in range(3):
        c.path(f"M{num(x - w * 0.1)} {num(base - h * (0.25 + k * 0.2))} a{num(w * 0.1)} {num(w * 0.1)} 0 0 1 {num(w * 0.2)} 0 v{num(h * 0.06)} h{num(-w * 0.2)}Z",
               fill=pal.light if pal.night else pal.ink)


# ------------------------------------------------------------------ plants


def tree(p: Paint, x: float, base: float, h: float) -> None:
    c, pal, rng = p.c, p.pal, p.rng
    p.shadow(x, base, h * 0.7)
    bark = mix("#5a3a22", pal.ink, 0.3)
    trunk_w = h * 0.07
    c.path(f"M{num(x - trunk_w)} {num(base)} C{num(x - trunk_w * 0.6)} {num(base - h * 0.3)} {num(x - trunk_w * 0.4)} {num(base - h * 0.45)} {num(x - trunk_w * 1.6)} {num(base - h * 0.62)} "
           f"L{num(x + trunk_w * 1.6)} {num(base - h * 0.62)} C{num(x + trunk_w * 0.4)} {num(base - h * 0.45)} {num(x + trunk_w * 0.6)} {num(base - h * 0.3)} {num(x + trunk_w)} {num(base)}Z",
           fill=p.body(bark, x))
    leaf = mix(pal.near, "#5a8a3a", 0.45) if not pal.night else mix(pal.near, "#2a5040", 0.5)
    crown = []
    for _ in range(11):
        angle = rng.uniform(0, math.tau)
        crown.append((x + math.cos(angle) * h * rng.uniform(0.05, 0.3), base - h * 0.68 + math.sin(angle) * h * rng.uniform(0.04, 0.2), h * rng.uniform(0.13, 0.2)))
    for cx, cy, r in crown:
        c.circle(cx, cy + r * 0.2, r, fill=mix(leaf, pal.ink, 0.45))
    for cx, cy, r in crown:
        lit_dx = -r * 0.2 if p.light[0] < x else r * 0.2
        c.circle(cx + lit_dx, cy, r * 0.85, fill=p.body(leaf, cx, 0.8))


def mushroom(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.9)
    stem = mix("#f0e6d0", pal.sky_low, 0.2)
    c.path(f"M{num(x - h * 0.12)} {num(base)} Q{num(x - h * 0.08)} {num(base - h * 0.35)} {num(x - h * 0.1)} {num(base - h * 0.6)} L{num(x + h * 0.1)} {num(base - h * 0.6)} Q{num(x + h * 0.08)} {num(base - h * 0.35)} {num(x + h * 0.12)} {num(base)}Z",
           fill=p.body(stem, x))
    cap = mix(pal.accent, "#c02020", 0.4)
    c.path(f"M{num(x - h * 0.48)} {num(base - h * 0.55)} C{num(x - h * 0.45)} {num(base - h * 1.05)} {num(x + h * 0.45)} {num(base - h * 1.05)} {num(x + h * 0.48)} {num(base - h * 0.55)} Q{num(x)} {num(base - h * 0.47)} {num(x - h * 0.48)} {num(base - h * 0.55)}Z",
           fill=p.body(cap, x))
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
    c.rect(x - w / 2, base - h * 0.95, w, h * 0.95, fill=c.linear([(0, mix(pal.light, "#ffffff", 0.4)), (1, pal.light)]))
    p.halo(x, base - h * 0.45, h * 0.7, strength=0.35)
    c.polygon([(x - w / 2, base - h * 0.95), (x - w / 2 - w * 0.35, base - h * 0.88), (x - w / 2 - w * 0.35, base + h * 0.03), (x - w / 2, base)],
              fill=p.body(mix(pal.accent, "#6b4a30", 0.4), x - w))
    c.circle(x - w / 2 - w * 0.26, base - h * 0.45, h * 0.015, fill=pal.light)
    c.polygon([(x - w / 2, base), (x + w / 2, base), (x + w * 0.9, base + h * 0.25), (x - w * 0.9, base + h * 0.25)], fill=pal.light, opacity=0.18)


def teacup(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.25
    p.shadow(x, base, w * 1.1)
    china = mix("#f6f1ea", pal.sky_low, 0.2)
    c.ellipse(x, base - h * 0.05, w * 0.62, h * 0.1, fill=p.body(china, x))
    c.path(f"M{num(x + w * 0.42)} {num(base - h * 0.72)} c{num(w * 0.28)} {num(-h * 0.05)} {num(w * 0.3)} {num(h * 0.38)} {num(-w * 0.04)} {num(h * 0.42)}",
           fill="none", stroke=p.body(china, x + w * 0.5), stroke_width=num(h * 0.07))
    c.path(f"M{num(x - w / 2)} {num(base - h * 0.8)} C{num(x - w / 2)} {num(base - h * 0.1)} {num(x - w * 0.25)} {num(base - h * 0.12)} {num(x)} {num(base - h * 0.12)} "
           f"C{num(x + w * 0.25)} {num(base - h * 0.12)} {num(x + w / 2)} {num(base - h * 0.1)} {num(x + w / 2)} {num(base - h * 0.8)}Z", fill=p.body(china, x))
    c.rect(x - w * 0.48, base - h * 0.6, w * 0.96, h * 0.07, fill=pal.accent, opacity=0.85)
    c.ellipse(x, base - h * 0.8, w / 2, h * 0.09, fill=mix(china, pal.ink, 0.15))
    c.ellipse(x, base - h * 0.79, w * 0.45, h * 0.07, fill=mix("#8a5030", pal.ink, 0.2))
    for k in (-1, 0, 1):
        sx = x + k * w * 0.16
        c.path(f"M{num(sx)} {num(base - h * 0.9)} c{num(-h * 0.08)} {num(-h * 0.12)} {num(h * 0.08)} {num(-h * 0.2)} 0 {num(-h * 0.34)}",
               fill="none", stroke="#ffffff", stroke_width=num(h * 0.025), opacity=0.45, stroke_linecap="round")


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
        c.line(x + math.cos(a) * r * 0.7, cy + math.sin(a) * r * 0.7, x + math.cos(a) * r * 0.8, cy + math.sin(a) * r * 0.8,
               stroke=pal.ink, stroke_width=num(h * 0.015))
    a1, a2 = p.rng.uniform(0, math.tau), p.rng.uniform(0, math.tau)
    c.line(x, cy, x + math.cos(a1) * r * 0.45, cy + math.sin(a1) * r * 0.45, stroke=pal.ink, stroke_width=num(h * 0.03), stroke_linecap="round")
    c.line(x, cy, x + math.cos(a2) * r * 0.68, cy + math.sin(a2) * r * 0.68, stroke=pal.ink, stroke_width=num(h * 0.018), stroke_linecap="round")
    c.circle(x, cy, h * 0.02, fill=pal.accent)


def lantern(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 0.42
    p.halo(x, base - h * 0.45, h * 1.1, strength=0.6)
    metal = mix("#3a3030", pal.ink, 0.3)
    c.path(f"M{num(x - h * 0.08)} {num(base - h)} a{num(h * 0.08)} {num(h * 0.08)} 0 0 1 {num(h * 0.16)} 0", fill="none", stroke=metal, stroke_width=num(h * 0.025))
    c.polygon([(x - w * 0.55, base - h * 0.8), (x, base - h * 0.96), (x + w * 0.55, base - h * 0.8)], fill=metal)
    c.rect(x - w / 2, base - h * 0.8, w, h * 0.68, fill=c.radial([(0, "#ffffff"), (0.5, pal.light), (1, mix(pal.light, pal.accent, 0.5))]))
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
        c.polygon([(sx, sy), (sx + side * run, sy), (sx + side * run, sy - rise), (sx, sy - rise)], fill=p.body(stone, sx))
        c.rect(min(sx, sx + side * run), sy - rise, run, rise * 0.18, fill=mix(stone, "#ffffff", 0.4))
        c.polygon([(sx, sy), (sx + side * run, sy), (sx + side * run, sy + rise * 0.9), (sx, sy + rise * 0.9)], fill=mix(stone, pal.ink, 0.45))


def book(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.5
    p.shadow(x, base, w)
    cover = mix(pal.accent, pal.ink, 0.2)
    c.path(f"M{num(x - w / 2)} {num(base - h * 0.15)} L{num(x)} {num(base)} L{num(x + w / 2)} {num(base - h * 0.15)} L{num(x + w / 2)} {num(base - h * 0.08)} L{num(x)} {num(base + h * 0.08)} L{num(x - w / 2)} {num(base - h * 0.08)}Z", fill=cover)
    paper = mix("#fbf5e6", pal.sky_low, 0.2)
    for side in (-1, 1):
        c.path(f"M{num(x)} {num(base - h * 0.02)} C{num(x + side * w * 0.15)} {num(base - h * 0.35)} {num(x + side * w * 0.35)} {num(base - h * 0.3)} {num(x + side * w * 0.48)} {num(base - h * 0.45)} "
               f"L{num(x + side * w * 0.48)} {num(base - h * 0.17)} C{num(x + side * w * 0.35)} {num(base - h * 0.05)} {num(x + side * w * 0.15)} {num(base - h * 0.1)} {num(x)} {num(base + h * 0.04)}Z",
               fill=p.body(paper, x + side * w * 0.25, 0.6))
        for k in range(5):
            y = base - h * (0.12 + k * 0.05)
            c.line(x + side * w * 0.1, y - h * 0.08 + k * 0.5, x + side * w * 0.4, y - h * 0.16, stroke=pal.ink, stroke_width=0.8, opacity=0.25)


def figure(p: Paint, x: float, base: float, h: float) -> None:
    """A small person in a coat, seen from behind or aside — a stand-in for the viewer."""
    c, pal = p.c, p.pal
    coat = pal.accent
    p.shadow(x, base, h * 0.5)
    c.rect(x - h * 0.07, base - h * 0.3, h * 0.05, h * 0.3, fill=pal.ink)
    c.rect(x + h * 0.02, base - h * 0.3, h * 0.05, h * 0.3, fill=pal.ink)
    c.path(f"M{num(x - h * 0.16)} {num(base - h * 0.22)} L{num(x - h * 0.1)} {num(base - h * 0.72)} Q{num(x)} {num(base - h * 0.78)} {num(x + h * 0.1)} {num(base - h * 0.72)} L{num(x + h * 0.16)} {num(base - h * 0.22)}Z",
           fill=p.body(coat, x))
    c.circle(x, base - h * 0.84, h * 0.11, fill=p.body(pal.skin, x))
    c.path(f"M{num(x - h * 0.12)} {num(base - h * 0.86)} Q{num(x)} {num(base - h * 1.02)} {num(x + h * 0.12)} {num(base - h * 0.86)}Z", fill=mix("#3a2418", pal.ink, 0.3))


# ------------------------------------------------------------------ creatures


def whale(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    L = h * 2.6
    body = mix("#4a6a8a", pal.water, 0.4)
    belly = mix(body, "#f0f0f0", 0.55)
    top = base - h
    outline = (f"M{num(x - L * 0.5)} {num(base - h * 0.5)} C{num(x - L * 0.48)} {num(top - h * 0.05)} {num(x + L * 0.1)} {num(top)} {num(x + L * 0.32)} {num(base - h * 0.55)} "
               f"C{num(x + L * 0.4)} {num(base - h * 0.5)} {num(x + L * 0.44)} {num(base - h * 0.7)} {num(x + L * 0.52)} {num(base - h * 0.85)} "
               f"C{num(x + L * 0.5)} {num(base - h * 0.55)} {num(x + L * 0.58)} {num(base - h * 0.45)} {num(x + L * 0.6)} {num(base - h * 0.35)} "
               f"C{num(x + L * 0.5)} {num(base - h * 0.38)} {num(x + L * 0.42)} {num(base - h * 0.3)} {num(x + L * 0.3)} {num(base - h * 0.22)} "
               f"C{num(x)} {num(base)} {num(x - L * 0.45)} {num(base)} {num(x - L * 0.5)} {num(base - h * 0.5)}Z")
    c.path(outline, fill=p.vertical(mix(body, pal.light, 0.2), mix(body, pal.ink, 0.4)))
    c.path(f"M{num(x - L * 0.46)} {num(base - h * 0.35)} C{num(x - L * 0.3)} {num(base - h * 0.05)} {num(x + L * 0.1)} {num(base - h * 0.05)} {num(x + L * 0.28)} {num(base - h * 0.25)} "
           f"C{num(x)} {num(base - h * 0.28)} {num(x - L * 0.3)} {num(base - h * 0.3)} {num(x - L * 0.46)} {num(base - h * 0.35)}Z", fill=belly, opacity=0.8)
    c.path(f"M{num(x - L * 0.15)} {num(base - h * 0.22)} q{num(L * 0.05)} {num(h * 0.35)} {num(L * 0.14)} {num(h * 0.3)} q{num(-L * 0.04)} {num(-h * 0.2)} {num(-L * 0.02)} {num(-h * 0.32)}Z", fill=mix(body, pal.ink, 0.35))
    c.circle(x - L * 0.36, base - h * 0.45, h * 0.035, fill=pal.ink)


def fish(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    L = h * 1.6
    gold = mix("#f08a24", pal.accent, 0.3)
    cy = base - h / 2
    c.path(f"M{num(x + L * 0.1)} {num(cy)} C{num(x + L * 0.35)} {num(cy - h * 0.6)} {num(x + L * 0.6)} {num(cy - h * 0.3)} {num(x + L * 0.5)} {num(cy)} C{num(x + L * 0.6)} {num(cy + h * 0.35)} {num(x + L * 0.35)} {num(cy + h * 0.6)} {num(x + L * 0.1)} {num(cy)}Z",
           fill=mix(gold, "#ffffff", 0.25), opacity=0.85)
    c.ellipse(x - L * 0.08, cy, L * 0.3, h * 0.3, fill=p.body(gold, x))
    c.path(f"M{num(x - L * 0.05)} {num(cy - h * 0.28)} q{num(L * 0.1)} {num(-h * 0.25)} {num(L * 0.2)} {num(-h * 0.05)}Z", fill=mix(gold, pal.ink, 0.2))
    c.circle(x - L * 0.26, cy - h * 0.06, h * 0.05, fill="#ffffff")
    c.circle(x - L * 0.265, cy - h * 0.06, h * 0.025, fill=pal.ink)


def bird(p: Paint, x: float, base: float, h: float) -> None:
    """A white crane in flight."""
    c, pal = p.c, p.pal
    white = mix("#ffffff", pal.sky_low, 0.15)
    cy = base - h * 0.5
    span = h * 1.8
    c.path(f"M{num(x)} {num(cy)} C{num(x - span * 0.2)} {num(cy - h * 0.5)} {num(x - span * 0.4)} {num(cy - h * 0.45)} {num(x - span * 0.5)} {num(cy - h * 0.6)} "
           f"C{num(x - span * 0.35)} {num(cy - h * 0.2)} {num(x - span * 0.2)} {num(cy - h * 0.05)} {num(x)} {num(cy + h * 0.08)}Z", fill=p.body(white, x - span * 0.3, 0.6))
    c.path(f"M{num(x)} {num(cy)} C{num(x + span * 0.2)} {num(cy - h * 0.45)} {num(x + span * 0.38)} {num(cy - h * 0.4)} {num(x + span * 0.5)} {num(cy - h * 0.5)} "
           f"C{num(x + span * 0.35)} {num(cy - h * 0.15)} {num(x + span * 0.2)} {num(cy)} {num(x)} {num(cy + h * 0.08)}Z", fill=p.body(white, x + span * 0.3, 0.6))
    c.ellipse(x, cy + h * 0.05, span * 0.14, h * 0.08, fill=white)
    c.path(f"M{num(x - span * 0.12)} {num(cy + h * 0.04)} l{num(-span * 0.16)} {num(-h * 0.08)}", stroke=white, stroke_width=num(h * 0.05), stroke_linecap="round")
    c.path(f"M{num(x - span * 0.28)} {num(cy - h * 0.04)} l{num(-span * 0.06)} {num(h * 0.02)}", stroke=pal.accent, stroke_width=num(h * 0.03))
    c.circle(x - span * 0.27, cy - h * 0.05, h * 0.03, fill=pal.accent)
    c.path(f"M{num(x + span * 0.12)} {num(cy + h * 0.06)} l{num(span * 0.2)} {num(h * 0.06)}", stroke=pal.ink, stroke_width=num(h * 0.02))


def boat(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 0.9
    hull = mix("#8a5a32", pal.accent, 0.25)
    c.path(f"M{num(x - w / 2)} {num(base - h * 0.22)} L{num(x + w / 2)} {num(base - h * 0.22)} Q{num(x + w * 0.38)} {num(base)} {num(x + w * 0.25)} {num(base)} L{num(x - w * 0.3)} {num(base)} Q{num(x - w * 0.42)} {num(base)} {num(x - w / 2)} {num(base - h * 0.22)}Z", fill=p.body(hull, x))
    c.rect(x - h * 0.012, base - h, h * 0.024, h * 0.78, fill=pal.ink)
    sail = mix("#fbf3e4", pal.sky_low, 0.2)
    c.path(f"M{num(x + h * 0.02)} {num(base - h * 0.96)} Q{num(x + w * 0.5)} {num(base - h * 0.6)} {num(x + w * 0.42)} {num(base - h * 0.28)} L{num(x + h * 0.02)} {num(base - h * 0.28)}Z", fill=p.body(sail, x + w * 0.2, 0.6))
    c.path(f"M{num(x - h * 0.02)} {num(base - h * 0.82)} Q{num(x - w * 0.3)} {num(base - h * 0.5)} {num(x - w * 0.34)} {num(base - h * 0.3)} L{num(x - h * 0.02)} {num(base - h * 0.3)}Z", fill=p.body(sail, x - w * 0.2, 0.6))
    c.polygon([(x, base - h * 1.08), (x + h * 0.12, base - h * 1.03), (x, base - h * 0.98)], fill=pal.accent)


def star(p: Paint, x: float, base: float, h: float) -> None:
    """A fallen star, glowing."""
    c, pal = p.c, p.pal
    p.halo(x, base - h / 2, h * 1.3, strength=0.7)
    c.polygon(star_points(x, base - h / 2, h / 2, h * 0.22), fill=c.radial([(0, "#ffffff"), (0.6, pal.light), (1, mix(pal.light, pal.accent, 0.5))]))


SUBJECTS: dict[str, Subject] = {
    s.name: s
    for s in (
        Subject("lighthouse", "a lighthouse", ("lighthouse", "beacon", "guidance"), lighthouse, 0.3, "building", shines=True),
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
        Subject("figure", "a person in a coat", ("person", "wanderer", "alone"), figure, 0.35, "creature", plural="people in coats"),
        Subject("whale", "a whale", ("whale", "ocean", "giant"), whale, 2.6, "creature", flies=False, swims=True),
        Subject("fish", "a goldfish", ("goldfish", "fish", "pet"), fish, 1.6, "creature", swims=True, plural="goldfish"),
        Subject("crane", "a white crane", ("crane", "bird", "grace"), bird, 1.8, "creature", flies=True),
        Subject("boat", "a sailing boat", ("boat", "sail", "voyage"), boat, 0.9, swims=True),
        Subject("star", "a fallen star", ("star", "wish", "light"), star, 1.0, "celestial", flies=True, shines=True),
    )
}
