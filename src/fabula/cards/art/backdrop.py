"""Backdrop pieces several settings share: the sky, a sun or moon with its glow, stars, clouds, hills.

Kept apart so `settings.py` holds the settings themselves.
"""

from __future__ import annotations

from .canvas import Canvas, H, Rng, W, fill_below, num, ridge, smooth
from .palettes import Palette, mix


def sky(c: Canvas, pal: Palette, bottom: float = H) -> None:
    c.rect(0, 0, W, bottom, fill=c.linear([(0, pal.sky_top), (0.55, pal.sky_mid), (1, pal.sky_low)]))
    if pal.mood == "aurora":
        # curtains of light: what "under the northern lights" promises
        for k, color in enumerate((pal.light, pal.accent, pal.light)):
            y = 70 + k * 55
            c.path(
                f"M-20 {y + 60} C90 {y - 40} 170 {y + 90} 260 {y + 10} S380 {y - 30} 420 {y + 30} L420 {y + 120} "
                f"C330 {y + 60} 250 {y + 170} 150 {y + 100} S30 {y + 130} -20 {y + 160}Z",
                fill=c.linear([(0, color, 0.55), (1, color, 0)]),
                opacity=0.55,
            )


def glow(c: Canvas, x: float, y: float, r: float, color: str, strength: float = 0.8) -> None:
    c.circle(x, y, r, fill=c.radial([(0, color, strength), (0.35, color, strength * 0.35), (1, color, 0)]))


def sun_or_moon(c: Canvas, pal: Palette, rng: Rng, x: float, y: float, r: float) -> None:
    glow(c, x, y, r * 4.5, pal.light, 0.55)
    if pal.night:
        # a crescent: a second disc masks the first
        bite = f'<rect width="{W}" height="{H}" fill="#fff"/><circle cx="{num(x + r * 0.45)}" cy="{num(y - r * 0.25)}" r="{num(r * 0.86)}" fill="#000"/>'
        c.circle(x, y, r, fill=pal.light, mask=c.mask(bite))
    else:
        c.circle(x, y, r, fill=pal.light, opacity=0.95)


def stars(c: Canvas, pal: Palette, rng: Rng, count: int, bottom: float) -> None:
    for _ in range(count):
        x, y = rng.uniform(0, W), rng.uniform(0, bottom) ** 1.15 / bottom**0.15
        c.circle(x, y, rng.uniform(0.5, 1.6), fill=mix(pal.light, "#ffffff", 0.6), opacity=rng.uniform(0.4, 1))


def clouds(c: Canvas, pal: Palette, rng: Rng, count: int, top: float, bottom: float, size: float = 1.0) -> None:
    if pal.night:
        lit, shade = mix(pal.sky_top, pal.sky_mid, 0.6), mix(pal.sky_top, "#000000", 0.25)
    else:
        lit, shade = mix(pal.sky_low, "#ffffff", 0.35), mix(pal.sky_mid, pal.sky_top, 0.3)
    for _ in range(count):
        cx, cy, s = rng.uniform(-40, W + 40), rng.uniform(top, bottom), rng.uniform(0.6, 1.3) * size
        puffs = [
            (cx + rng.uniform(-60, 60) * s, cy + rng.uniform(-12, 6) * s, rng.uniform(18, 34) * s) for _ in range(6)
        ]
        c.begin(opacity=num(rng.uniform(0.55, 0.85)))
        for px, py, pr in puffs:
            c.circle(px, py + pr * 0.25, pr, fill=shade)
        for px, py, pr in puffs:
            c.circle(px - pr * 0.15, py, pr * 0.92, fill=lit)
        c.end()


def hills(c: Canvas, rng: Rng, y: float, rough: float, color: str, steps: int = 7) -> None:
    c.path(fill_below(smooth(ridge(rng, y, rough, steps))), fill=color)
