"""Subjects found out of doors that are not animals: tree, mushroom, fallen star, seashell, feather.

One theme of the subjects registered in `subjects.py`.
"""

from __future__ import annotations

import math

from .canvas import num, smooth, star_points
from .paint import Paint
from .palettes import mix
from .shapes import along, at, xy


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


def star(p: Paint, x: float, base: float, h: float) -> None:
    """A fallen star, glowing."""
    c, pal = p.c, p.pal
    p.halo(x, base - h / 2, h * 1.3, strength=0.7)
    c.polygon(
        star_points(x, base - h / 2, h / 2, h * 0.22),
        fill=c.radial([(0, "#ffffff"), (0.6, pal.light), (1, mix(pal.light, pal.accent, 0.5))]),
    )


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
    body = smooth(outer) + f" Q{xy(*lip)} {xy(ix, iy)}Z"
    c.path(body, fill=p.body(cream, x))
    c.begin(clip_path=c.clip(f'<path d="{body}"/>'))
    for k in range(2, 27, 2):  # flame stripes on the older half of the whorl
        (ax, ay), (bx, by), t = inner[k], outer[k], (0.7, 1.05, 0.85)[k % 3]
        ax, ay = ox + (ax - ox) * 0.8, oy + (ay - oy) * 0.8
        ex, ey = ax + (bx - ax) * t, ay + (by - ay) * t
        nx, ny = (ey - ay) * 0.09, -(ex - ax) * 0.09
        mx, my = (ax + ex) / 2 + nx * 1.5, (ay + ey) / 2 + ny * 1.5
        flame = f"Q{xy(mx - nx / 2, my - ny / 2)} {xy(ex - nx, ey - ny)} L{xy(ex + nx, ey + ny)} Q{xy(mx + nx / 2, my + ny / 2)}"
        c.path(f"M{xy(ax, ay)} {flame} {xy(ax, ay)}Z", fill=stripe, opacity=0.85)
    c.end()
    hood = [(ox + (px - ox) * 1.5, oy + (py - oy) * 1.5) for px, py in inner[-10:]]
    c.path(smooth(inner[-10:]) + " L" + smooth(hood[::-1])[1:] + "Z", fill=mix(cream, pal.ink, 0.6))
    c.circle(ox, oy, h * 0.05, fill=p.body(mix(cream, "#ffffff", 0.4), ox))
    edge = f"M{xy(lx, ly)} Q{xy(*lip)} {xy(ix, iy)}"
    c.path(edge, fill="none", stroke=mix(cream, "#ffffff", 0.5), stroke_width=num(h * 0.015), stroke_linecap="round")


def feather(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    spine = at(x, base, h, "0.06,0 0.12,0.4 0.06,0.8 -0.06,1")
    vane = mix(pal.accent, "#fff4e0", 0.45)
    shade, barb = mix(vane, pal.ink, 0.35), num(h * 0.005)
    for k, side in enumerate((-1, 1, -1, 1, -1)):  # down at the foot of the vane
        a, b = along(spine, 0.2 + 0.02 * k), along(spine, 0.12 + 0.02 * k, side * h * (0.07 + 0.01 * k))
        wisp = f"M{xy(*a)} Q{xy(*along(spine, 0.19 + 0.02 * k, side * h * 0.05))} {xy(*b)}"
        c.path(wisp, fill="none", stroke=vane, stroke_width=num(h * 0.012), stroke_linecap="round", opacity=0.7)
    ts = [0.2 + 0.8 * k / 12 for k in range(13)]
    width = [h * 0.13 * f for f in (0.3, 0.7, 0.88, 0.97, 1, 1, 0.97, 0.92, 0.85, 0.75, 0.6, 0.42, 0.2)]
    left = [along(spine, t, -wd) for t, wd in zip(ts, width, strict=True)]
    right = [along(spine, t, wd * 0.7) for t, wd in zip(ts, width, strict=True)]
    left[6], right[9] = along(spine, ts[6], -width[6] * 0.6), along(spine, ts[9], width[9] * 0.4)  # two splits
    c.path(smooth(left + right[::-1], closed=True), fill=p.body(vane, x, 0.7))
    for k in range(1, 12):
        (ax, ay), (mx, my) = along(spine, ts[k]), along(spine, ts[k + 1])
        for ex, ey in (left[k + 1], right[k + 1]):
            c.line(ax, ay, mx + (ex - mx) * 0.9, my + (ey - my) * 0.9, stroke=shade, stroke_width=barb, opacity=0.45)
    quill = smooth([along(spine, k / 12) for k in range(13)])
    c.path(quill, fill="none", stroke=mix(vane, "#ffffff", 0.5), stroke_width=num(h * 0.012), stroke_linecap="round")
