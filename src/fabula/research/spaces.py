"""The Gymnasium spaces of the research environments: one action space, one observation space.

- **Action**: with a clue vocabulary, ``Discrete(n)`` — the ids of `fabula.research.actions`.
  With free-text clues, `ClueActionSpace`: a ``Tuple((Discrete(n), Text(CLUE_MAX)))`` of the id
  and the clue (the clue is read only for a clue move). A bare id is accepted too, and then a
  clue move tells `DEFAULT_CLUE`. Its ``sample(mask)`` takes the observation's flat
  ``action_mask`` for the id — what PettingZoo's own tests pass it — and draws a clue the engine
  accepts from `CLUE_CHARSET`.
- **Observation**: ``Dict(view=Text, cards=Text, action_mask=Box(0, 1, (n,), int8))``, the texts
  of `fabula.research.observations` (JSON in printable ASCII).

>>> from fabula.research.actions import ActionSpace
>>> space = ActionSpace.create("odyssey", 4)
>>> actions = action_space(space, seed=1)
>>> actions
ClueActionSpace(Discrete(16), Text(1, 200, charset=...))
>>> mask = space.mask(__import__("fabula.rules").rules.Game.new("odyssey", 4, seed=2), 0)
>>> id, clue = actions.sample(mask)
>>> bool(mask[id]) or not mask.any(), 1 <= len(clue) <= 200
(True, True)
>>> sorted(observation_space(space))
['action_mask', 'cards', 'view']
"""

from __future__ import annotations

import copy
import unicodedata
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from fabula.rules import CLUE_MAX, IllegalAction, clean_clue

from .actions import DEFAULT_CLUE, ActionSpace
from .observations import CARDS_MAX, JSON_CHARSET, VIEW_MAX
from .vectors import VectorLayout

__all__ = ["CLUE_CHARSET", "DEFAULT_CLUE", "ClueActionSpace", "action_space", "observation_space", "vector_space"]

#: The ranges of `CLUE_CHARSET`: ASCII letters, digits, punctuation and space; Latin letters with
#: accents (Latin-1, Latin Extended-A) and the typographic quotes, dashes and ellipsis; CJK
#: punctuation, kana, the unified ideographs, Hangul syllables and the full-width forms.
_CLUE_RANGES = (
    (0x20, 0x7E),
    (0xA1, 0xA1),
    (0xAB, 0xAB),
    (0xB7, 0xB7),
    (0xBB, 0xBB),
    (0xBF, 0xBF),
    (0xC0, 0x17F),
    (0x2013, 0x2014),
    (0x2018, 0x201E),
    (0x2026, 0x2026),
    (0x3000, 0x3011),
    (0x3041, 0x3096),
    (0x30A1, 0x30FA),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xFF01, 0xFF5E),
)


@cache
def _clue_charset() -> str:
    # assigned characters only, and none the engine refuses in a clue (× and ÷ are symbols: kept)
    chars = (chr(c) for low, high in _CLUE_RANGES for c in range(low, high + 1))
    return "".join(ch for ch in chars if unicodedata.category(ch) not in {"Cn", "Cc", "Cf", "Cs", "Zl", "Zp"})


@cache
def _clue_array() -> npt.NDArray[np.str_]:
    return np.array(list(_clue_charset()))


#: Every character a free-text clue of the action space may hold (about 33,000).
CLUE_CHARSET = _clue_charset()


@cache
def _clue_text() -> spaces.Text:
    return spaces.Text(CLUE_MAX, charset=_clue_charset())


def _new_clue_text() -> spaces.Text:
    """A Text of `CLUE_CHARSET` with its own random generator: a shallow copy of one built once,
    since building its charset tables takes 30 ms (12 agents: a third of a second per env)."""
    text = copy.copy(_clue_text())
    text._np_random = None  # type: ignore[assignment]  # Space seeds itself when first asked
    return text


class ClueActionSpace(spaces.Tuple[Any]):
    """``Tuple((Discrete(n), Text(CLUE_MAX, charset=CLUE_CHARSET)))``: a move id and its clue."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__((spaces.Discrete(n), _new_clue_text()), seed=seed)
        self._chars = _clue_array()

    def sample(self, mask: Any = None, probability: Any = None) -> tuple[Any, ...]:
        """An id (among the 1s of ``mask`` — the flat action mask — if given; a tuple mask is
        the Tuple's own) and a random clue of 1 to `CLUE_MAX` characters that the engine accepts."""
        if isinstance(mask, tuple) or probability is not None:
            return super().sample(mask, probability)
        ids, text = self.spaces
        id = ids.sample(mask)
        rng = text.np_random
        while True:
            # Drawn here, not by Text.sample, which builds a probability vector of the whole
            # charset on every call: a hundred times slower.
            clue = "".join(self._chars[rng.integers(0, len(self._chars), size=int(rng.integers(1, CLUE_MAX + 1)))])
            try:
                clean_clue(clue)
            except IllegalAction:  # blank: draw again
                continue
            return (id, clue)

    def __repr__(self) -> str:
        ids, _ = self.spaces
        return f"ClueActionSpace({ids}, Text(1, {CLUE_MAX}, charset=...))"


def action_space(space: ActionSpace, seed: int | None = None) -> spaces.Discrete | ClueActionSpace:
    """The Gymnasium action space of ``space`` (module docstring)."""
    if space.free_text:
        return ClueActionSpace(space.n, seed=seed)
    return spaces.Discrete(space.n, seed=seed)


def observation_space(space: ActionSpace, seed: int | None = None) -> spaces.Dict:
    """The Gymnasium observation space of ``space`` (module docstring)."""
    return spaces.Dict(
        {
            "view": spaces.Text(VIEW_MAX, min_length=2, charset=JSON_CHARSET),
            "cards": spaces.Text(CARDS_MAX, min_length=2, charset=JSON_CHARSET),
            "action_mask": spaces.Box(0, 1, (space.n,), dtype=np.int8),
        },
        seed=seed,
    )


def vector_space(space: ActionSpace, layout: VectorLayout, seed: int | None = None) -> spaces.Dict:
    """The observation space of ``observations="vector"``: ``Dict(observation=Box(float32),
    action_mask=Box(int8))``, the shape of PettingZoo's classic environments. Every number of the
    layout lies in [-1, 100] (embeddings in [-1, 1], scores ÷ 30)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(-1.0, 100.0, (layout.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (space.n,), dtype=np.int8),
        },
        seed=seed,
    )
