"""What the server's parts refuse, and why."""

from __future__ import annotations

from fabula.rules.errors import RulesError


class RoomError(RulesError):
    """A request the room refuses (taken colour, not the host, game already started, …)."""
