"""The event-store contract every backend keeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class SeqTaken(Exception):
    """Another writer appended at this (room, seq) first: reload the room and try again."""


@dataclass(frozen=True, slots=True)
class StoredEntry:
    seq: int
    data: bytes

    @staticmethod
    def ending_at(seq: int, data: Sequence[bytes]) -> list[StoredEntry]:
        """Entries as stored, in order, the last at ``seq`` (what a notice or an owner's answer
        carries).

        >>> [entry.seq for entry in StoredEntry.ending_at(7, [b"a", b"b"])]
        [6, 7]
        """
        first = seq - len(data) + 1
        return [StoredEntry(first + n, item) for n, item in enumerate(data)]


@dataclass(frozen=True, slots=True)
class KeptGame:
    """A finished game's public record, as `EventStore.keep_game` kept it."""

    #: increasing in the order the games were kept
    number: int
    key: str
    data: bytes


class EventStore(Protocol):
    """An append-only log per room. ``seq`` starts at 0 and has no gaps."""

    async def create_room(self, code: str, at: float) -> bool:
        """Reserve ``code``; False if a room of that code exists."""
        ...

    async def append(self, code: str, seq: int, data: bytes, at: float) -> None:
        """Durably store entry ``seq`` of room ``code``; `SeqTaken` if it exists."""
        ...

    async def append_many(self, code: str, seq: int, data: Sequence[bytes], at: float) -> None:
        """Durably store entries ``seq``, ``seq + 1``, … of room ``code`` in one transaction: all
        of them or, with `SeqTaken` if one exists, none."""
        ...

    async def load(self, code: str, since: int = 0) -> list[StoredEntry]:
        """The entries of room ``code`` from seq ``since`` on, in order (empty for an unknown
        room). A process catching up after another one appended asks only for what it lacks."""
        ...

    async def room_codes(self) -> list[str]:
        """The codes of every stored room."""
        ...

    async def touched(self, code: str) -> float | None:
        """When room ``code`` last had an entry appended (None: no such room)."""
        ...

    async def delete_room(self, code: str) -> None:
        """Forget room ``code`` and its log."""
        ...

    async def keep_game(self, key: str, data: bytes, at: float) -> bool:
        """Keep a finished game's public record (what the bots' memory learns from) under ``key``,
        unique to that game; False if one is already kept under it. Records outlive their room."""
        ...

    async def kept_games(self, after: int = 0) -> list[KeptGame]:
        """The kept games numbered above ``after``, oldest first."""
        ...

    async def share_album(self, secret_hash: str, code: str, data: bytes, at: float) -> None:
        """Keep a finished game's album (room ``code``'s) for whoever holds the link whose secret
        hashes to ``secret_hash``. Kept albums outlive their room."""
        ...

    async def shared_album(self, secret_hash: str) -> tuple[str, bytes] | None:
        """The room code and album kept under ``secret_hash`` (None: no such link)."""
        ...

    async def forget_shared_albums(self, before: float) -> int:
        """Forget the albums kept before ``before``; how many."""
        ...

    async def close(self) -> None: ...
