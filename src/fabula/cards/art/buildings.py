"""Subjects that are buildings or parts of one: lighthouse, house, tower, door, staircase, windmill.

One theme of the subjects registered in `subjects.py`.
"""

from __future__ import annotations

from .canvas import num
from .paint import Paint
from .palettes import mix
from .shapes import at, xy


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


def windmill(p: Paint, x: float, base: float, h: float) -> None:
    c, pal, rng = p.c, p.pal, p.rng
    hub, length = base - h * 0.62, h * 0.38
    p.shadow(x, base, h * 0.5)
    wall = mix("#e0d4c0", pal.sky_low, 0.2)
    c.polygon(at(x, base, h, "-0.19,0 -0.11,0.6 0.11,0.6 0.19,0"), fill=p.body(wall, x))
    c.rect(x - h * 0.17, base - h * 0.3, h * 0.34, h * 0.03, fill=mix(wall, pal.ink, 0.5))
    cap = f"M{xy(x - h * 0.14, base - h * 0.6)} Q{xy(x, base - h * 0.82)} {xy(x + h * 0.14, base - h * 0.6)}Z"
    c.path(cap, fill=p.body(mix(pal.accent, pal.ink, 0.2), x))
    arch = f"a{num(h * 0.04)} {num(h * 0.04)} 0 0 1 {num(h * 0.08)} 0"
    c.path(f"M{xy(x - h * 0.04, base)} v{num(-h * 0.1)} {arch} v{num(h * 0.1)}Z", fill=mix(wall, pal.ink, 0.6))
    c.rect(x - h * 0.025, base - h * 0.45, h * 0.05, h * 0.07, fill=pal.light if pal.night else mix(wall, pal.ink, 0.6))
    cloth, spar = mix("#f2e8d8", pal.sky_low, 0.25), mix("#5a3a22", pal.ink, 0.3)
    turn, sail = rng.uniform(30, 60), length * 0.75
    for k in range(4):
        c.begin(transform=f"rotate({num(turn + 90 * k)} {xy(x, hub)})")
        c.rect(x - h * 0.01, hub - length, h * 0.02, length, fill=spar)
        c.rect(x + h * 0.01, hub - length, h * 0.085, sail, fill=cloth, opacity=0.92)
        for y in (hub - length + sail * j / 8 for j in range(1, 8)):
            c.line(x + h * 0.01, y, x + h * 0.095, y, stroke=spar, stroke_width=num(h * 0.005))
        c.rect(x + h * 0.01, hub - length, h * 0.085, sail, fill="none", stroke=spar, stroke_width=num(h * 0.008))
        c.end()
    c.circle(x, hub, h * 0.03, fill=spar)
