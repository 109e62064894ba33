"""The policies for text people type (fabula.text): clues, names and chat lines, captions."""

from __future__ import annotations

import ast
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fabula.text
from fabula.text import (
    JOINERS,
    REFUSED_IN_CLUES,
    TextRefused,
    caption_text,
    clue_text,
    collapse_spaces,
    has_controls,
    line_text,
)

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧: three people, two joiners
PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # می‌خواهم: a non-joiner inside a word
E_ACUTE = "e\u0301"  # é as a letter and a combining accent


def refusal(call: Callable[..., str], *args: object, **kwargs: Any) -> tuple[str, str, int]:
    """(reason, message, length) of the `TextRefused` that ``call`` raises."""
    with pytest.raises(TextRefused) as refused:
        call(*args, **kwargs)
    return refused.value.reason, refused.value.message, refused.value.length


# ---------------------------------------------------------------- clues


def test_a_clue_is_trimmed_and_otherwise_kept_as_typed() -> None:
    assert clue_text("  Freedom \n", limit=200) == "Freedom"
    assert clue_text("\u3000Freedom\u2028", limit=200) == "Freedom", "any whitespace at the ends goes"
    assert clue_text("a   long\u00a0way", limit=200) == "a   long\u00a0way", "inner spaces are the storyteller's"
    assert clue_text("<b>bold</b>", limit=200) == "<b>bold</b>"


def test_a_clue_keeps_the_joiners() -> None:
    assert clue_text(f"{FAMILY} {PERSIAN}", limit=200) == f"{FAMILY} {PERSIAN}"


@pytest.mark.parametrize(
    "inside",
    [
        "\t",  # C0 control
        "\n",
        "\x00",
        "\x7f",  # DEL
        "\x85",  # C1 control (next line)
        "\u2028",  # line separator
        "\u2029",  # paragraph separator
        "\u202e",  # right-to-left override
        "\u200b",  # zero-width space
        "\ufeff",  # byte-order mark
        "\ud800",  # lone surrogate
    ],
)
def test_a_clue_with_an_invisible_or_control_character_inside_is_refused(inside: str) -> None:
    reason, message, _ = refusal(clue_text, f"Free{inside}dom", limit=200)
    assert (reason, message) == ("invalid", "A clue is one line of text without control characters.")


def test_an_empty_clue_is_refused() -> None:
    for empty in ("", "   ", "\t\n", "\u3000"):
        assert refusal(clue_text, empty, limit=200) == ("empty", "The clue is empty.", 0)
    # a zero-width space is not whitespace: it stays, and is refused as invisible
    assert refusal(clue_text, "\u200b", limit=200)[0] == "invalid"


def test_a_clue_is_bounded_in_code_points_once_trimmed() -> None:
    assert clue_text(" " + "x" * 10 + " ", limit=10) == "x" * 10
    assert refusal(clue_text, "x" * 11, limit=10) == (
        "too_long",
        "A clue has at most 10 characters; this one has 11.",
        11,
    )
    # one emoji a reader sees, five code points
    assert clue_text(FAMILY * 2, limit=10) == FAMILY * 2
    assert refusal(clue_text, FAMILY * 2 + "!", limit=10)[2] == 11
    assert refusal(clue_text, E_ACUTE * 6, limit=10)[2] == 12


def test_the_length_of_a_clue_is_checked_before_its_characters() -> None:
    assert refusal(clue_text, "x\t" * 10, limit=10)[0] == "too_long"


# ---------------------------------------------------------------- names and chat lines


def test_a_line_loses_its_invisible_characters_and_its_whitespace_runs() -> None:
    assert line_text("  Ana\u202e\u200b  Lee\n", limit=24, what="name") == "Ana Lee"
    assert line_text("Ω\u2028Ж\u00a0\u3000x", limit=24, what="name") == "Ω Ж x"
    assert line_text("<script>x</script>", limit=24, what="name") == "<script>x</script>", "text, never markup"


def test_a_control_character_between_words_joins_them() -> None:
    # tabs and line breaks are control characters: removed before the spaces are collapsed
    assert line_text("A\tB", limit=24, what="name") == "AB"
    assert line_text("A\nB", limit=24, what="name") == "AB"
    assert line_text("A \n B", limit=24, what="name") == "A B"
    assert line_text("Bo\x00b\x7f\x85", limit=24, what="name") == "Bob"


def test_a_line_keeps_the_joiners_and_loses_lone_surrogates() -> None:
    assert line_text(f"\u200b{FAMILY}\ufeff", limit=24, what="name") == FAMILY
    assert line_text(PERSIAN, limit=24, what="name") == PERSIAN
    assert line_text("Ana\ud800\udfff", limit=24, what="name") == "Ana"


def test_every_character_of_the_bmp_is_kept_dropped_or_made_a_space() -> None:
    for point in range(0x10000):  # surrogates included
        ch = chr(point)
        kept = line_text(f"a{ch}b", limit=3, what="name")
        if ch not in JOINERS and unicodedata.category(ch) in {"Cc", "Cf", "Cs"}:
            assert kept == "ab", hex(point)
        elif ch.isspace():
            assert kept == "a b", hex(point)
        else:
            assert kept == f"a{ch}b", hex(point)


def test_an_empty_line_is_refused_with_the_word_for_it() -> None:
    assert refusal(line_text, " \t\u200b\ufeff ", limit=24, what="name") == ("empty", "The name is empty.", 0)
    assert refusal(line_text, "", limit=300, what="message") == ("empty", "The message is empty.", 0)


def test_a_line_is_bounded_in_code_points_once_cleaned() -> None:
    assert line_text("  " + "a" * 24 + "\u200b" * 5, limit=24, what="name") == "a" * 24, "what goes does not count"
    assert line_text("a  " * 12, limit=23, what="name") == "a " * 11 + "a"
    assert refusal(line_text, "é" * 25, limit=24, what="name") == (
        "too_long",
        "A name has at most 24 characters; this one has 25.",
        25,
    )
    assert refusal(line_text, FAMILY * 5, limit=24, what="message")[1:] == (
        "A message has at most 24 characters; this one has 25.",
        25,
    )


# ---------------------------------------------------------------- captions


def test_a_caption_is_one_line_without_control_characters() -> None:
    assert caption_text("  A fox\tin the\r\nsnow. ", limit=500) == "A fox in the snow."
    assert caption_text("Bell\x07s\x1b[31m", limit=500) == "Bells[31m"
    assert caption_text("", limit=500) == "", "a card may have no description"
    assert caption_text(" \n\t ", limit=500) == ""


def test_a_caption_collapses_whitespace_before_it_drops_controls() -> None:
    # so the spaces either side of a control character stay two (as they always have)
    assert caption_text("a \x01 b", limit=500) == "a  b"


def test_a_caption_keeps_format_characters() -> None:
    # only controls go: a caption is not shown to players as a name is
    assert caption_text(f"{FAMILY} \u202eabc\u200b", limit=500) == f"{FAMILY} \u202eabc\u200b"


def test_a_caption_is_bounded_in_code_points_once_cleaned() -> None:
    assert caption_text("x" * 5 + "\x00" * 3, limit=5) == "x" * 5
    assert refusal(caption_text, "x" * 6, limit=5) == (
        "too_long",
        "A caption has at most 5 characters; this one has 6.",
        6,
    )
    assert refusal(caption_text, E_ACUTE * 3, limit=5)[2] == 6


# ---------------------------------------------------------------- the shared steps


def test_collapse_spaces() -> None:
    assert collapse_spaces(" a \t\n b\u00a0\u3000c\u2028 ") == "a b c"
    assert collapse_spaces("\u200b") == "\u200b", "a zero-width space is not whitespace"
    assert collapse_spaces("") == ""


def test_has_controls() -> None:
    assert all(has_controls(f"a{ch}") for ch in ("\x00", "\t", "\n", "\x1f", "\x7f", "\x80", "\x9f"))
    assert not any(has_controls(f"a{ch}") for ch in ("\u202e", "\u200b", "\u2028", "\u00a0", FAMILY))


def test_the_module_imports_nothing_of_fabulas() -> None:
    # the rules import it, and they import nothing else of ours
    tree = ast.parse(Path(fabula.text.__file__).read_text(encoding="utf-8"))
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and not node.level]
    assert imported
    assert not [name for name in imported if name.split(".")[0] == "fabula"], imported
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level], (
        "no relative import"
    )


def test_no_printable_character_is_of_a_category_refused_in_clues() -> None:
    # clue_text skips its look at each character when str.isprintable says the clue is printable;
    # that is exact only if no printable character is of a refused category, in this Python's
    # Unicode tables
    printable_but_refused = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if chr(code).isprintable() and unicodedata.category(chr(code)) in REFUSED_IN_CLUES
    ]
    assert printable_but_refused == []
    # and the unprintable ones still get the look: a zero-width space refused, a joiner kept
    assert refusal(clue_text, "a\u200bb", limit=10)[0] == "invalid"
    assert clue_text(FAMILY, limit=10) == FAMILY
