"""The whole table at once: the PettingZoo envs' global ``state()``, for centralised critics
(a value function that sees what no single seat sees, as in CTDE methods: MAPPO, QMIX) and
for analysis.

The state is **every seat's observation together** — so it holds everything any seat knows:
every hand (but the party storyteller's before its blind clue, which the storyteller has not
seen either), each seat's card on the table and its votes once cast, whose card each slot holds,
the offers of teams and the red token. It holds nothing of what no seat knows: the order of the
draw pile and the game's seed (so of the chance to come). For that — the engine's own state,
every secret included — there is ``env.game`` (``Game.to_json()``).

- ``observations="text"`` (the default): one JSON text in printable ASCII (`JSON_CHARSET`, as
  the observations), ``{"views": [the view of seat 0, …], "cards": {id: {"title",
  "description"}}}`` — ``json.loads(state)["views"][s] == game.view(s).to_json()``, and the
  cards are every card any view names (the hands in seat order, the table, the last round's
  table), once each. ``state_space``: ``Text(seats × (VIEW_MAX + CARDS_MAX), charset=JSON_CHARSET)``.
- ``observations="vector"``: the seats' observation vectors one after another, a flat ``float32``
  array of ``seats × layout.size`` numbers — seat s's vector, number for number, is
  ``state[s * size:(s + 1) * size]``. ``state_space``: ``Box(-1, 100, (seats × size,), float32)``,
  the bounds of the observation space.

>>> import json
>>> from fabula.research.table import Table
>>> table = Table("odyssey", 4, options=None, seed=1, deck=None, clues=None)
>>> table.reset(None)
>>> state = json.loads(table_state(table))
>>> [view["hand"] == list(table.game.hand(seat)) for seat, view in enumerate(state["views"])]
[True, True, True, True]
>>> len(state["cards"])  # four hands of six
24
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from gymnasium import spaces

from .observations import CARDS_MAX, JSON_CHARSET, VIEW_MAX, view_text
from .vectors import Vector

if TYPE_CHECKING:
    from .table import Table

__all__ = ["state_space", "table_state"]


def state_space(table: Table) -> spaces.Text | spaces.Box:
    """The space of `table_state` for ``table``'s kind of observations (module docstring)."""
    seats = table.players
    if table.vectors is None:
        return spaces.Text(seats * (VIEW_MAX + CARDS_MAX), min_length=2, charset=JSON_CHARSET)
    layout = table.vectors[0]
    return spaces.Box(-1.0, 100.0, (seats * layout.size,), dtype=np.float32)


def table_state(table: Table) -> str | Vector:
    """The state of ``table``'s game now: every seat's observation together (module docstring)."""
    game = table.game
    seats = range(game.seats)
    views = game.views(seats)
    if table.vectors is None:
        texts = table.texts
        named: dict[str, None] = {}
        for seat in seats:
            named.update(texts.named(views[seat]))
        written = ",".join(view_text(views[seat]) for seat in seats)
        return "".join(('{"views":[', written, '],"cards":{', texts.entries(named), "}}"))
    layout, embeddings = table.vectors
    size = layout.size
    state = np.empty(game.seats * size, dtype=np.float32)
    for seat in seats:
        layout.encode(views[seat], embeddings, out=state[seat * size : (seat + 1) * size])
    return state
