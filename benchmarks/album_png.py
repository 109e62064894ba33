"""How long a 30-round album takes to draw as a PNG, how much memory it takes, and how big it is.

    python benchmarks/album_png.py                     # odyssey, 6 players, 30 rounds, 5 runs;
                                                       # then party, 12 players, 24 rounds (2 cycles)
    python benchmarks/album_png.py --players 12 --rounds 15 --language zh-Hant --out /tmp/png2

Plays one game of random moves in a `Room` (as the album tests do) until ``--rounds`` rounds are
revealed, when the host ends it; fetches the original deck's pictures of the cards laid (WebP,
200 pixels wide: the thumbnails are 150–184) from `CardFiles`, as the server's route would, then
draws the whole album ``--runs`` times and one round as many times. Prints the render times (min
and median), the peak memory of one whole render (the process's peak resident memory grown by it,
from getrusage; and tracemalloc's peak of Python's own allocations — Pillow's pixels are not among
them), and the PNG's size and dimensions. Then the same for a party game of ``--party-players``
(12) and ``--party-rounds`` (24: two storyteller cycles; 0 skips it). With ``--out``, the PNGs drawn
are written to that folder (the whole albums and their middle rounds), to look at.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import resource
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from PIL import Image

from fabula.bots.random_player import random_action
from fabula.cards.files import CardFiles
from fabula.cards.library import DeckLibrary
from fabula.cards.original import original_deck
from fabula.protocol.settings import RoomSettings
from fabula.rules import Phase, numbered_deck
from fabula.server.entries import Acted, Created, Ended, Joined, Started
from fabula.server.room import Room
from fabula.server.room_settings import COLOURS
from fabula.story import Album
from fabula.story.picture import cards_needed, render_album


def played_album(mode: str, players: int, rounds: int, seed: int) -> Album:
    """A game of random moves that the host ends once ``rounds`` rounds are revealed (or that ends
    by itself before: a high target score makes that unlikely)."""
    rng = random.Random(seed)
    room = Room("BENCH")
    cycles = max(1, -(-rounds // players))  # (party and teams: enough cycles, so a whole number ends by itself)
    options: dict[str, Any] = (
        {"target_score": 999} if mode in ("odyssey", "classic") else {"storyteller_cycles": cycles}
    )
    if mode in ("odyssey", "classic"):
        options["end_on_empty_deck"] = False
    room.apply(Created(at=0.0, settings=RoomSettings(mode=mode, options=options)))
    names = ["Mara", "Ben", "小美", "Joshua", "Aiko", "小明", "Zoë", "Kwame", "Lena", "阿華", "Tom", "Priya"]
    for member in range(players):
        room.apply(
            Joined(at=1.0, member=member, name=names[member], colour=COLOURS[member], token_hash=f"h{member}", bot=None)
        )
    at = 1_764_600_000.0  # (a December 2025 evening: the album's date)
    room.apply(Started(at=at, seed=seed, seating=room.default_seating(), deck=list(numbered_deck(84))))
    game = room.game
    assert game is not None
    while game.phase is not Phase.OVER:
        at += 5.0
        if room.albums and len(room.albums[-1].rounds) >= rounds:
            room.apply(Ended(at=at, by=room.host))
            break
        seat = rng.choice(game.awaiting)
        move = random_action(game, seat, rng)
        room.apply(Acted(at=at, member=room.seating[seat], action=move.to_json(), auto=False, because=None))
    return room.albums[-1]


def pictures_of(album: Album, round_number: int | None = None) -> dict[str, bytes]:
    """The original deck's WebP of each card laid (the room dealt the numbered deck: c07 is the
    seventh card), as the server fetches them before it calls `render_album`."""
    with tempfile.TemporaryDirectory() as folder:
        files = CardFiles(DeckLibrary(Path(folder), builtin=[original_deck()]))
        return {card: files.get(f"fabula-{card[1:]}", "webp", 200).data for card in cards_needed(album, round_number)}


def timed(runs: int, album: Album, pictures: dict[str, bytes], **kwargs: Any) -> tuple[list[float], bytes]:
    times, data = [], b""
    for _ in range(runs):
        start = time.perf_counter()
        data = render_album(album, pictures, **kwargs)
        times.append(time.perf_counter() - start)
    return times, data


def maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (Linux: KiB)


def peak_reset() -> None:
    """The process's peak resident memory set back to what it holds now (Linux's clear_refs "5"),
    so a second album's peak is its own; elsewhere the peak stays (the second growth reads low)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def measure(args: argparse.Namespace, mode: str, players: int, rounds: int) -> dict[str, Any]:
    album = played_album(mode, players, rounds, args.seed)
    name = f"{mode}-{players}x{len(album.rounds)}-{args.language}"
    pictures = pictures_of(album)
    figures: dict[str, Any] = {"rounds": len(album.rounds), "cards": len(pictures)}
    figures["pictures_kib"] = sum(map(len, pictures.values())) / 1024
    # memory first, on a process that has not drawn an album yet: the growth of its peak is this render's
    peak_reset()
    before = maxrss_mib()
    tracemalloc.start()
    data = render_album(album, pictures, language=args.language)
    figures["tracemalloc_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    figures["maxrss_growth_mib"] = maxrss_mib() - before
    times, data = timed(args.runs, album, pictures, language=args.language)
    figures["seconds"] = times
    with Image.open(io.BytesIO(data)) as image:
        figures["size"] = image.size
    figures["png_kib"] = len(data) / 1024
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{name}.png").write_bytes(data)
    one = album.rounds[len(album.rounds) // 2].round if album.rounds else None
    if one is not None:
        times, data = timed(args.runs, album, pictures_of(album, one), language=args.language, round_number=one)
        figures["round_seconds"] = times
        with Image.open(io.BytesIO(data)) as image:
            figures["round_size"] = image.size
        figures["round_png_kib"] = len(data) / 1024
        if args.out is not None:
            (args.out / f"{name}-round{one}.png").write_bytes(data)
    return figures


def report(args: argparse.Namespace, figures: dict[str, Any], mode: str, players: int) -> None:
    def span(times: list[float]) -> str:
        return f"min {min(times) * 1000:.0f} ms, median {statistics.median(times) * 1000:.0f} ms ({len(times)} runs)"

    width, height = figures["size"]
    print(f"{mode}, {players} players, {figures['rounds']} rounds, {figures['cards']} card pictures")
    print(f"  (fetched as WebP 200 px: {figures['pictures_kib']:.0f} KiB in all), language {args.language}")
    print(f"whole album: {span(figures['seconds'])}")
    print(f"  PNG {width} × {height} px, {figures['png_kib']:.0f} KiB")
    print(f"  peak memory of one render: resident +{figures['maxrss_growth_mib']:.0f} MiB (getrusage maxrss)")
    print(f"  Python allocations' peak {figures['tracemalloc_peak_mib']:.1f} MiB (tracemalloc)")
    if "round_seconds" in figures:
        width, height = figures["round_size"]
        print(f"one round: {span(figures['round_seconds'])}")
        print(f"  PNG {width} × {height} px, {figures['round_png_kib']:.0f} KiB")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", default="odyssey", choices=["odyssey", "classic", "party", "teams"])
    parser.add_argument("--players", type=int, default=6, help="players (default 6)")
    parser.add_argument("--rounds", type=int, default=30, help="rounds revealed before the host ends (default 30)")
    parser.add_argument("--runs", type=int, default=5, help="renders timed (default 5)")
    parser.add_argument("--language", default="en", choices=["en", "zh-Hant", "zh-Hans"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--party-players", type=int, default=12, help="the party game's players (default 12)")
    parser.add_argument("--party-rounds", type=int, default=24, help="the party game's rounds (default 24; 0: none)")
    parser.add_argument("--out", type=Path, default=None, help="a folder to write the PNGs drawn to")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The figures of the album asked for; those of the party game under "party" (if drawn)."""
    args = parse_args(argv)
    figures = measure(args, args.mode, args.players, args.rounds)
    report(args, figures, args.mode, args.players)
    if args.party_rounds > 0:
        print()
        figures["party"] = measure(args, "party", args.party_players, args.party_rounds)
        report(args, figures["party"], "party", args.party_players)
    return figures


if __name__ == "__main__":
    main()
