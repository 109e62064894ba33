"""Played rounds → the evaluation data's JSON-lines format, so `fabula ai eval` reads them too.

Three sources, one row per round:

- ``fabula arena --log`` files (one round a line, `fabula.bots.arena.round_record`);
- a server's album of one game, as ``GET /api/rooms/{code}/games/{n}`` answers it, saved to a file
  (`fabula.story.Album.to_json`);
- a server's data folder: every finished game of every room in its ``rooms.sqlite3``
  (`fabula.store.SqliteStore`, each room replayed into `fabula.server.room.Room` albums).

A row is what ``val.jsonl`` holds — ``clue``, ``cards`` (the table in slot order),
``storyteller_card``, ``vote_share`` (each card's share of all the tokens laid, as the server's
bot memory counts them: `fabula.server.autoplay.past_round`) — plus ``players``, ``mode`` and
``source`` (where the round came from), which `fabula ai eval` passes over. Party rounds are left
out unless asked for: there the votes seek the image most others choose, not the storyteller's
card, which is what the evaluation measures. So is a round whose clue was said aloud at the table
without typed words (its ``clue`` is empty: nothing to read).

>>> from fabula.bots.arena import run_arena
>>> lines = []
>>> _ = run_arena("odyssey", 4, 1, ["random"], seed=3, record=lines.append)
>>> row = next(rows_from_log(lines, "demo"))
>>> sorted(row), row["storyteller_card"] in row["cards"], round(sum(row["vote_share"].values()), 6)
(['cards', 'clue', 'mode', 'players', 'source', 'storyteller_card', 'vote_share'], True, 1.0)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from fabula.cards.model import Card
from fabula.rules import RoundResult

#: the modes whose votes look for the storyteller's card (what ``fabula ai eval`` measures)
FINDING_MODES = ("odyssey", "classic", "teams")


def row(result: RoundResult, *, mode: str, players: int, source: str) -> dict[str, Any]:
    """One round in the evaluation format (with ``mode``, ``players`` and ``source``)."""
    from fabula.server.autoplay import past_round  # one definition of a vote share, the bots' memory's

    found = past_round(result).to_json()
    found.update(players=players, mode=mode, source=source)
    return found


def _wanted(mode: str, party: bool) -> bool:
    return party or mode in FINDING_MODES


def rows_from_log(
    records: Iterable[Mapping[str, Any]], source: str, *, party: bool = False
) -> Iterator[dict[str, Any]]:
    """The rows of ``fabula arena --log`` records (``source``: the log's name; each row's
    ``source`` adds the game and round). `ValueError` names a record that is not a round."""
    for number, record in enumerate(records, 1):
        try:
            result = RoundResult.from_json(dict(record))
            mode, players, game = str(record["mode"]), int(record["players"]), record["game"]
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{source}, record {number}: not an arena round ({error!r})") from None
        if _wanted(mode, party) and result.clue:
            yield row(result, mode=mode, players=players, source=f"{source}#game{game}/round{result.round}")


def rows_from_album(album: Mapping[str, Any], source: str, *, party: bool = False) -> Iterator[dict[str, Any]]:
    """The rows of one album (`Album.to_json`, the ``/api/rooms/{code}/games/{n}`` answer)."""
    try:
        mode, players, rounds = str(album["mode"]), len(album["players"]), album["rounds"]
        results = [RoundResult.from_json(item) for item in rounds]
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{source}: not a game's album ({error!r})") from None
    if _wanted(mode, party):
        for result in results:
            if result.clue:
                yield row(result, mode=mode, players=players, source=f"{source}/round{result.round}")


def read_log(path: str | Path, *, party: bool = False) -> list[dict[str, Any]]:
    """The rows of an arena log file (blank lines skipped)."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}, line {number}: not JSON ({error})") from None
    return list(rows_from_log(records, str(path), party=party))


def read_album(path: str | Path, *, party: bool = False) -> list[dict[str, Any]]:
    """The rows of an album saved from ``GET /api/rooms/{code}/games/{n}``."""
    with open(path, encoding="utf-8") as handle:
        try:
            album = json.load(handle)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}: not JSON ({error})") from None
    if not isinstance(album, dict):
        raise ValueError(f"{path}: an album is a JSON object")
    return list(rows_from_album(album, str(path), party=party))


async def _store_rows(path: Path, party: bool) -> list[dict[str, Any]]:
    from fabula.server.live_room import replay
    from fabula.store.sqlite import SqliteStore

    store = SqliteStore(path)
    try:
        found: list[dict[str, Any]] = []
        for code in sorted(await store.room_codes()):
            room = replay(code, await store.load(code))
            if room is None:
                continue
            for album in room.finished_albums():
                players = len(album.players)
                if _wanted(album.mode, party):
                    source = f"room {code}/game{album.number}"
                    found.extend(
                        row(result, mode=album.mode, players=players, source=f"{source}/round{result.round}")
                        for result in album.rounds
                        if result.clue
                    )
        return found
    finally:
        await store.close()


def read_store(data_dir: str | Path, *, party: bool = False) -> list[dict[str, Any]]:
    """The rows of every finished game of every room a server's data folder holds (its rooms'
    logs; a game whose room was swept away is not there). `FileNotFoundError` without a store."""
    path = Path(data_dir) / "rooms.sqlite3"
    if not path.is_file():
        raise FileNotFoundError(2, "no rooms.sqlite3 in the data folder", str(path))
    return asyncio.run(_store_rows(path, party))


def cards_json(rows: Sequence[Mapping[str, Any]], cards: Mapping[str, Card]) -> list[dict[str, Any]]:
    """The cards the rows name, in the ``--cards CARDS.json`` format of `fabula ai eval`
    (`KeyError` names a card not in ``cards``)."""
    wanted = sorted({card for item in rows for card in item["cards"]})
    missing = [card for card in wanted if card not in cards]
    if missing:
        raise KeyError(f"cards not in any known deck: {', '.join(missing[:5])}")
    return [
        {"id": card.id, "title": card.title, "description": card.description, "tags": list(card.tags)}
        for card in (cards[card_id] for card_id in wanted)
    ]
