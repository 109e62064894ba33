"""benchmarks/album_png.py draws a short album of real card pictures and reports its figures."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_a_short_album_png_run() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    album_png = importlib.import_module("album_png")
    figures = album_png.main(["--players=3", "--rounds=2", "--runs=2", "--language=zh-Hans"])
    assert figures["rounds"] == 2
    assert figures["size"][0] == 1080
    assert figures["round_size"][0] == 1080
    assert figures["round_size"][1] < figures["size"][1]
    assert len(figures["seconds"]) == 2
    assert all(seconds > 0 for seconds in figures["seconds"])
    assert figures["png_kib"] > figures["round_png_kib"] > 0
