"""Moves while a host uploads a hundred phone photos: do the other rooms' moves keep their latency?

    python benchmarks/uploads.py                 # 100 photos of 12 MP; 100 rooms × 6 players, ~500 moves/s
    python benchmarks/uploads.py --photos 20     # a quicker look

Starts one ``fabula serve`` (pinned to the first CPU, as `load.py` pins it; this script, the
players and the uploader on the others), then runs `load.py`'s paced phase twice on it: once
quiet, once while a host uploads ``--photos`` JPEGs of 4000 × 3000 pixels in requests of
``--per-request`` files. Prints the p50/p99 move latency of both runs, how long the upload took,
and the server's peak resident memory (VmHWM) after each.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from PIL import Image, ImageDraw, ImageFilter
from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import load  # noqa: E402  (the benchmark beside this one: its server, players and figures)

PHOTO_SIZE = (4000, 3000)  # 12 megapixels, a phone's


def photo(seed: int) -> bytes:
    """A 12 MP JPEG that compresses like a photo (smooth areas, edges, grain): ~2–4 MB."""
    rng = random.Random(seed)
    small = Image.new("RGB", (400, 300), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(small)
    for _ in range(40):
        x, y = rng.randrange(400), rng.randrange(300)
        box = (x, y, x + rng.randrange(20, 200), y + rng.randrange(20, 150))
        colour = tuple(rng.randrange(256) for _ in range(3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
    image = small.resize(PHOTO_SIZE, Image.Resampling.BICUBIC).filter(ImageFilter.GaussianBlur(3))
    grain = Image.effect_noise(PHOTO_SIZE, 12).convert("RGB")
    image = Image.blend(image, grain, 0.08)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def photos(count: int, folder: Path) -> list[Path]:
    """``count`` photos, made once and kept in ``folder`` for the next run."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"photo-{n:03d}.jpg" for n in range(count)]
    missing = [path for path in paths if not path.exists()]
    for path in tqdm(missing, desc="making photos", unit="photo", disable=not missing):
        path.write_bytes(photo(int(path.stem.rsplit("-", 1)[1])))
    return paths


def peak_memory_mib(pid: int) -> float:
    """The peak resident memory of ``pid`` (VmHWM), 0 if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def memory_line(pid: int) -> str:
    """The server's peak memory, and its picture worker's (the largest child) if it has one."""
    worker = max((peak_memory_mib(child) for child in children(pid)), default=0.0)
    line = f"server peak memory {peak_memory_mib(pid):.0f} MiB"
    return line + (f" (+ its picture worker {worker:.0f} MiB)" if worker else "")


def upload_all(url: str, paths: list[Path], per_request: int, report: dict[str, Any]) -> None:
    """Create a room and upload ``paths`` into it as its host, ``per_request`` files a request."""
    with httpx.Client(base_url=url, timeout=600) as http:
        seat = http.post("/api/rooms", json={"name": "Uploader", "colour": "red"}).json()
        headers = {"Authorization": f"Bearer {seat['token']}"}
        start = time.monotonic()
        taken = skipped = 0
        for first in range(0, len(paths), per_request):
            batch = paths[first : first + per_request]
            files = [("files", (path.name, path.read_bytes(), "image/jpeg")) for path in batch]
            answer = http.post(f"/api/rooms/{seat['code']}/pictures", headers=headers, files=files)
            if answer.status_code != 201:
                report["error"] = f"{answer.status_code} {answer.text[:200]}"
                return
            results = answer.json()
            taken += sum(r["status"] == "taken" for r in results)
            skipped += sum(r["status"] == "skipped" for r in results)
        report.update(seconds=time.monotonic() - start, taken=taken, skipped=skipped)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--photos", type=int, default=100, help="photos to upload (default 100)")
    parser.add_argument("--per-request", type=int, default=20, help="photos per upload request (default 20)")
    parser.add_argument("--rooms", type=int, default=100, help="rooms of paced players (default 100)")
    parser.add_argument("--duration", type=float, default=20, help="seconds measured per run (default 20)")
    parser.add_argument("--think", type=float, default=1.2, help="paced: mean seconds between a player's moves")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "fabula-bench-photos")
    args = parser.parse_args(argv)

    paths = photos(args.photos, args.cache)
    megabytes = sum(path.stat().st_size for path in paths) / 2**20
    print(f"{len(paths)} photos of {PHOTO_SIZE[0]} × {PHOTO_SIZE[1]}, {megabytes:.0f} MB in all")
    cpus = sorted(os.sched_getaffinity(0))
    pin = {cpus[0]} if len(cpus) >= 2 else None
    folder = Path(tempfile.mkdtemp(prefix="fabula-uploads-"))
    fabula = Path(sys.executable).with_name("fabula")
    command = [str(fabula)] if fabula.exists() else [sys.executable, "-c", "from fabula.cli import main; main()"]
    command += [
        "serve", "--port=0", f"--data={folder / 'data'}", "--max-connections-per-address=1000000",
        "--max-rooms-per-address=1000000", "--messages-per-second=1000", "--message-burst=1000",
        "--uploads-per-minute=1000", "--log-level=warning",
    ]  # fmt: skip
    server = load.start_server(command, "fabula serve", folder, pin)
    assert server.pid is not None
    if pin:
        os.sched_setaffinity(0, set(cpus[1:]))
    players = ["--server", server.url, "--server-pid", str(server.pid), "--phases", "paced", "--no-pin"]
    players += ["--rooms", str(args.rooms), "--duration", str(args.duration), "--ceiling", "none"]
    players += ["--think", str(args.think)]
    try:
        print("== quiet: paced players only")
        quiet = load.measure(load.parse_args(players), "fabula", ["paced"]).figures["paced"]
        quiet_memory = memory_line(server.pid)
        print(f"== while a host uploads {len(paths)} photos, {args.per_request} a request")
        report: dict[str, Any] = {}
        uploader = threading.Thread(target=upload_all, args=(server.url, paths, args.per_request, report))
        uploader.start()
        busy = load.measure(load.parse_args(players), "fabula", ["paced"]).figures["paced"]
        uploader.join()
        busy_memory = memory_line(server.pid)
    finally:
        server.stop()
    print("== figures")
    for name, figures, memory in (("quiet", quiet, quiet_memory), ("uploading", busy, busy_memory)):
        print(
            f" - {name}: {figures['actions_per_second']:.0f} actions/s, move latency p50 {figures['p50_ms']:.1f} ms, "
            f"p99 {figures['p99_ms']:.1f} ms, max {figures['max_ms']:.1f} ms; "
            f"errors {dict(figures['errors']) or 'none'}; {memory}"
        )
    if "error" in report:
        print(f" - the upload failed: {report['error']}")
    elif "seconds" in report:
        print(
            f" - upload: {report['taken']} taken, {report['skipped']} skipped in {report['seconds']:.1f} s "
            f"({report['seconds'] / max(1, len(paths)):.2f} s a photo); it outlasted the measured window "
            f"by {max(0.0, report['seconds'] - args.duration - 5):.0f} s"
        )


if __name__ == "__main__":
    main()
