"""One SQLite connection for an asyncio server: each call runs in a worker thread, one at a time, so
the event loop never waits on the disk and the connection is never used by two threads at once."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")


class OneAtATime:
    """Runs work on ``db`` in a worker thread, one call at a time.

    >>> import asyncio, sqlite3
    >>> run = OneAtATime(sqlite3.connect(":memory:", check_same_thread=False))
    >>> asyncio.run(run(lambda db: db.execute("SELECT 1 + 1").fetchone()[0]))
    2
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._lock = threading.Lock()

    async def __call__(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def locked() -> _T:
            with self._lock:
                return work(self._db)

        return await asyncio.to_thread(locked)
