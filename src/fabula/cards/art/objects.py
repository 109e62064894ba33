"""Subjects that are things to hold or keep: teacup, key, clock, lantern, book, umbrella, chair, ….

One theme of the subjects registered in `subjects.py`.
"""

from __future__ import annotations

import math

from .canvas import H, W, num, smooth
from .paint import Paint
from .palettes import mix
from .shapes import at, xy


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


def umbrella(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, top, rim, r = h * 0.95, base - h, base - h * 0.58, h * 0.07
    p.shadow(x, base, w * 0.8)
    handle = mix("#6a4028", pal.ink, 0.2)
    crook = f"M{xy(x, rim)} V{num(base - r - h * 0.02)} a{num(r)} {num(r)} 0 0 1 {num(-2 * r)} 0"
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
        panel = f"M{xy(x, top)} Q{xy(*rib0)} {xy(x0, y0)} Q{xy(*hem)} {xy(x1, y1)} Q{xy(*rib1)} {xy(x, top)}Z"
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
    dome = f"M{xy(x - w / 2, bottom)} V{num(shoulder)} Q{xy(x - w / 2, top)} {xy(x, top)} Q{xy(x + w / 2, top)} {xy(x + w / 2, shoulder)} V{num(bottom)}Z"
    c.path(dome, fill=mix(pal.light, "#ffffff", 0.5), opacity=0.15)
    c.rect(x - w * 0.45, base - h * 0.348, w * 0.9, h * 0.016, fill=mix("#7a5030", pal.ink, 0.2))
    dl, dt, dw, dh = x + w * 0.04, base - h * 0.44, w * 0.3, h * 0.3
    door = f'<rect x="{num(dl)}" y="{num(dt)}" width="{num(dw)}" height="{num(dh)}" fill="#000"/>'
    c.begin(mask=c.mask(f'<rect width="{W}" height="{H}" fill="#fff"/>{door}'))
    for k in range(9):
        u, bx = -1 + k / 4, x + (-1 + k / 4) * w / 2
        tone = mix(brass, pal.light if (u < 0) == (p.light[0] < x) else pal.ink, 0.35 * abs(u))
        wire = f"M{xy(bx, bottom)} V{num(shoulder)} Q{xy(bx, top)} {xy(x, top)}"
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
    right = f"C{xy(x + w / 2, sh - h * 0.12)} {xy(x + nw / 2, sh - h * 0.1)} {xy(x + nw / 2, sh - h * 0.2)}"
    left = f"C{xy(x - nw / 2, sh - h * 0.1)} {xy(x - w / 2, sh - h * 0.12)} {xy(x - w / 2, sh)}"
    outline = (
        f"M{xy(x - w / 2 + r, base)} H{num(x + w / 2 - r)} Q{xy(x + w / 2, base)} {xy(x + w / 2, base - r)} V{num(sh)} "
        f"{right} V{num(neck)} H{num(x - nw / 2)} V{num(sh - h * 0.2)} {left} V{num(base - r)} "
        f"Q{xy(x - w / 2, base)} {xy(x - w / 2 + r, base)}Z"
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
        f"M{xy(x - gw / 2, top)} H{num(x + gw / 2)} C{xy(x + gw / 2, top + up)} {xy(x + nw / 2, mid - down)} {xy(x + nw / 2, mid)} "
        f"C{xy(x + nw / 2, mid + down)} {xy(x + gw / 2, bot - up)} {xy(x + gw / 2, bot)} H{num(x - gw / 2)} "
        f"C{xy(x - gw / 2, bot - up)} {xy(x - nw / 2, mid + down)} {xy(x - nw / 2, mid)} "
        f"C{xy(x - nw / 2, mid - down)} {xy(x - gw / 2, top + up)} {xy(x - gw / 2, top)}Z"
    )
    c.path(glass, fill=mix(pal.light, "#ffffff", 0.5), opacity=0.25)
    sand = mix("#e0b060", pal.light, 0.2)
    c.begin(clip_path=c.clip(f'<path d="{glass}"/>'))
    c.rect(x - gw / 2, mid - (mid - top) * 0.45, gw, (mid - top) * 0.45, fill=p.body(sand, x))
    c.path(f"M{xy(x - gw / 2, bot)} Q{xy(x, bot - (bot - mid) * 1.0)} {xy(x + gw / 2, bot)}Z", fill=p.body(sand, x))
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
    c.path(f"M{xy(x - cw / 2, top)} v{num(h * 0.12)} {drips} V{num(top)}Z", fill=mix(wax, "#ffffff", 0.4))
    c.ellipse(x, top, cw / 2, h * 0.025, fill=mix(wax, pal.light, 0.5))
    c.line(x, top, x, top - h * 0.05, stroke=pal.ink, stroke_width=num(h * 0.012))
    flame = (
        f"M{xy(x, ft)} C{xy(x + fh * 0.04, ft + fh * 0.3)} {xy(x + fh * 0.2, ft + fh * 0.5)} {xy(x + fh * 0.2, ft + fh * 0.72)} "
        f"A{num(fh * 0.2)} {num(fh * 0.22)} 0 0 1 {xy(x - fh * 0.2, ft + fh * 0.72)} "
        f"C{xy(x - fh * 0.2, ft + fh * 0.5)} {xy(x - fh * 0.04, ft + fh * 0.3)} {xy(x, ft)}Z"
    )
    c.path(flame, fill=c.radial([(0, "#ffffff"), (0.45, pal.light), (1, mix(pal.light, "#ff7a20", 0.55))], cy=0.7))


def kite(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    top, left, right, low, mid = at(x, base, h, "0.06,1 -0.24,0.8 0.25,0.86 -0.03,0.44 0.03,0.83")
    colors = (pal.accent, mix(pal.accent2, "#ffffff", 0.25))
    for k, (a, b) in enumerate(((top, left), (top, right), (low, right), (low, left))):
        c.polygon([a, b, mid], fill=p.body(colors[k % 2], (a[0] + b[0]) / 2, 0.7))
    spars = f"M{xy(*top)} L{xy(*low)} M{xy(*left)} L{xy(*right)}"
    c.path(spars, stroke=mix(pal.ink, "#5a3a20", 0.3), stroke_width=num(h * 0.008), opacity=0.8)
    tail, s = at(x, base, h, "-0.03,0.44 0.07,0.33 -0.06,0.22 0.05,0.1 0,0"), h * 0.035
    c.path(smooth(tail), fill="none", stroke=pal.ink, stroke_width=num(h * 0.006), opacity=0.8)
    for k, (tx, ty) in enumerate(tail[1:4]):
        for side in (-1, 1):
            c.polygon([(tx, ty), (tx + side * s, ty - s * 0.6), (tx + side * s, ty + s * 0.6)], fill=colors[k % 2])


def crown(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w = h * 1.2
    p.shadow(x, base, w)
    gold = mix("#e8b830", pal.light, 0.2)
    tips = [(x + u * w, base - v * h) for u, v in ((-0.5, 0.8), (-0.24, 0.86), (0, 0.9), (0.24, 0.86), (0.5, 0.8))]
    rim = [(x - w * 0.44, base - h * 0.06)]
    for k, tip in enumerate(tips):
        rim += [tip, (tip[0] + w * 0.12, base - h * 0.42)] if k < 4 else [tip, (x + w * 0.44, base - h * 0.06)]
    points = "M" + " L".join(xy(*pt) for pt in rim) + f" Q{xy(x, base + h * 0.06)} {xy(*rim[0])}Z"
    c.path(points, fill=p.body(gold, x))
    band = (
        f"M{xy(x - w * 0.46, base - h * 0.3)} Q{xy(x, base - h * 0.18)} {xy(x + w * 0.46, base - h * 0.3)} "
        f"L{xy(x + w * 0.44, base - h * 0.08)} Q{xy(x, base + h * 0.04)} {xy(x - w * 0.44, base - h * 0.08)}Z"
    )
    c.path(band, fill=p.body(mix(gold, pal.ink, 0.2), x))
    for tx, ty in tips:
        c.circle(tx, ty - h * 0.05, h * 0.05, fill=p.body(mix(gold, "#ffffff", 0.4), tx))
    for k in range(-2, 3):
        gx, gem = x + k * w * 0.18, (pal.accent, pal.accent2)[k % 2]
        c.ellipse(gx, base - h * (0.15 + 0.02 * abs(k)), h * 0.045, h * 0.06, fill=p.body(gem, gx))


def bathtub(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    w, rim, bottom = h * 1.7, base - h * 0.72, base - h * 0.16
    p.shadow(x, base, w * 0.9)
    brass = mix("#c89a48", pal.light, 0.15)
    feet = ((-1, 0.24, 0.4), (1, 0.24, 0.4), (-1, 0.33, 0), (1, 0.33, 0))  # claw feet, the far pair darker
    for s, reach, tone in feet:
        fx, metal = x + s * w * reach, mix(brass, pal.ink, tone)
        leg = f"M{xy(fx - h * 0.07, bottom - h * 0.02)} H{num(fx + h * 0.07)} L{xy(fx + s * h * 0.05, base - h * 0.06)} H{num(fx - s * h * 0.02)}Z"
        c.path(leg, fill=p.body(metal, fx))
        c.ellipse(fx + s * h * 0.025, base - h * 0.04, h * 0.07, h * 0.04, fill=p.body(metal, fx))
    side = rim + (bottom - rim) * 0.4
    tub = (
        f"M{xy(x - w / 2, rim)} H{num(x + w / 2)} C{xy(x + w * 0.46, side)} {xy(x + w * 0.42, bottom)} {xy(x + w * 0.32, bottom)} "
        f"H{num(x - w * 0.32)} C{xy(x - w * 0.42, bottom)} {xy(x - w * 0.46, side)} {xy(x - w / 2, rim)}Z"
    )
    c.path(tub, fill=p.body(mix(pal.accent2, "#f0ece4", 0.6), x))
    enamel = mix("#fbf8f2", pal.sky_low, 0.15)
    c.ellipse(x, rim, w / 2 + h * 0.01, h * 0.07, fill=p.body(enamel, x))
    c.ellipse(x, rim + h * 0.005, w / 2 - h * 0.04, h * 0.045, fill=mix(enamel, pal.ink, 0.25))
    c.ellipse(x, rim + h * 0.015, w / 2 - h * 0.06, h * 0.03, fill=mix(pal.water, "#ffffff", 0.3))
    chrome, tx = mix("#d0d4d8", pal.light, 0.2), x + w * 0.4
    tap = f"M{xy(tx, rim)} V{num(base - h * 0.92)} Q{xy(tx, base - h)} {xy(tx - h * 0.08, base - h)} Q{xy(tx - h * 0.14, base - h)} {xy(tx - h * 0.14, base - h * 0.9)}"
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
