"""Subjects that carry someone somewhere: hot-air balloon, sailing boat, bicycle.

One theme of the subjects registered in `subjects.py`.
"""

from __future__ import annotations

import math

from .canvas import num
from .paint import Paint
from .palettes import mix
from .shapes import xy


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
    frame = (
        f"M{xy(x - d, cy)} L{xy(*bb)} L{xy(*neck)} L{xy(*head)} L{xy(*seat)} L{xy(*bb)} M{xy(*seat)} L{xy(x - d, cy)}"
    )
    fork = f"M{xy(*head)} L{xy(*neck)} L{xy(x + d, cy)}"
    paint = mix(pal.accent, "#b83a3a", 0.3)
    c.path(f"{frame} {fork}", stroke=paint, stroke_width=num(r * 0.1), stroke_linejoin="round", **stroke)
    bars = f"M{xy(*seat)} L{xy(x - d * 0.34, cy - r * 1.42)} M{xy(*head)} L{xy(x + d * 0.52, cy - r * 1.5)} q{num(-r * 0.2)} {num(-r * 0.1)} {num(-r * 0.4)} {num(r * 0.06)}"
    c.path(bars, stroke=tyre, stroke_width=num(r * 0.08), **stroke)
    saddle = f"M{xy(x - d * 0.34 - r * 0.22, cy - r * 1.46)} q{num(r * 0.22)} {num(-r * 0.1)} {num(r * 0.42)} 0 q{num(-r * 0.14)} {num(r * 0.1)} {num(-r * 0.42)} 0Z"
    c.path(saddle, fill=tyre, stroke=tyre, stroke_width=num(r * 0.06))
    c.circle(bb[0], bb[1], r * 0.2, fill=p.body(rim, bb[0]), stroke=tyre, stroke_width=num(r * 0.03))
    c.line(*bb, bb[0] + r * 0.22, bb[1] + r * 0.3, stroke=tyre, stroke_width=num(r * 0.07), stroke_linecap="round")
