"""The twelve rabbits' colours as hex, and the mark (an initial) each player's rabbit carries.

The browser's table is `src/fabula/web/static/rabbits.js` (``RABBITS``); the hex values exist
only there and here, so `tests/story/test_picture.py` checks that the two tables agree (and that
they name the room's `COLOURS`). The marks follow the same rule as the client's: a Chinese name
is told apart by its last character, a Latin one by its initial, then by two letters.

>>> RABBITS["red"], ink_on("yellow")
('#D7263D', '#222222')
>>> marks(["Mara", "Max", "小美", "小明"])
['M', 'Ma', '美', '明']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

RABBITS: dict[str, str] = {
    "red": "#D7263D",
    "pink": "#F49AC2",
    "yellow": "#F2C14E",
    "blue": "#2E86DE",
    "dark green": "#1B7F3B",
    "light green": "#8BD35B",
    "orange": "#F28C28",
    "brown": "#8B5A2B",
    "purple": "#7D3C98",
    "black": "#222222",
    "white": "#F5F5F5",
    "grey": "#9AA0A6",
}
#: a colour the client does not know (a room's record from a future version): drawn grey-blue
UNKNOWN = "#999999"
#: light rabbits carry dark letters (as in rabbits.js), and need an outline on a light page
LIGHT = frozenset({"pink", "yellow", "light green", "white", "grey", "orange"})

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def hex_of(colour: str) -> str:
    return RABBITS.get(colour, UNKNOWN)


def ink_on(colour: str) -> str:
    """The colour of a letter written on this rabbit."""
    return "#222222" if colour in LIGHT else "#FFFFFF"


def _candidates(name: str, by_first: bool = False) -> list[str]:
    chars = list(name.strip())
    if not chars:
        return ["?"]
    if _CJK.match(chars[0]):
        return [chars[0], *chars[1:]] if by_first else [chars[-1], chars[0], *chars[1:-1]]
    letters = [c for c in chars if c.isalnum()]
    first = (letters[0] if letters else chars[0]).upper()
    words = [word for word in name.split() if any(c.isalnum() for c in word)]
    found = [first]
    if len(words) > 1:
        found.append(first + next(c for c in words[1] if c.isalnum()).upper())
    if len(letters) > 1:
        found.append(first + letters[1].lower())
    return found


def marks(names: Sequence[str], by_first: Sequence[bool] = ()) -> list[str]:
    """A mark per name, different where it can be (the first name keeps the best one); a name
    ``by_first`` (a bot's colour: 深綠色 → 深) is told apart by its first character.

    >>> marks(["Dee", "Dark green"], by_first=[False, True]), marks(["深綠色"], by_first=[True])
    (['D', 'DG'], ['深'])
    """
    used: set[str] = set()
    found: list[str] = []
    for index, name in enumerate(names):
        options = _candidates(name, index < len(by_first) and by_first[index])
        mark = next((option for option in options if option not in used), options[0])
        used.add(mark)
        found.append(mark)
    return found
