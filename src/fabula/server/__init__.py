"""The table: rooms, seats and the WebSocket protocol around the rules engine."""
