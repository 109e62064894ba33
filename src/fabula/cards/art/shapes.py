"""Small shape helpers the subject drawings share: points given in units of a subject's height.

Kept apart so every subject module can use them.
"""

from __future__ import annotations

import math

from .canvas import Point, num, smooth
from .paint import Paint


def at(x: float, base: float, h: float, points: str, flip: float = 1) -> list[Point]:
    pairs = (pair.split(",") for pair in points.split())
    return [(x + flip * float(dx) * h, base - float(dy) * h) for dx, dy in pairs]


def blob(p: Paint, x: float, base: float, h: float, points: str, *, fill: str, flip: float = 1) -> None:
    """A smooth closed shape through `at` points."""
    p.c.path(smooth(at(x, base, h, points, flip), closed=True), fill=fill)


def xy(x: float, y: float) -> str:
    return f"{num(x)} {num(y)}"


def along(curve: list[Point], t: float, off: float = 0) -> Point:
    """The point at ``t`` on the cubic Bézier ``curve``, moved ``off`` along its normal."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = curve
    u = 1 - t
    px = u**3 * ax + 3 * u * u * t * bx + 3 * u * t * t * cx + t**3 * dx
    py = u**3 * ay + 3 * u * u * t * by + 3 * u * t * t * cy + t**3 * dy
    tx = 3 * u * u * (bx - ax) + 6 * u * t * (cx - bx) + 3 * t * t * (dx - cx)
    ty = 3 * u * u * (by - ay) + 6 * u * t * (cy - by) + 3 * t * t * (dy - cy)
    n = math.hypot(tx, ty) or 1
    return px - ty / n * off, py + tx / n * off
