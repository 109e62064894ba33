"""What the operating system says about the processes under load: CPU time, resident memory,
open-file limits (all read from /proc, so that nothing runs inside the server to measure it)."""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

#: The processes of a local PostgreSQL and Redis (``comm`` names), whose CPU is counted apart.
BACKENDS = ("postgres", "redis-server")


def raise_nofile() -> tuple[int, int]:
    """Raise this process's open-file limit to its hard limit (children inherit it); (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (from /proc/PID/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    # the command name, in parentheses, may hold spaces: the fields are counted after it
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` (VmRSS of /proc/PID/status) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def settle(pids: Sequence[int], seconds: float) -> list[float] | None:
    """Resident memory of each of ``pids`` once it stopped moving (the smallest of a few readings)."""
    if not pids:
        return None
    time.sleep(seconds)
    readings: list[list[float]] = [[] for _ in pids]
    for _ in range(3):
        for found, pid in zip(readings, pids, strict=True):
            found.append(rss_mib(pid))
        time.sleep(0.2)
    return [min(found) for found in readings]


def cpu_times() -> dict[int, list[int]]:
    """Every CPU's jiffies from /proc/stat: user nice system idle iowait irq softirq steal."""
    found = {}
    for line in Path("/proc/stat").read_text().splitlines():
        name, *values = line.split()
        if name.startswith("cpu") and name != "cpu":
            found[int(name[3:])] = [int(v) for v in values[:8]]
    return found


def cpu_usage(before: dict[int, list[int]], after: dict[int, list[int]]) -> dict[int, dict[str, float]]:
    """Per CPU between two readings: percent busy (not idle or iowait) and percent in softirq."""
    usage = {}
    for cpu, start in before.items():
        delta = [b - a for a, b in zip(start, after[cpu], strict=True)]
        total = sum(delta) or 1
        usage[cpu] = {"busy": 100 * (total - delta[3] - delta[4]) / total, "softirq": 100 * delta[6] / total}
    return usage


def busy_seconds(before: dict[int, list[int]], after: dict[int, list[int]]) -> float:
    """CPU seconds the whole machine was busy (not idle or in iowait) between two readings."""
    busy = sum(
        sum(end) - end[3] - end[4] - (sum(start) - start[3] - start[4])
        for start, end in zip(before.values(), after.values(), strict=True)
    )
    return busy / os.sysconf("SC_CLK_TCK")


def nofile_of(pid: int) -> int | None:
    """The open-file limit of process ``pid``: the server's must cover every player."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    return None


def backend_cpu() -> dict[int, float]:
    """CPU seconds so far of every local PostgreSQL and Redis process (by pid)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        # a process may end while it is read: it is then simply not counted
        with contextlib.suppress(OSError, ValueError, IndexError):
            if (entry / "comm").read_text().strip() in BACKENDS:
                found[int(entry.name)] = cpu_seconds(int(entry.name))
    return found


def is_local(url: str | None) -> bool:
    """Whether a backend's URL names this machine (only then is its CPU measured)."""
    return url is None or urlsplit(url).hostname in (None, "", "localhost", "127.0.0.1", "::1")
