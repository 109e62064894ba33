"""A tiny SVG canvas: shapes, gradients and filters, written compactly and deterministically.

>>> c = Canvas()
>>> c.circle(10, 20, 5, fill="#fff")
>>> 'cx="10" cy="20" r="5"' in c.svg()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from typing import TypeVar
from xml.sax.saxutils import quoteattr

from fabula.cards.model import CARD_HEIGHT, CARD_WIDTH

W, H = CARD_WIDTH, CARD_HEIGHT
T = TypeVar("T")
Point = tuple[float, float]


def num(value: float) -> str:
    """A coordinate with one decimal at most: small files, the same bytes on every machine."""
    text = f"{value:.1f}"
    if text == "-0.0":
        return "0"
    return text[:-2] if text.endswith(".0") else text


class Rng:
    """Randomness for one picture. Only ``Random.random()`` is used: it is the one stream CPython
    promises to keep the same across versions, so a seed draws the same deck everywhere."""

    def __init__(self, key: str) -> None:
        self._random = random.Random(key)

    def random(self) -> float:
        return self._random.random()

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self._random.random()

    def below(self, n: int) -> int:
        return min(int(self._random.random() * n), n - 1)

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def chance(self, p: float) -> bool:
        return self._random.random() < p

    def shuffled(self, items: Iterable[T]) -> list[T]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def _attrs(attrs: dict[str, object]) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        text = num(value) if isinstance(value, float) else str(value)
        parts.append(f" {name}={quoteattr(text)}")
    return "".join(parts)


class Canvas:
    """Collects ``<defs>`` and drawing elements; `svg` writes the document."""

    def __init__(self) -> None:
        self._defs: list[str] = []
        self._body: list[str] = []
        self._next_id = 0
        self._groups = 0

    def _id(self, prefix: str) -> str:
        self._next_id += 1
        return f"{prefix}{self._next_id}"

    # -------------------------------------------------------------- paint servers and filters

    def linear(
        self,
        stops: Sequence[tuple[float, str]] | Sequence[tuple[float, str, float]],
        x1: float = 0,
        y1: float = 0,
        x2: float = 0,
        y2: float = 1,
    ) -> str:
        """A linear gradient (in the shape's bounding box); returns its ``url(#…)``."""
        return self._gradient(
            "linearGradient", "l", f'x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}"', stops
        )

    def radial(
        self,
        stops: Sequence[tuple[float, str]] | Sequence[tuple[float, str, float]],
        cx: float = 0.5,
        cy: float = 0.5,
        r: float = 0.5,
    ) -> str:
        return self._gradient("radialGradient", "r", f'cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}"', stops)

    def _gradient(
        self,
        tag: str,
        prefix: str,
        geometry: str,
        stops: Sequence[tuple[float, str]] | Sequence[tuple[float, str, float]],
    ) -> str:
        ident = self._id(prefix)
        self._defs.append(f'<{tag} id="{ident}" {geometry}>{"".join(_stop(stop) for stop in stops)}</{tag}>')
        return f"url(#{ident})"

    def blur(self, deviation: float) -> str:
        ident = self._id("b")
        self._defs.append(
            f'<filter id="{ident}" x="-50%" y="-50%" width="200%" height="200%">'
            f'<feGaussianBlur stdDeviation="{num(deviation)}"/></filter>'
        )
        return f"url(#{ident})"

    def silhouette(self, color: str) -> str:
        """A filter painting everything drawn under it in one flat colour (a cast shadow)."""
        ident = self._id("s")
        self._defs.append(
            f'<filter id="{ident}"><feFlood flood-color="{color}"/><feComposite in2="SourceAlpha" operator="in"/></filter>'
        )
        return f"url(#{ident})"

    def grain(self, seed: int, opacity: float = 0.07) -> None:
        """A fine paper grain over the whole picture: the deck's common texture.

        The noise is made once on a seamless 100-unit tile and repeated: the same look for a third
        less rendering time than filtering the whole card.
        """
        noise, tile = self._id("n"), self._id("t")
        self._defs.append(
            f'<filter id="{noise}" x="0" y="0" width="100%" height="100%">'
            f'<feTurbulence type="fractalNoise" baseFrequency="0.9" numOctaves="2" seed="{seed % 1000}" '
            'stitchTiles="stitch"/><feColorMatrix type="saturate" values="0"/></filter>'
            f'<pattern id="{tile}" width="100" height="100" patternUnits="userSpaceOnUse">'
            f'<rect width="100" height="100" filter="url(#{noise})"/></pattern>'
        )
        self._body.append(f'<rect width="{W}" height="{H}" fill="url(#{tile})" opacity="{num(opacity)}"/>')

    def mask(self, markup: str) -> str:
        """A luminance mask from raw markup (white shows, black hides); returns its ``url(#…)``."""
        ident = self._id("m")
        self._defs.append(
            f'<mask id="{ident}" maskUnits="userSpaceOnUse" x="0" y="0" width="{W}" height="{H}">{markup}</mask>'
        )
        return f"url(#{ident})"

    def clip(self, shape: str) -> str:
        """A clip path from raw shape markup; returns its ``url(#…)``."""
        ident = self._id("c")
        self._defs.append(f'<clipPath id="{ident}">{shape}</clipPath>')
        return f"url(#{ident})"

    # -------------------------------------------------------------- shapes

    def raw(self, markup: str) -> None:
        self._body.append(markup)

    def rect(self, x: float, y: float, w: float, h: float, **attrs: object) -> None:
        self._body.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}"{_attrs(attrs)}/>')

    def circle(self, cx: float, cy: float, r: float, **attrs: object) -> None:
        self._body.append(f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}"{_attrs(attrs)}/>')

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, **attrs: object) -> None:
        self._body.append(f'<ellipse cx="{num(cx)}" cy="{num(cy)}" rx="{num(rx)}" ry="{num(ry)}"{_attrs(attrs)}/>')

    def path(self, d: str, **attrs: object) -> None:
        self._body.append(f'<path d="{d}"{_attrs(attrs)}/>')

    def polygon(self, points: Iterable[Point], **attrs: object) -> None:
        self.path("M" + " L".join(f"{num(x)} {num(y)}" for x, y in points) + "Z", **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: object) -> None:
        self._body.append(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}"{_attrs(attrs)}/>')

    def begin(self, **attrs: object) -> None:
        """Open a group (transform, opacity, clip-path…); close it with `end`."""
        self._groups += 1
        self._body.append(f"<g{_attrs(attrs)}>")

    def end(self) -> None:
        self._groups -= 1
        self._body.append("</g>")

    def svg(self) -> str:
        assert self._groups == 0, "a group was left open"
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}">'
            f"<defs>{''.join(self._defs)}</defs>{''.join(self._body)}</svg>"
        )


def _stop(stop: tuple[float, str] | tuple[float, str, float]) -> str:
    opacity = f' stop-opacity="{num(stop[2])}"' if len(stop) == 3 else ""
    return f'<stop offset="{num(stop[0])}" stop-color="{stop[1]}"{opacity}/>'


# ------------------------------------------------------------------ geometry helpers


def smooth(points: Sequence[Point], closed: bool = False) -> str:
    """A smooth path through ``points`` (Catmull–Rom turned into cubic Béziers)."""
    if len(points) < 3:
        return "M" + " L".join(f"{num(x)} {num(y)}" for x, y in points)
    pts = list(points)
    pts = [pts[-1], *pts, pts[0], pts[1]] if closed else [pts[0], *pts, pts[-1]]
    out = [f"M{num(pts[1][0])} {num(pts[1][1])}"]
    for i in range(1, len(pts) - 2):
        p0, p1, p2, p3 = pts[i - 1], pts[i], pts[i + 1], pts[i + 2]
        c1 = (p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6)
        c2 = (p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6)
        out.append(f"C{num(c1[0])} {num(c1[1])} {num(c2[0])} {num(c2[1])} {num(p2[0])} {num(p2[1])}")
    return "".join(out) + ("Z" if closed else "")


def ridge(rng: Rng, y: float, roughness: float, steps: int = 9, x0: float = -20, x1: float = W + 20) -> list[Point]:
    """A wandering horizon line from ``x0`` to ``x1`` around height ``y``."""
    points = []
    for i in range(steps + 1):
        x = x0 + (x1 - x0) * i / steps
        points.append((x, y + rng.uniform(-roughness, roughness)))
    return points


def fill_below(line: str, bottom: float = H + 10) -> str:
    """Close an open path ``line`` (left to right) down to the bottom edge."""
    return f"{line} L{W + 20} {num(bottom)} L-20 {num(bottom)}Z"


def star_points(cx: float, cy: float, outer: float, inner: float, spikes: int = 5, turn: float = 0) -> list[Point]:
    points = []
    for i in range(spikes * 2):
        radius = outer if i % 2 == 0 else inner
        angle = turn + math.pi * i / spikes - math.pi / 2
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return points
