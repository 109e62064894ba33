"""The ceiling of the transport: a bare WebSocket fan-out server on Fabula's stack.

Starlette under uvicorn, started with the uvicorn options of ``fabula serve`` (the same frame
limit, keep-alive pings, permessage-deflate offer, listening socket), speaking just enough of
the play protocol for ``benchmarks/load.py`` to drive it unchanged: seats over HTTP, ``hello`` →
``welcome`` + ``state``, ``legal`` → one move, ``act`` (and ``start``, ``rematch``) → a ``state``
with the room's next sequence number relayed to every connection of the room, then ``ack``. No
game, no store, no per-seat view: each relayed state is encoded once and carries the action
(and, with ``--sample``, a real Fabula state, so that the same bytes cross the same fan-out).

Run: ``python benchmarks/transport.py`` measures the ceiling alone (``load.py --target
transport --phases idle,max``; extra options go to load.py); ``--serve [--port P] [--sample F]``
runs the server itself, which is what load.py starts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import string
import sys
from pathlib import Path
from typing import Any

import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from fabula.server.local import listener, uvicorn_config


class Room:
    def __init__(self, code: str) -> None:
        self.code = code
        self.members = 0
        self.seq = 0
        self.started = False
        self.sockets: list[WebSocket] = []


def create_app(sample: dict[str, Any] | None) -> Starlette:
    rooms: dict[str, Room] = {}
    decoder = msgspec.json.Decoder()
    encoder = msgspec.json.Encoder()

    def seat(room: Room) -> JSONResponse:
        member = room.members
        room.members += 1
        return JSONResponse({"code": room.code, "member": member, "token": f"{room.code}:{member}"}, status_code=201)

    async def create_room(request: Request) -> Response:
        await request.body()
        code = "".join(random.choices(string.ascii_uppercase, k=5))
        rooms[code] = room = Room(code)
        return seat(room)

    async def join(request: Request) -> Response:
        await request.body()
        room = rooms.get(request.path_params["code"])
        if room is None:
            return JSONResponse({"error": {"code": "no_room", "message": "No such room."}}, status_code=404)
        return seat(room)

    async def healthz(request: Request) -> Response:  # noqa: ARG001
        return JSONResponse({"status": "ok", "rooms": len(rooms)})

    def state(room: Room, action: Any) -> str:
        body: dict[str, Any] = {
            "code": room.code,
            "seq": room.seq,
            "status": "playing" if room.started else "lobby",
            "game": {"phase": "play", "awaiting": list(range(room.members))},
            "action": action,
        }
        if sample is not None:
            body["sample"] = sample
        return encoder.encode({"type": "state", "room": body}).decode()

    async def relay(room: Room, action: Any) -> int:
        """The room's next entry: its state to every connection (encoded once); its seq."""
        entry = room.seq
        room.seq += 1
        text = state(room, action)
        for other in list(room.sockets):
            with contextlib.suppress(Exception):  # a connection closing meanwhile
                await other.send_text(text)
        return entry

    async def play(websocket: WebSocket) -> None:
        room = rooms.get(websocket.path_params["code"])
        await websocket.accept()
        if room is None:
            await websocket.close(code=4404)
            return
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                data = message.get("text") or message.get("bytes") or b""
                request = decoder.decode(data)
                kind, message_id = request.get("type"), request.get("id")
                if kind == "hello":
                    member = int(str(request.get("token")).rpartition(":")[2])
                    room.sockets.append(websocket)
                    await websocket.send_text(
                        encoder.encode({"type": "welcome", "id": message_id, "member": member, "chat": []}).decode()
                    )
                    await websocket.send_text(state(room, None))
                elif kind == "legal":
                    reply = {"type": "legal", "id": message_id, "actions": [{"type": "echo"}]}
                    await websocket.send_text(encoder.encode(reply).decode())
                elif kind in ("act", "start", "rematch"):
                    room.started = True
                    entry = await relay(room, request.get("action"))
                    await websocket.send_text(encoder.encode({"type": "ack", "id": message_id, "seq": entry}).decode())
                elif kind == "ping":
                    await websocket.send_text(encoder.encode({"type": "pong", "id": message_id}).decode())
        except WebSocketDisconnect:
            pass
        finally:
            with contextlib.suppress(ValueError):
                room.sockets.remove(websocket)

    return Starlette(
        routes=[
            Route("/api/rooms", create_room, methods=["POST"]),
            Route("/api/rooms/{code}/join", join, methods=["POST"]),
            Route("/healthz", healthz),
            WebSocketRoute("/ws/{code}", play),
        ]
    )


def serve(port: int, sample_path: Path | None) -> None:
    """As `fabula.commands.serve.run` does: our own TCP listener, then uvicorn's options."""
    sample = json.loads(sample_path.read_text()) if sample_path else None
    sock = listener("127.0.0.1", port)
    server = uvicorn.Server(uvicorn_config(create_app(sample), proxy_headers=True))
    print(f"transport is running — open http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    asyncio.run(server.serve(sockets=[sock]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0], add_help=False)
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--sample", type=Path)
    args, rest = parser.parse_known_args()
    if args.serve:
        serve(args.port, args.sample)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import load

    load.main(["--target", "transport", "--phases", "idle,max", *rest])


if __name__ == "__main__":
    main()
