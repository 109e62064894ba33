"""Where rooms live: an append-only log of entries per room, and nothing else.

The store knows nothing of the game: an entry is opaque bytes at a sequence number. A room is
rebuilt by replaying its entries, so an entry is acknowledged to a client only once `append`
has returned.

Backends: `SqliteStore` (the zero-setup default) and `PostgresStore` (several processes). Beside
them, the fan-out buses that tell other processes a room moved on (`LocalBus`, `RedisBus`) and
the leases that let one process fire a timer (`LocalLease`, `RedisLease`), and the presence that
tells every process who is connected to a room through the others (`RedisPresence`).
"""

from .base import EventStore, KeptGame, SeqTaken, StoredEntry
from .bus import HEARD, RESYNC, Bus, LocalBus, Notice, Subscription
from .lease import Lease, LeaseTable, LocalLease, RedisLease
from .postgres import PostgresStore
from .presence import SPECTATORS, RedisPresence, Seen
from .redis_bus import RedisBus
from .sqlite import SqliteStore

__all__ = [
    "HEARD",
    "RESYNC",
    "SPECTATORS",
    "Bus",
    "EventStore",
    "KeptGame",
    "Lease",
    "LeaseTable",
    "LocalBus",
    "LocalLease",
    "Notice",
    "PostgresStore",
    "RedisBus",
    "RedisLease",
    "RedisPresence",
    "Seen",
    "SeqTaken",
    "SqliteStore",
    "StoredEntry",
    "Subscription",
]
