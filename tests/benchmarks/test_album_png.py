"""benchmarks/album_png.py draws a short album of real card pictures and reports its figures."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_a_short_album_png_run(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    album_png = importlib.import_module("album_png")
    argv = ["--players=3", "--rounds=2", "--runs=2", "--language=zh-Hans", "--party-players=6", "--party-rounds=2"]
    figures = album_png.main([*argv, f"--out={tmp_path}"])
    for found, rounds in ((figures, 2), (figures["party"], 2)):
        assert found["rounds"] == rounds
        assert found["size"][0] == found["round_size"][0] == 1080
        assert len(found["seconds"]) == 2
        assert all(seconds > 0 for seconds in found["seconds"])
        assert found["png_kib"] > 0
        assert found["round_png_kib"] > 0
    # the whole albums and a round of each, to look at
    assert len(list(tmp_path.glob("*.png"))) == 4
