"""What a run prints: each phase's figures as it ends, then the verdicts against the targets of
issue 7 (and of issue 19 for the scale-out backends)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

#: Issue 7: players held, their p99 latency, actions a second at full load, share of the ceiling.
TARGET_PLAYERS, TARGET_P99_MS, TARGET_ACTIONS, TARGET_RATIO = 5000, 200.0, 1500.0, 0.5
#: Issue 19: one process over PostgreSQL + Redis does at least this share of the SQLite maximum.
TARGET_VERSUS_SQLITE = 0.70
#: Issue 19: paced over PostgreSQL + Redis, the p99 latency held.
TARGET_SCALE_OUT_P99_MS = 200.0


@dataclass
class Run:
    """What one server measured: every figure, for printing and for --json."""

    target: str
    players: int
    rooms: int
    figures: dict[str, Any] = field(default_factory=dict)


def report_idle(out: dict[str, Any], rooms: int, players: int) -> None:
    empty, seated, connected, playing = (
        out.get(k) for k in ("rss_empty", "rss_seated", "rss_connected", "rss_playing")
    )
    if empty is None or seated is None or connected is None or playing is None or not players:
        print("   (no server pid: resident memory not measured)")
        return
    out["kib_per_idle_player"] = 1024 * (connected - seated) / players
    out["kib_per_seated_room"] = 1024 * (seated - empty) / rooms
    out["kib_per_started_game"] = 1024 * (playing - connected) / rooms
    print(
        f"   resident memory: {empty:.1f} MiB empty → {seated:.1f} with {rooms} rooms seated → "
        f"{connected:.1f} with {players} players connected and idle → {playing:.1f} with the games started"
    )
    print(
        f"   idle connected player: {out['kib_per_idle_player']:.1f} KiB each; a seated room "
        f"{out['kib_per_seated_room']:.1f} KiB; a started game {out['kib_per_started_game']:.1f} KiB",
        flush=True,
    )


def report_phase(phase: str, f: dict[str, Any], args: argparse.Namespace) -> None:
    pace = (
        f"think {args.think:g} s ({args.jitter}): {f['connected'] / args.think:.0f} actions/s offered"
        if phase == "paced"
        else "as fast as possible"
    )
    errors = ", ".join(f"{code} {n}" for code, n in sorted(f["errors"].items())) or "none"
    generator = " + ".join(f"{cpu:.0f}%" for cpu in f["generator_cpu_percent"])
    print(f" - {phase}: {pace}, {f['seconds']:g} s window after {args.warmup:g} s warm-up")
    print(
        f"   {f['connected']} players connected; {f['actions_per_second']:.1f} actions/s sustained "
        f"({f['actions']} acked; {f['stale_legal']} stale 'legal'; {f['rematches']} rematches)"
    )
    print(
        f"   latency act → last player's update: p50 {f['p50_ms']:.1f} ms, p95 {f['p95_ms']:.1f}, "
        f"p99 {f['p99_ms']:.1f}, max {f['max_ms']:.1f} ({f['latency_samples']} samples)"
    )
    print(f"   errors (warm-up, window and drain): {errors}")
    if "server_cpu_percent" in f:
        per_action = f.get("server_cpu_us_per_action")
        several = f.get("servers")
        print(
            (
                f"   servers ({len(several)} processes together): CPU {f['server_cpu_percent']:.0f}% of a core"
                if several
                else f"   server: CPU {f['server_cpu_percent']:.0f}% of one core"
            )
            + (f" ({per_action:.0f} µs per action)" if per_action else "")
            + f", resident {f['server_rss_mib']:.1f} MiB "
            + ("(sum of each one's peak" if several else "(peak")
            + f" {f['server_rss_peak_mib']:.1f})"
        )
        for one in several or ():
            print(
                f"     pid {one['pid']}: CPU {one['cpu_percent']:.0f}%, resident {one['rss_mib']:.1f} MiB "
                f"(peak {one['rss_peak_mib']:.1f})"
            )
    if "server_instructions" in f:
        counted = f["server_instructions"]
        print(
            f"   instructions the server{'s' if len(counted) > 1 else ''} ran in the window (callgrind): "
            f"{sum(counted):,}"
            + (f" ({' + '.join(f'{n:,}' for n in counted)})" if len(counted) > 1 else "")
            + (f", {per:,.0f} per action" if (per := f.get("server_instructions_per_action")) else "")
        )
    if "actions_by_server" in f:
        print(
            "   actions acked, by the server the acting player is connected to: "
            + ", ".join(f"{url} {n}" for url, n in f["actions_by_server"].items())
        )
    if "backends_cpu_percent" in f:
        per_action = f.get("backends_cpu_us_per_action")
        print(
            f"   PostgreSQL + Redis: CPU {f['backends_cpu_percent']:.0f}% of a core"
            + (f" ({per_action:.0f} µs per action)" if per_action else "")
        )
    print(
        f"   generator: CPU {generator} of a core, loop lag p99 {f['generator_lag_p99_ms']:.1f} ms "
        f"(max {f['generator_lag_max_ms']:.1f}); received {f['messages_per_second']:.0f} messages/s, "
        f"{f['states_per_second']:.0f} states/s of {f['state_bytes_mean']:.0f} bytes"
    )
    print(
        "   machine: "
        + ", ".join(
            f"CPU {cpu} {use['busy']:.0f}% busy ({use['softirq']:.0f}% softirq)" for cpu, use in f["cpus"].items()
        )
        + ("" if f["others_cpu_percent"] is None else f"; other processes {f['others_cpu_percent']:.0f}% of a core")
    )
    if f["others_cpu_percent"] is not None and f["others_cpu_percent"] > 10:
        print("   ! other work on this machine competed for the CPUs during the window: figures are low and noisy")
    if any(cpu > 85 for cpu in f["generator_cpu_percent"]):
        print("   ! the generator is (near) saturated: this figure is bounded by the generator, not the server")
    print(flush=True)


def ceiling_lines(run: Run) -> list[str]:
    out, lines = run.figures, []
    for phase in ("paced", "max"):
        if found := out.get(phase):
            lines.append(
                f"{phase}: {found['actions_per_second']:.0f} actions/s with {found['connected']:,} connections, "
                f"p99 {found['p99_ms']:.0f} ms, server CPU {found.get('server_cpu_percent', float('nan')):.0f}% "
                f"of a core ({found.get('server_cpu_us_per_action', float('nan')):.0f} µs per action)"
            )
    if "kib_per_idle_player" in out:
        lines.append(f"resident memory per idle connection: {out['kib_per_idle_player']:.1f} KiB")
    return lines


def verdict(ok: bool) -> str:
    return "MET" if ok else "not met"


def verdicts(fabula: Run, ceilings: list[Run], args: argparse.Namespace) -> list[str]:
    lines = []
    out = fabula.figures
    paced = out.get("paced")
    if paced:
        players = paced["connected"]
        ok = (
            players >= TARGET_PLAYERS
            and paced["p99_ms"] <= TARGET_P99_MS
            and not paced["errors"]
            and args.think >= 10
            and args.players == 6
        )
        lines.append(
            f"{players:,} players, think {args.think:g} s: p99 {paced['p99_ms']:.0f} ms, "
            f"{sum(paced['errors'].values())} errors — target ≥ {TARGET_PLAYERS:,} players, six a room, one action "
            f"per 10 s, p99 ≤ {TARGET_P99_MS:.0f} ms, no errors: "
            + (verdict(ok) if players >= TARGET_PLAYERS else "not tested at this scale (--rooms 834)")
        )
    top = out.get("max")
    if top:
        ok = top["actions_per_second"] >= TARGET_ACTIONS and fabula.players >= TARGET_PLAYERS
        lines.append(
            f"max {top['actions_per_second']:.0f} actions/s with {top['connected']:,} players connected "
            + (f"({len(top['servers'])} servers' CPU together " if top.get("servers") else "(server CPU ")
            + f"{top.get('server_cpu_percent', float('nan')):.0f}% of a core) — target ≥ "
            f"{TARGET_ACTIONS:,.0f} at full load ({TARGET_PLAYERS:,} players): "
            + (verdict(ok) if fabula.players >= TARGET_PLAYERS else "not tested at this scale (--rooms 834)")
        )
        for ceiling in ceilings:
            bare = ceiling.figures.get("max")
            if not bare:
                continue
            ratio = top["actions_per_second"] / bare["actions_per_second"] if bare["actions_per_second"] else 0.0
            lines.append(
                f"ceiling ({ceiling.target}): {bare['actions_per_second']:.0f} actions/s, Fabula reaches "
                f"{ratio:.2f} of it"
                + (f" (Fabula on {args.servers} processes, the transport on one)" if args.servers > 1 else "")
                + f" — target ≥ {TARGET_RATIO}: {verdict(ratio >= TARGET_RATIO)}"
                + (
                    " (the generator was near saturation on the ceiling: the ratio is an upper bound)"
                    if any(c > 85 for c in bare["generator_cpu_percent"])
                    else ""
                )
            )
    if "kib_per_idle_player" in out:
        lines.append(f"resident memory per idle connected player: {out['kib_per_idle_player']:.1f} KiB")
    return lines


def versus_sqlite(sqlite: Run, scaled: Run, args: argparse.Namespace) -> list[str]:
    """The scale-out backends against SQLite, both measured in this run (``--versus-sqlite``)."""
    backends = "PostgreSQL + Redis" if args.redis else "PostgreSQL"
    where = f"{args.servers} processes" if args.servers > 1 else "one process"
    lines = []
    base, top = sqlite.figures.get("max"), scaled.figures.get("max")
    if base and top:
        ratio = top["actions_per_second"] / base["actions_per_second"] if base["actions_per_second"] else 0.0
        cpu = (top.get("server_cpu_us_per_action") or 0.0) / (base.get("server_cpu_us_per_action") or 1.0)
        lines.append(
            f"max, {top['connected']:,} players: {backends} on {where} {top['actions_per_second']:.0f} actions/s "
            f"against SQLite {base['actions_per_second']:.0f}: {ratio:.2f} (Fabula CPU per action {cpu:.2f}×) — "
            f"target ≥ {TARGET_VERSUS_SQLITE:.2f} on one process: "
            + (verdict(ratio >= TARGET_VERSUS_SQLITE) if args.servers == 1 else "(not one process)")
        )
    paced = scaled.figures.get("paced")
    if paced:
        ok = paced["p99_ms"] <= TARGET_SCALE_OUT_P99_MS and not paced["errors"]
        lines.append(
            f"paced over {backends}, {paced['connected']:,} players: {paced['actions_per_second']:.0f} actions/s, "
            f"p99 {paced['p99_ms']:.0f} ms, {sum(paced['errors'].values())} errors (SQLite: p99 "
            f"{sqlite.figures.get('paced', {}).get('p99_ms', float('nan')):.0f} ms) — target p99 ≤ "
            f"{TARGET_SCALE_OUT_P99_MS:.0f} ms, no errors: {verdict(ok)}"
        )
    return lines
