"""Subjects that are alive: a person, whale, goldfish, crane, owl, fox, rabbit, snail, elephant, jellyfish.

One theme of the subjects registered in `subjects.py`.
"""

from __future__ import annotations

import math

from .canvas import num, smooth
from .paint import Paint
from .palettes import mix
from .shapes import at, blob, xy


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


def owl(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.6)
    plume = mix("#8a6a4a", pal.near, 0.2)
    dark, pale = mix(plume, pal.ink, 0.45), mix(plume, "#f4e8d4", 0.6)
    for s in (-1, 1):
        c.polygon(at(x, base, h, "0.23,0.74 0.3,1 0.11,0.84", s), fill=dark)
    body = "-0.22,0.02 -0.31,0.3 -0.28,0.62 -0.2,0.82 0,0.87 0.2,0.82 0.28,0.62 0.31,0.3 0.22,0.02 0,-0.005"
    blob(p, x, base, h, body, fill=p.body(plume, x))
    c.ellipse(x, base - h * 0.3, h * 0.17, h * 0.24, fill=pale)
    for row in range(3):
        for k in (-1, 0, 1):
            vx, vy = x + k * h * 0.08 + (row % 2) * h * 0.04 - h * 0.02, base - h * (0.42 - row * 0.1)
            vee = f"M{xy(vx - h * 0.025, vy)} l{num(h * 0.025)} {num(h * 0.02)} l{num(h * 0.025)} {num(-h * 0.02)}"
            c.path(vee, fill="none", stroke=dark, stroke_width=num(h * 0.012), opacity=0.6)
    wing = "0.29,0.58 0.33,0.3 0.24,0.05 0.17,0.25 0.19,0.48"
    for s in (-1, 1):
        blob(p, x, base, h, wing, fill=p.body(dark, x + s * h * 0.25, 0.6), flip=s)
        ex, ey = x + s * h * 0.11, base - h * 0.66
        for r, eye in ((0.12, pale), (0.07, mix(pal.light, "#f0a020", 0.55)), (0.04, pal.ink)):
            c.circle(ex, ey, h * r, fill=eye)
        c.circle(ex - h * 0.015, ey - h * 0.015, h * 0.012, fill="#ffffff")
        c.ellipse(x + s * h * 0.08, base - h * 0.01, h * 0.05, h * 0.02, fill=mix("#d89a40", pal.ink, 0.2))
    c.polygon(at(x, base, h, "-0.03,0.6 0.03,0.6 0,0.51"), fill=mix("#d8a040", pal.ink, 0.3))


def fox(p: Paint, x: float, base: float, h: float) -> None:
    """Sitting in profile, facing left, its brush along the ground behind."""
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.7)
    fur = mix("#d8702a", pal.accent, 0.15)
    white, dark = mix("#f6efe4", pal.sky_low, 0.15), mix("#3a2218", pal.ink, 0.3)
    brush = "0.1,0.1 0.3,0.02 0.46,0.05 0.52,0.14 0.42,0.14 0.26,0.12 0.14,0.2"
    blob(p, x, base, h, brush, fill=p.body(fur, x + h * 0.3))
    blob(p, x, base, h, "0.47,0.045 0.52,0.14 0.44,0.14 0.42,0.08", fill=white)
    c.polygon(at(x, base, h, "0.02,0.8 0.08,0.96 0.1,0.77"), fill=dark)
    body = "-0.15,0.01 -0.17,0.25 -0.18,0.5 -0.12,0.64 0.04,0.64 0.1,0.45 0.22,0.28 0.25,0.1 0.16,0 0,-0.005"
    blob(p, x, base, h, body, fill=p.body(fur, x))
    c.ellipse(x + h * 0.12, base - h * 0.15, h * 0.12, h * 0.14, fill=p.body(mix(fur, pal.ink, 0.15), x + h * 0.12))
    for lx in (-0.155, -0.09):
        c.rect(x + lx * h, base - h * 0.4, h * 0.05, h * 0.4, fill=p.body(fur, x + lx * h), rx=num(h * 0.02))
        c.rect(x + lx * h, base - h * 0.15, h * 0.05, h * 0.15, fill=dark, rx=num(h * 0.02))
    blob(p, x, base, h, "-0.18,0.48 -0.13,0.3 -0.1,0.45 -0.08,0.62 -0.16,0.62", fill=white)
    c.circle(x - h * 0.05, base - h * 0.73, h * 0.11, fill=p.body(fur, x))
    c.polygon(at(x, base, h, "-0.12,0.8 -0.32,0.67 -0.1,0.63"), fill=fur)
    c.polygon(at(x, base, h, "-0.32,0.67 -0.12,0.64 -0.02,0.66 -0.08,0.62 -0.2,0.64"), fill=white)
    c.polygon(at(x, base, h, "-0.08,0.8 -0.05,0.98 0.03,0.81"), fill=p.body(fur, x))
    c.polygon(at(x, base, h, "-0.06,0.82 -0.05,0.93 0,0.82"), fill=dark, opacity=0.6)
    c.circle(x - h * 0.315, base - h * 0.67, h * 0.018, fill=dark)
    c.ellipse(x - h * 0.1, base - h * 0.74, h * 0.018, h * 0.012, fill=dark)


def rabbit(p: Paint, x: float, base: float, h: float) -> None:
    """Sitting in profile, facing left, ears up."""
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 0.6)
    fur = mix("#b89a80", pal.near, 0.15)
    dark, pink = mix(fur, pal.ink, 0.3), mix("#e8a0a0", pal.light, 0.2)
    far_ear, ear = f"rotate(18 {xy(x + h * 0.02, base - h * 0.8)})", f"rotate(8 {xy(x - h * 0.05, base - h * 0.8)})"
    c.ellipse(x + h * 0.02, base - h * 0.8, h * 0.04, h * 0.2, fill=dark, transform=far_ear)
    c.circle(x + h * 0.25, base - h * 0.13, h * 0.055, fill=mix("#ffffff", pal.sky_low, 0.15))
    body = "-0.15,0 -0.2,0.2 -0.12,0.42 0,0.5 0.15,0.42 0.25,0.22 0.22,0.03 0.05,-0.005"
    blob(p, x, base, h, body, fill=p.body(fur, x))
    c.ellipse(x + h * 0.1, base - h * 0.18, h * 0.13, h * 0.15, fill=p.body(fur, x + h * 0.1))
    c.ellipse(x + h * 0.04, base - h * 0.02, h * 0.14, h * 0.03, fill=dark)
    c.ellipse(x - h * 0.14, base - h * 0.02, h * 0.05, h * 0.025, fill=dark)
    hx, hy = x - h * 0.13, base - h * 0.55
    c.ellipse(x - h * 0.05, base - h * 0.8, h * 0.045, h * 0.21, fill=p.body(fur, x), transform=ear)
    c.ellipse(x - h * 0.05, base - h * 0.8, h * 0.02, h * 0.16, fill=pink, transform=ear)
    c.ellipse(hx, hy, h * 0.14, h * 0.11, fill=p.body(fur, hx), transform=f"rotate(-12 {xy(hx, hy)})")
    c.circle(hx - h * 0.04, hy - h * 0.02, h * 0.022, fill=pal.ink)
    c.circle(hx - h * 0.046, hy - h * 0.026, h * 0.007, fill="#ffffff")
    c.circle(hx - h * 0.135, hy + h * 0.015, h * 0.015, fill=pink)


def snail(p: Paint, x: float, base: float, h: float) -> None:
    c, pal = p.c, p.pal
    p.shadow(x, base, h * 1.0)
    skin, shell = mix("#b8a890", pal.near, 0.2), mix("#c88a4a", pal.accent, 0.2)
    for stalk in ("-0.47,0.28 -0.5,0.56", "-0.53,0.26 -0.62,0.5"):
        (x0, y0), (x1, y1) = at(x, base, h, stalk)
        c.line(x0, y0, x1, y1, stroke=mix(skin, pal.ink, 0.2), stroke_width=num(h * 0.025), stroke_linecap="round")
        c.circle(x1, y1, h * 0.025, fill=mix(skin, pal.ink, 0.35))
    foot = "0.62,0.01 0.4,0.1 -0.2,0.12 -0.42,0.3 -0.52,0.3 -0.58,0.18 -0.55,0.04 -0.4,0 0.2,-0.005"
    blob(p, x, base, h, foot, fill=p.body(skin, x))
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
    tail = f"M{xy(x + h * 0.56, base - h * 0.66)} q{num(h * 0.05)} {num(h * 0.12)} {num(h * 0.03)} {num(h * 0.28)}"
    c.path(tail, fill="none", stroke=dark, stroke_width=num(h * 0.018))
    body = "-0.25,0.86 0.05,0.95 0.35,0.88 0.55,0.72 0.59,0.48 0.46,0.33 0.1,0.3 -0.2,0.34 -0.32,0.6"
    blob(p, x, base, h, body, fill=p.body(grey, x))
    for lx in (-0.26, 0.3):
        c.rect(x + lx * h, base - h * 0.45, h * 0.14, h * 0.45, fill=p.body(grey, x + lx * h), rx=num(h * 0.04))
        for k in range(3):
            c.ellipse(x + (lx + 0.03 + k * 0.04) * h, base - h * 0.015, h * 0.017, h * 0.012, fill=nail)
    head = "-0.2,0.86 -0.36,0.98 -0.52,0.93 -0.6,0.78 -0.63,0.55 -0.64,0.3 -0.64,0.13 -0.69,0.06 -0.6,0.05 -0.56,0.17"
    blob(p, x, base, h, f"{head} -0.55,0.4 -0.5,0.55 -0.38,0.5 -0.24,0.56", fill=p.body(grey, x - h * 0.4))
    tusk = f"M{xy(x - h * 0.48, base - h * 0.54)} q{num(-h * 0.06)} {num(h * 0.1)} {num(-h * 0.2)} {num(h * 0.05)}"
    c.path(tusk, fill="none", stroke=mix("#f4ecd8", pal.light, 0.2), stroke_width=num(h * 0.04), stroke_linecap="round")
    ear = "-0.34,0.92 -0.12,0.95 -0.03,0.76 -0.07,0.5 -0.2,0.36 -0.3,0.46 -0.36,0.7"
    blob(p, x, base, h, ear, fill=p.body(mix(grey, "#c89890", 0.2), x - h * 0.1, 1.3))
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
    bell = f"M{xy(x - w / 2, rim)} C{xy(x - w / 2, top)} {xy(x + w / 2, top)} {xy(x + w / 2, rim)}"
    for k in range(6):  # the scalloped rim, right to left
        bell += f" Q{xy(x + w / 2 - w * (k + 0.5) / 6, rim + h * 0.05)} {xy(x + w / 2 - w * (k + 1) / 6, rim)}"
    glow = c.radial([(0, mix(pink, "#ffffff", 0.6)), (0.7, pink), (1, mix(pink, pal.ink, 0.3))], cy=0.3)
    c.path(bell + "Z", fill=glow, opacity=0.85)
    c.ellipse(x - w * 0.15, base - h * 0.85, w * 0.1, h * 0.05, fill="#ffffff", opacity=0.35)
