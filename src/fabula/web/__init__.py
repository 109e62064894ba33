"""The browser client: static files served by `fabula serve` (no build step)."""
