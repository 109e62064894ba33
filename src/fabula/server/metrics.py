"""What `/metrics` reports, in the Prometheus text format (one registry per server, so tests
can run several servers in one process)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class Metrics:
    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.rooms = Gauge("fabula_rooms", "Rooms held by this process", registry=registry)
        self.connections = Gauge("fabula_connections", "Open WebSocket connections", registry=registry)
        self.messages = Counter("fabula_messages", "Client messages received", registry=registry)
        self.actions = Counter("fabula_actions", "Game actions accepted from clients", registry=registry)
        self.auto_moves = Counter(
            "fabula_auto_moves", "Moves made by bots (bot seats, timers, absent players)", registry=registry
        )
        self.model_bot_moves = Counter(
            "fabula_model_bot_moves",
            "Moves of model bots (--model-bot), by model and outcome: 'model' (the model's own move), or why its "
            "fallback level moved for it: no_model, busy, timeout, illegal, endpoint",
            ["model", "outcome"],
            registry=registry,
        )
        self.errors = Counter("fabula_errors", "Client messages refused, by error code", ["code"], registry=registry)
        # several processes (--database with --redis): how they keep step
        self.conflicts = Counter(
            "fabula_store_conflicts",
            "Appends refused because another process stored that seq first (the request was tried again)",
            registry=registry,
        )
        self.followed = Counter(
            "fabula_entries_followed", "Entries another process stored, applied here from the store", registry=registry
        )
        self.loaded = Counter(
            "fabula_entries_loaded",
            "Entries another process stored, read from the store to catch up (not carried by its notice or answer)",
            registry=registry,
        )
        self.sent_to_owner = Counter(
            "fabula_sent_to_owner",
            "Client changes sent to the process that owns their room, and answered by it",
            registry=registry,
        )
        self.made_for_others = Counter(
            "fabula_made_for_others",
            "Changes made here, as their room's owner, for another process's clients",
            registry=registry,
        )
        self.owner_unreachable = Counter(
            "fabula_owner_unreachable",
            "Client changes made here because their room's owner could not be asked (gone, Redis away, too slow)",
            registry=registry,
        )
        self.relayed = Gauge(
            "fabula_relayed_connections",
            "Client connections this process passes on whole to their room's owner (another process)",
            registry=registry,
        )
        self.hosted = Gauge(
            "fabula_hosted_connections",
            "Client connections other processes pass on to this one, their room's owner",
            registry=registry,
        )
        self.scheduled_elsewhere = Counter(
            "fabula_scheduled_elsewhere",
            "Due timer, bot or hand-off entries left to another process that held the lease",
            registry=registry,
        )
        self.bus_connected = Gauge(
            "fabula_bus_connected",
            "1 while the bus to the other processes is connected (always 1 with one process)",
            registry=registry,
        )
        self.bus_connected.set(1)
        self.action_seconds = Histogram(
            "fabula_action_seconds",
            "From receiving a game action to every connection of the room having its update queued",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=registry,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)
