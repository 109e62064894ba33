"""A server stops whole: on SIGTERM or Ctrl+C `fabula serve` tells its WebSocket clients to come
back (close code 1012), stops every process it started (the picture worker and multiprocessing's
resource tracker) and exits within seconds; killed outright, it still leaves no process behind."""

from __future__ import annotations

import asyncio
import io
import signal
import time
from pathlib import Path

import httpx
import pytest
from PIL import Image
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from fabula.server.config import Config
from fabula.server.pictures import PictureWorker

from .harness import ServeProcess, create_room, live_server

#: How long a stopped server and what it started may take to be gone.
GONE_SECONDS = 10.0


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, read from /proc (children of each of its threads)."""
    found: set[int] = set()
    waiting = [pid]
    while waiting:
        parent = waiting.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    waiting.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie counts as gone: it only waits to be reaped)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            running.add(pid)
    return running


def a_picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (600, 900), "purple").save(out, "PNG")
    return out.getvalue()


def upload_a_picture(url: str) -> None:
    seat = asyncio.run(create_room(url))
    response = httpx.post(
        f"{url}/api/rooms/{seat['code']}/pictures",
        headers={"Authorization": f"Bearer {seat['token']}"},
        files={"files": ("a.png", a_picture(), "image/png")},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    assert response.json()[0]["status"] == "taken"


@pytest.fixture
def serving(tmp_path: Path) -> ServeProcess:
    process = ServeProcess(["--data", str(tmp_path / "data"), "--log-format", "json"], tmp_path / "serve.log")
    process.start()
    return process


@pytest.mark.parametrize(
    ("sent", "exit_codes", "ignoring"),
    [
        (signal.SIGTERM, {-signal.SIGTERM, 0}, False),
        (signal.SIGINT, {130}, False),
        # a shell script's background job inherits Ctrl+C ignored: uvicorn's re-raise then does
        # nothing, and the server must still stop, and say so
        (signal.SIGINT, {130}, True),
        (signal.SIGKILL, {-signal.SIGKILL}, False),
    ],
    ids=["SIGTERM", "Ctrl+C", "Ctrl+C, ignored by the parent", "SIGKILL"],
)
def test_no_process_of_the_server_is_left_once_it_stops_after_an_upload(
    tmp_path: Path, sent: signal.Signals, exit_codes: set[int], ignoring: bool
) -> None:
    serving = ServeProcess(
        ["--data", str(tmp_path / "data"), "--log-format", "json"], tmp_path / "serve.log", ignore_interrupts=ignoring
    )
    serving.start()
    assert serving.proc is not None
    upload_a_picture(serving.url)
    started = descendants(serving.proc.pid)
    assert len(started) >= 1, "the upload started the picture worker"
    serving.proc.send_signal(sent)
    assert serving.proc.wait(timeout=GONE_SECONDS) in exit_codes, serving.log_tail()
    deadline = time.monotonic() + GONE_SECONDS
    while alive(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(started) == set(), f"left running after {sent.name}: {sorted(alive(started))}"


def test_websocket_clients_are_told_to_come_back_when_the_server_stops(serving: ServeProcess) -> None:
    assert serving.proc is not None
    seat = asyncio.run(create_room(serving.url))

    async def told() -> int | None:
        async with connect(f"ws://127.0.0.1:{serving.port}/ws/{seat['code']}") as socket:
            await socket.send(f'{{"type": "hello", "id": "h1", "token": "{seat["token"]}"}}')
            await socket.recv()  # welcome
            assert serving.proc is not None
            serving.proc.send_signal(signal.SIGTERM)
            try:
                while True:
                    await asyncio.wait_for(socket.recv(), GONE_SECONDS)
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd is not None else None

    assert asyncio.run(told()) == 1012
    assert serving.proc.wait(timeout=GONE_SECONDS) in {-signal.SIGTERM, 0}


def test_a_server_in_a_thread_stops_its_picture_worker_with_it(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as server:
        upload_a_picture(server.url)
        worker: PictureWorker = server.app.state.pictures.worker
        working = worker.pids()
        assert working, "the upload started the picture worker"
    assert alive(working) == set()


def test_a_worker_busy_past_its_time_is_killed(tmp_path: Path) -> None:
    del tmp_path

    async def stop_a_busy_worker() -> tuple[set[int], float]:
        worker = PictureWorker()
        assert await worker.run(sum, [1, 2]) == 3
        pids = worker.pids()
        busy = asyncio.ensure_future(worker.run(time.sleep, 60))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        await worker.stop(timeout=0.5)
        with pytest.raises(Exception):  # noqa: B017, PT011 - the pool tells its waiter it broke
            await busy
        return pids, time.monotonic() - started

    pids, took = asyncio.run(stop_a_busy_worker())
    assert took < 5
    deadline = time.monotonic() + GONE_SECONDS
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive(pids) == set()


def test_the_time_a_stop_may_take_is_a_setting() -> None:
    assert Config().shutdown_seconds == 5
    with pytest.raises(ValueError, match="shutdown-seconds"):
        Config(shutdown_seconds=-1)
