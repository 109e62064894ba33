"""What an operator watches: ``/healthz`` (is this process serving) and ``/metrics`` (Prometheus)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .backends import Backends
from .metrics import Metrics
from .rooms import Rooms


class Operations:
    def __init__(self, metrics: Metrics, rooms: Callable[[], Rooms], backends: Callable[[], Backends | None]) -> None:
        self.metrics, self.rooms, self.backends = metrics, rooms, backends

    def routes(self) -> list[Route]:
        return [Route("/healthz", self.healthz), Route("/metrics", self.metrics_page)]

    async def healthz(self, request: Request) -> Response:
        health: dict[str, Any] = {"status": "ok", "rooms": len(self.rooms().held)}
        backends = self.backends()
        if backends is not None and backends.shared:
            # Still "ok" while the bus is down: this process serves its clients, the store keeps
            # them consistent, and taking every process out at once would be worse.
            health |= {"store": "postgresql", "bus": "redis", "bus_connected": backends.bus_connected}
        return JSONResponse(health)

    async def metrics_page(self, request: Request) -> Response:
        backends = self.backends()
        if backends is not None:
            self.metrics.bus_connected.set(1 if backends.bus_connected else 0)
        return Response(self.metrics.render(), media_type="text/plain; version=0.0.4")
