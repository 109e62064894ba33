"""Where rooms live: an append-only log of entries per room, and nothing else.

The store knows nothing of the game: an entry is opaque bytes at a sequence number. A room is
rebuilt by replaying its entries, so an entry is acknowledged to a client only once `append`
has returned.
"""

from .base import EventStore, SeqTaken, StoredEntry
from .sqlite import SqliteStore

__all__ = ["EventStore", "SeqTaken", "SqliteStore", "StoredEntry"]
