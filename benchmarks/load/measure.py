"""One run against one target: start (or find) the server(s), take the seats, connect the
players, then each phase — and what the operating system says the servers, their backends, the
generator and the rest of the machine spent meanwhile."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .generator import Generators, PhaseSpec
from .report import Run, report_idle, report_phase
from .seats import take_seats
from .servers import (
    Server,
    callgrind_control,
    instructions_counted,
    start_fabulas,
    start_transport,
    stop_servers,
)
from .system import (
    BACKENDS,
    backend_cpu,
    busy_seconds,
    cpu_seconds,
    cpu_times,
    cpu_usage,
    is_local,
    nofile_of,
    rss_mib,
    settle,
)


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * fraction))]


def describe(
    args: argparse.Namespace,
    target: str,
    urls: list[str],
    pids: list[int],
    out: dict[str, Any],
    *,
    pinned: bool,
    generator_cpus: set[int] | None,
) -> None:
    """Say what is loaded, and how the processes are pinned (into ``out`` too)."""
    cpus = sorted(os.sched_getaffinity(0))
    several = len(urls) > 1 or len(pids) > 1
    pid = pids[0] if pids else None
    if not several:
        print(f"\n== {target} at {urls[0]} (pid {pid}) — {args.rooms} rooms × {args.players} players", flush=True)
    else:
        print(
            f"\n== {target} at {', '.join(urls)} (pids {', '.join(map(str, pids)) or 'not given'}) — "
            f"{args.rooms} rooms × {args.players} players"
            + (
                (
                    f", each room's players split round-robin over the {len(urls)} servers"
                    if args.split == "player"
                    else f", each room's players all on one of the {len(urls)} servers (rooms split round-robin)"
                )
                if len(urls) > 1
                else ""
            ),
            flush=True,
        )
    if pid is not None and not several:
        out["server_nofile"] = nofile_of(pid)
        out["server_cpus"] = sorted(os.sched_getaffinity(pid))
        print(
            f"   server: RLIMIT_NOFILE {out['server_nofile']}, CPUs {out['server_cpus']}; "
            f"generator CPUs {sorted(generator_cpus) if generator_cpus else cpus}",
            flush=True,
        )
    elif several:
        out["server_pids"] = pids
        out["server_urls"] = urls
        out["server_nofile"] = [nofile_of(p) for p in pids]
        out["server_cpus"] = [sorted(os.sched_getaffinity(p)) for p in pids]
        for p, nofile, allowed in zip(pids, out["server_nofile"], out["server_cpus"], strict=True):
            print(f"   server pid {p}: RLIMIT_NOFILE {nofile}, CPUs {allowed}", flush=True)
        if args.server:
            pinning = "the given servers as they are (CPUs above); the generator " + (
                f"on CPUs {sorted(generator_cpus)}" if generator_cpus else "not pinned"
            )
        elif args.spread:
            pinning = (
                "each server process on a CPU of its own (--spread: server k on CPU k, round the CPUs); "
                "the generator, PostgreSQL and Redis not pinned: they share every CPU with the servers"
            )
        elif pinned:
            pinning = (
                f"all {len(pids)} server processes on CPU {cpus[0]}, sharing that one core; "
                f"the generator on CPUs {sorted(generator_cpus or ())}"
            )
        else:
            pinning = "nothing pinned (--no-pin): servers and generator share every CPU"
        print(f"   pinning: {pinning}", flush=True)
    out["generator_cpus"] = sorted(generator_cpus) if generator_cpus else cpus


def measure(args: argparse.Namespace, target: str, phases: list[str], sample: Path | None = None) -> Run:
    """Load ``target`` (``fabula`` or ``transport``) through ``phases``; every server and
    generator it started is stopped before it returns, however it ends."""
    cpus = sorted(os.sched_getaffinity(0))
    pin = args.pin and len(cpus) >= 2 and not args.spread
    server_cpus = {cpus[0]} if pin else None
    generator_cpus = set(cpus[1:]) if pin else None
    run = Run(target, args.rooms * args.players, args.rooms)
    out = run.figures
    servers: list[Server] = []
    generators: Generators | None = None
    try:
        if args.server:
            servers = [Server(url.rstrip("/"), None, name="given") for url in args.server]
            pids = list(args.server_pid or [])
        else:
            servers = start_fabulas(args, server_cpus) if target == "fabula" else [start_transport(sample, server_cpus)]
            pids = [server.pid for server in servers if server.pid is not None]
        urls = [server.url for server in servers]
        several = len(urls) > 1 or len(pids) > 1
        backends = target == "fabula" and not args.server and bool(args.database or args.redis)
        backends = backends and is_local(args.database) and is_local(args.redis)
        describe(args, target, urls, pids, out, pinned=pin, generator_cpus=generator_cpus)
        if backends:
            print(
                "   PostgreSQL and Redis: local, not pinned; their CPU (every process named "
                f"{' or '.join(BACKENDS)}) is measured apart",
                flush=True,
            )
        idle = "idle" in phases
        readings: dict[str, list[float]] = {}

        def memory(key: str) -> None:
            found = settle(pids, args.settle)
            out[key] = None if found is None else sum(found)
            if found is not None and several:
                readings[key] = found

        if idle:
            memory("rss_empty")
        started = time.monotonic()
        plans = asyncio.run(take_seats(urls, args.rooms, args.players, split=args.split))
        out["seats_seconds"] = time.monotonic() - started
        if idle:
            memory("rss_seated")
        generators = Generators(plans, args.workers, args.deflate, generator_cpus, args.client)
        connected = generators.ask("connect")
        out["connected"] = sum(c["connected"] for c in connected)
        out["connect_failures"] = dict(sum((Counter(c["failures"]) for c in connected), Counter()))
        out["connect_seconds"] = max(c["seconds"] for c in connected)
        out["deflate"] = any(c["deflate"] for c in connected)
        print(
            f"   {out['connected']} players connected in {out['connect_seconds']:.1f} s "
            f"(seats over HTTP in {out['seats_seconds']:.1f} s; permessage-deflate "
            f"{'on' if out['deflate'] else 'off'})"
            + (f"; failed: {out['connect_failures']}" if out["connect_failures"] else ""),
            flush=True,
        )
        if idle:
            memory("rss_connected")
        playing = sum(g["playing"] for g in generators.ask("start"))
        out["games_started"] = playing
        if idle:
            memory("rss_playing")
            report_idle(out, args.rooms, out["connected"])
            if readings:
                out["rss_each"] = readings
                for index, p in enumerate(pids):
                    print(
                        f"     pid {p}: "
                        + " → ".join(
                            f"{readings[key][index]:.1f}"
                            for key in ("rss_empty", "rss_seated", "rss_connected", "rss_playing")
                        )
                        + " MiB",
                        flush=True,
                    )
        for phase in ("paced", "max"):
            if phase not in phases:
                continue
            spec = PhaseSpec(
                phase, args.think, args.jitter == "uniform", time.monotonic() + 0.5, args.warmup, args.duration
            )
            out[phase] = run_phase(
                generators,
                spec,
                pids,
                signal_window=args.signal_window,
                counting=[server.folder for server in servers if server.folder] if args.callgrind else None,
                backends=backends,
                urls=urls if len(urls) > 1 else None,
            )
            report_phase(phase, out[phase], args)
    finally:
        if generators is not None:
            generators.close()
        stop_servers(servers)
    return run


def run_phase(
    generators: Generators,
    spec: PhaseSpec,
    pids: Sequence[int],
    *,
    signal_window: bool = False,
    counting: Sequence[Path] | None = None,
    backends: bool = False,
    urls: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One phase; CPU and memory of the server processes ``pids`` (summed, and each one's when
    several), of the local PostgreSQL and Redis if ``backends``; actions by server if ``urls``;
    with ``counting`` (the servers' folders, `--callgrind`), the instructions they ran in the window."""
    pids = list(pids)
    pipes = generators.pipes
    if counting:
        callgrind_control(pids, "--instr=on")
    for pipe in pipes:
        pipe.send(("run", spec))
    window_start = spec.start + spec.warmup
    window_end = window_start + spec.duration
    time.sleep(max(0.0, window_start - time.monotonic()))
    if signal_window:
        for pid in pids:
            os.kill(pid, signal.SIGUSR1)
    if counting:
        callgrind_control(pids, "--zero")
    cpu_start = [cpu_seconds(pid) for pid in pids]
    backend_start = backend_cpu() if backends else {}
    machine_start = cpu_times()
    ours_start = sum(cpu_seconds(p) for p in generators.pids()) + time.process_time()
    rss_peak = [0.0 for _ in pids]
    while time.monotonic() < window_end:
        time.sleep(min(1.0, max(0.0, window_end - time.monotonic())))
        rss_peak = [max(peak, rss_mib(pid)) for peak, pid in zip(rss_peak, pids, strict=True)]
    cpu_used = [cpu_seconds(pid) - start for pid, start in zip(pids, cpu_start, strict=True)]
    if counting:
        callgrind_control(pids, "--dump=window")
    backend_end = backend_cpu() if backends else {}
    machine_end = cpu_times()
    ours = sum(cpu_seconds(p) for p in generators.pids()) + time.process_time() - ours_start
    machine = cpu_usage(machine_start, machine_end)
    busy = busy_seconds(machine_start, machine_end)
    # a backend process born in the window (a new PostgreSQL connection) counts whole
    backend_used = sum(used - backend_start.get(pid, 0.0) for pid, used in backend_end.items())
    if signal_window:
        for pid in pids:
            os.kill(pid, signal.SIGUSR2)
    answers = []
    for pipe in pipes:
        if not pipe.poll(spec.drain + 120):
            raise RuntimeError("a generator did not finish its phase")
        answers.append(pipe.recv())
    latencies = sorted(value for answer in answers for value in answer["latencies"])
    errors = sum((Counter(answer["errors"]) for answer in answers), Counter())
    actions = sum(answer["actions"] for answer in answers)
    states = sum(answer["states"] for answer in answers)
    figures: dict[str, Any] = {
        "mode": spec.mode,
        "think": spec.think if spec.mode == "paced" else None,
        "seconds": spec.duration,
        "connected": sum(answer["connected"] for answer in answers),
        "actions": actions,
        "actions_per_second": actions / spec.duration,
        "acts_sent": sum(answer["acts_sent"] for answer in answers),
        "stale_legal": sum(answer["stale"] for answer in answers),
        "rematches": sum(answer["rematches"] for answer in answers),
        "latency_samples": len(latencies),
        "p50_ms": percentile(latencies, 0.50),
        "p95_ms": percentile(latencies, 0.95),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": latencies[-1] if latencies else float("nan"),
        "mean_ms": statistics.fmean(latencies) if latencies else float("nan"),
        "errors": dict(errors),
        "states_per_second": states / spec.duration,
        "messages_per_second": sum(answer["messages"] for answer in answers) / spec.duration,
        "state_bytes_mean": sum(answer["state_bytes"] for answer in answers) / states if states else 0.0,
        "backlog": max(answer["backlog"] for answer in answers),
        "generator_cpu_percent": [100 * answer["cpu"] / spec.duration for answer in answers],
        "generator_lag_p99_ms": max(answer["lag_p99"] for answer in answers),
        "generator_lag_max_ms": max(answer["lag_max"] for answer in answers),
        "sample": next((answer["sample"] for answer in answers if answer["sample"]), None),
        "cpus": machine,
        # busy CPU time that was neither the server's nor the load's: other work on the machine
        "others_cpu_percent": None if not pids else 100 * (busy - ours - sum(cpu_used) - backend_used) / spec.duration,
    }
    if counting:
        callgrind_control(pids, "--instr=off")
        counted = [instructions_counted(folder) for folder in counting]
        figures["server_instructions"] = counted
        if actions:
            figures["server_instructions_per_action"] = sum(counted) / actions
    if pids:
        rss_now = [rss_mib(pid) for pid in pids]
        figures["server_cpu_percent"] = 100 * sum(cpu_used) / spec.duration
        figures["server_rss_mib"] = sum(rss_now)
        figures["server_rss_peak_mib"] = sum(rss_peak)  # with several: the sum of each one's peak
        if actions:
            figures["server_cpu_us_per_action"] = 1e6 * sum(cpu_used) / actions
        if len(pids) > 1:
            figures["servers"] = [
                {"pid": pid, "cpu_percent": 100 * used / spec.duration, "rss_mib": now, "rss_peak_mib": peak}
                for pid, used, now, peak in zip(pids, cpu_used, rss_now, rss_peak, strict=True)
            ]
    if backends:
        figures["backends_cpu_percent"] = 100 * backend_used / spec.duration
        if actions:
            figures["backends_cpu_us_per_action"] = 1e6 * backend_used / actions
    if urls is not None:
        acked_by = sum((Counter(answer["acked_by"]) for answer in answers), Counter())
        figures["actions_by_server"] = {url: acked_by.get(url, 0) for url in urls}
    return figures
