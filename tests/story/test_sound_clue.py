"""The album picture names a recorded sound as the clue: "(sound)", or its typed words marked so."""

from __future__ import annotations

import pytest

from fabula.rules.results import RoundResult
from fabula.story.rows import clue_words
from fabula.story.words import Words


def result(clue: str, sound: str | None) -> RoundResult:
    return RoundResult(1, 0, clue, "c1", ("c1", "c2", "c3"), (0, 1, 2), ((), (1,), (2,)), None, (1, 2), (1,),
                       (3, 3, 0), (3, 3, 0), True, sound=sound)  # fmt: skip


@pytest.mark.parametrize(
    ("language", "clue", "shown"),
    [
        ("en", "", "(sound)"),
        ("en", "a hum", "“a hum” (sound)"),
        ("zh-Hant", "", "（聲音）"),
        ("zh-Hans", "口哨", "“口哨”（声音）"),
    ],
)
def test_the_album_picture_shows_a_sound_clue(language: str, clue: str, shown: str) -> None:
    assert clue_words(Words(language), result(clue, "abcdefgh12345678")) == shown
    assert RoundResult.from_json(result(clue, "abcdefgh12345678").to_json()).sound == "abcdefgh12345678"
    assert clue_words(Words(language), result("Dawn", None)).strip('“”「」"') == "Dawn"
