"""The album picture names a clue said aloud: its typed words marked so, or "(said aloud)"."""

from __future__ import annotations

import pytest

from fabula.rules.results import RoundResult
from fabula.story.rows import clue_words
from fabula.story.words import Words


def result(clue: str, *, aloud: bool) -> RoundResult:
    return RoundResult(1, 0, clue, "c1", ("c1", "c2", "c3"), (0, 1, 2), ((), (1,), (2,)), None, (1, 2), (1,),
                       (3, 3, 0), (3, 3, 0), True, aloud=aloud)  # fmt: skip


@pytest.mark.parametrize(
    ("language", "clue", "aloud", "shown"),
    [
        ("en", "Dawn", False, "“Dawn”"),
        ("en", "", True, "(said aloud)"),
        ("en", "a hum", True, "“a hum” (said aloud)"),
        ("zh-Hant", "", True, "（口頭說出）"),
        ("zh-Hans", "口哨", True, "“口哨”（口头说出）"),
    ],
)
def test_the_album_picture_shows_a_clue_said_aloud(language: str, clue: str, aloud: bool, shown: str) -> None:
    assert clue_words(Words(language), result(clue, aloud=aloud)) == shown
    assert RoundResult.from_json(result(clue, aloud=aloud).to_json()).aloud is aloud
