"""Every HTTP answer carries the security headers: pages, scripts, the API (its refusals too),
pictures, QR codes, operations."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from fabula.server.headers import HEADERS

from .harness import create_room, live_server

pytestmark = pytest.mark.anyio


async def test_every_kind_of_answer_carries_the_security_headers(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        seat = await create_room(server.url)
        code = seat["code"]
        async with httpx.AsyncClient(base_url=server.url) as http:
            answers = {
                "page": await http.get(f"/room/{code}"),
                "script": await http.get("/static/app.js"),
                "style": await http.get("/static/style.css"),
                "api": await http.get("/api/modes"),
                "refusal": await http.get("/api/rooms/ZZZZZ"),
                "bad body": await http.post("/api/rooms", content=b"not json"),
                "no such route": await http.get("/nowhere"),
                "card": await http.get("/cards/odyssey-001.svg"),
                "qr": await http.get(f"/api/rooms/{code}/qr.svg"),
                "health": await http.get("/healthz"),
                "metrics": await http.get("/metrics"),
            }
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses["page"] == statuses["api"] == statuses["qr"] == 200, statuses
    assert statuses["refusal"] == statuses["no such route"] == 404, statuses
    missing = {
        name: [header for header, value in HEADERS.items() if answer.headers.get(header) != value]
        for name, answer in answers.items()
    }
    assert {name: headers for name, headers in missing.items() if headers} == {}


@pytest.mark.parametrize(
    "directive",
    ["script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'", "connect-src 'self'"],
)
def test_the_policy_forbids_inline_scripts_framing_and_plugins(directive: str) -> None:
    assert directive in HEADERS["Content-Security-Policy"].split("; ")
    assert "unsafe-inline" not in HEADERS["Content-Security-Policy"]
    assert "unsafe-eval" not in HEADERS["Content-Security-Policy"]
