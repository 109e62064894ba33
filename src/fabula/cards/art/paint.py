"""The deck's common way of painting a thing: lit from the scene's light, shadowed toward the ink."""

from __future__ import annotations

from dataclasses import dataclass

from .canvas import Canvas, Rng
from .palettes import Palette, mix


@dataclass
class Paint:
    c: Canvas
    pal: Palette
    rng: Rng
    #: where the light comes from (x, y)
    light: tuple[float, float]

    def body(self, color: str, x: float, strength: float = 1.0) -> str:
        """A horizontal gradient for a thing centred at ``x``: its side toward the light is lit."""
        lit = mix(color, self.pal.light, 0.32 * strength)
        dark = mix(color, self.pal.ink, 0.5 * strength)
        if self.light[0] <= x:
            return self.c.linear([(0, lit), (0.45, color), (1, dark)], 0, 0, 1, 0)
        return self.c.linear([(0, dark), (0.55, color), (1, lit)], 0, 0, 1, 0)

    def vertical(self, top: str, bottom: str) -> str:
        return self.c.linear([(0, top), (1, bottom)])

    def shadow(self, x: float, y: float, width: float) -> None:
        """A soft contact shadow on the ground, pushed away from the light."""
        dx = -width * 0.25 if self.light[0] > x else width * 0.25
        self.c.ellipse(x + dx, y, width * 0.6, width * 0.09, fill=self.pal.ink, opacity=0.35)

    def halo(self, x: float, y: float, r: float, color: str | None = None, strength: float = 0.7) -> None:
        tint = color or self.pal.light
        self.c.circle(x, y, r, fill=self.c.radial([(0, tint, strength), (0.4, tint, strength * 0.3), (1, tint, 0)]))
