"""benchmarks/load/ (``python -m benchmarks.load``) drives a real `fabula serve`, and the bare transport, over
real sockets."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import asyncpg
import pytest

from ..services import postgres_url, redis_url, run_aside

__all__ = ["postgres_url", "redis_url"]  # fixtures, used by name

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def load() -> ModuleType:
    # the generator processes import the package by name, so it must be importable as `load`, as
    # the other benchmarks import it
    sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("load")


#: two rooms of three players, idle then paced then flat out, a couple of seconds each
SHORT_RUN = [
    "--rooms=2",
    "--players=3",
    "--think=1",
    "--duration=2",
    "--warmup=1",
    "--no-pin",
    "--server-log-level=warning",
]


def short_run(load: ModuleType, *extra: str) -> dict[str, Any]:
    """The figures of a short run on Fabula, after the checks every such run must pass."""
    figures: dict[str, Any] = load.measure(
        load.parse_args([*SHORT_RUN, *extra]), "fabula", ["idle", "paced", "max"]
    ).figures
    assert figures["connected"] == 6
    assert figures["games_started"] == 2
    assert figures["kib_per_idle_player"] > 0
    for phase in ("paced", "max"):
        found = figures[phase]
        assert found["errors"] == {}, phase
        assert found["actions"] > 0, phase
        # every acknowledged act in the window reached all three players of its room
        assert found["latency_samples"] > 0
        assert 0 < found["p50_ms"] <= found["p99_ms"] <= found["max_ms"] < 5000
    return figures


def test_short_load_on_fabula(load: ModuleType) -> None:
    figures = short_run(load)
    for phase in ("paced", "max"):
        found = figures[phase]
        # the kernel counts CPU time in 10 ms ticks: a dozen paced actions may cost less than one
        assert found["server_cpu_percent"] >= 0
    assert figures["max"]["server_cpu_percent"] > 0
    assert figures["max"]["actions_per_second"] > figures["paced"]["actions_per_second"]


def test_short_load_on_two_processes(load: ModuleType, postgres_url: str, redis_url: str) -> None:
    figures = short_run(load, "--servers=2", f"--database={postgres_url}", f"--redis={redis_url}", "--settle=0.5")
    assert len(figures["server_pids"]) == 2
    assert set(figures["rss_each"]) == {"rss_empty", "rss_seated", "rss_connected", "rss_playing"}
    # every player acts on what its own process sent it (no move of a stale view is refused), and
    # each act reached all three players of its room, on both processes: checked in short_run
    for phase in ("paced", "max"):
        found = figures[phase]
        assert [one["pid"] for one in found["servers"]] == figures["server_pids"]
        assert found["server_cpu_percent"] == pytest.approx(sum(one["cpu_percent"] for one in found["servers"]))
        assert found["backends_cpu_percent"] >= 0
        assert sum(found["actions_by_server"].values()) == found["actions"]
    # every room spans both processes: both acknowledged moves
    assert all(n > 0 for n in figures["max"]["actions_by_server"].values())
    assert all(one["cpu_percent"] > 0 for one in figures["max"]["servers"])

    async def schema_left() -> bool:
        connection = await asyncpg.connect(postgres_url)
        try:
            found = await connection.fetchval(
                "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", f"fabula_load_{os.getpid()}"
            )
        finally:
            await connection.close()
        return bool(found)

    assert not run_aside(schema_left)


def test_several_servers_need_the_shared_backends(load: ModuleType) -> None:
    with pytest.raises(SystemExit):
        load.parse_args(["--servers=2"])
    with pytest.raises(SystemExit):
        load.parse_args(["--servers=2", "--database=postgresql://x/y", "--redis=redis://x", "--server=http://x"])
    args = load.parse_args(["--server=http://a:1", "--server=http://b:2/", "--server-pid=1", "--server-pid=2"])
    assert args.server == ["http://a:1", "http://b:2/"]
    assert args.server_pid == [1, 2]


def test_short_load_through_fabula_client(load: ModuleType) -> None:
    # the same players through fabula.client.Client (--client fabula): the same checks hold
    figures = short_run(load, "--client=fabula")
    assert figures["max"]["actions_per_second"] > figures["paced"]["actions_per_second"]


def started_by(mark: str) -> list[str]:
    """The command lines of the processes still running whose environment holds ``mark``
    (every process a run starts inherits it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:  # ended meanwhile, or not ours to read
            continue
    return found


#: a short run of the command line: Fabula flat out for a second, then the transport's
COMMAND_LINE = [
    sys.executable,
    "-m",
    "benchmarks.load",
    "--rooms=2",
    "--players=3",
    "--phases=max",
    "--warmup=0.5",
    "--no-pin",
    "--ceiling=echo",
    "--server-log-level=warning",
]


def marked() -> dict[str, str]:
    """An environment whose mark every process of the run inherits (`started_by`)."""
    return {**os.environ, "FABULA_LOAD_TEST_MARK": f"fabula-load-test-{os.getpid()}-{os.urandom(4).hex()}"}


def none_left(env: dict[str, str]) -> list[str]:
    """What the run of ``env`` left running: nothing, once multiprocessing's resource tracker has
    seen the run's end (a moment after it)."""
    mark = env["FABULA_LOAD_TEST_MARK"]
    deadline = time.monotonic() + 5
    while started_by(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    return started_by(mark)


def completed_run(command: list[str]) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """``command`` run to its end with a marked environment (`marked`): it succeeded; its output,
    and the environment to look for what it left running."""
    env = marked()
    result = subprocess.run(
        command, cwd=BENCHMARKS.parent, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    return result, env


def test_the_command_line_runs_and_stops_what_it_started() -> None:
    result, env = completed_run([*COMMAND_LINE, "--duration=1"])
    assert " actions/s sustained (" in result.stdout
    assert "== verdicts" in result.stdout
    assert "ceiling (transport/echo): " in result.stdout
    # the servers (Fabula's, the transport's) and the generator processes are all gone
    assert none_left(env) == []


AUDIENCE_RUN = [sys.executable, "-m", "benchmarks.load", "--audience=40", "--think=0.5", "--duration=4", "--no-pin"]


def test_an_audience_run_counts_every_vote_and_stops_its_audience_process() -> None:
    """``--audience``: the audience in a process of its own (so that the players' latency is the
    server's); every act shown to every audience connection, the votes counted exactly; nothing
    left running."""
    result, env = completed_run([*AUDIENCE_RUN, "--server-log-level=warning"])
    assert "6 players, 40 audience over 1 process(es)" in result.stdout
    assert "(0 acts never shown to someone)" in result.stdout
    assert "exactly the acknowledged" in result.stdout
    assert "the players' p99 with the audience against without: " in result.stdout
    assert none_left(env) == []


def test_an_audience_split_over_two_processes_is_counted_as_one() -> None:
    """``--crowd-processes 2``: the two halves' states and votes added up (every act shown to all
    40, the votes counted exactly), their loop lag reported, and both processes stopped. Every
    4th connection of the two halves stamped (``--stamps 4``): a change reached their sockets no
    later than the last of all 40 read it."""
    result, env = completed_run(
        [*AUDIENCE_RUN, "--crowd-processes=2", "--stamps=4", "--server-log-level=warning", "--json"]
    )
    assert "(0 acts never shown to someone)" in result.stdout
    assert "exactly the acknowledged" in result.stdout
    figures = json.loads(result.stdout[result.stdout.index("\n{") + 1 :])
    found = figures["with"]
    assert found["coverage"]["saw_the_last"] == 40
    assert found["crowd_lag_ms"]["n"] > 0
    assert found["audience_stamped"] == 10
    assert found["audience_ms"]["n"] == found["audience_read_ms"]["n"] == found["acts"]
    assert found["audience_ms"]["max"] <= found["audience_read_ms"]["max"]
    assert found["players_ms"]["max"] <= found["players_read_ms"]["max"]
    assert len(found["players_samples"]) == found["players_ms"]["n"] == found["acts"]
    assert found["players_by_server_ms"] == [found["players_ms"]]  # (one server: all six on it)
    assert max(found["players_samples"]) == pytest.approx(found["players_ms"]["max"], abs=0.06)
    assert none_left(env) == []


def test_sigterm_stops_what_the_run_started() -> None:
    env = marked()
    run = subprocess.Popen(
        [*COMMAND_LINE, "--duration=60"],
        cwd=BENCHMARKS.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert run.stdout is not None
    try:
        for line in run.stdout:
            if "players connected in" in line:  # the server and the generator are running
                break
        assert len(started_by(env["FABULA_LOAD_TEST_MARK"])) >= 2
        run.terminate()
        assert run.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert none_left(env) == []


def test_transport_relays_to_the_room(load: ModuleType) -> None:
    args = load.parse_args(["--rooms=2", "--players=3", "--duration=1", "--warmup=0.5", "--no-pin"])
    found = load.measure(args, "transport", ["max"]).figures["max"]
    assert found["errors"] == {}
    assert found["actions"] > 0
    # each act: one state on each of the room's three connections
    assert found["states_per_second"] >= 2.5 * found["actions_per_second"]


def test_websocket_mask_matches_the_pure_python_one(load: ModuleType) -> None:
    websocket = importlib.import_module(f"{load.__name__}.websocket")
    data, mask = bytes(range(200)), b"\x01\x80\xfe\x7f"
    assert websocket.apply_mask(data, mask) == websocket.python_mask(data, mask)
    assert websocket.python_mask(websocket.python_mask(data, mask), mask) == data


def test_callgrind_is_for_the_servers_the_benchmark_starts(load: ModuleType) -> None:
    assert load.parse_args(["--callgrind"]).callgrind
    with pytest.raises(SystemExit):
        load.parse_args(["--callgrind", "--server=http://a:1"])
    with pytest.raises(SystemExit):
        load.parse_args(["--callgrind", "--target=transport"])


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (--callgrind needs it)")
def test_callgrind_counts_the_instructions_of_each_window(load: ModuleType, tmp_path: Path) -> None:
    # a program that sums range(n) for each n it reads: the work of a window is what it was sent
    program = "import sys\nfor line in sys.stdin:\n    print(sum(range(int(line))), flush=True)\n"
    process = subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={tmp_path / 'callgrind.out'}",
            sys.executable,
            "-c",
            program,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None
    assert stdout is not None

    def window(n: int) -> int:
        load.callgrind_control([process.pid], "--zero")
        stdin.write(f"{n}\n")
        stdin.flush()
        assert stdout.readline() == f"{n * (n - 1) // 2}\n"
        load.callgrind_control([process.pid], "--dump=window")
        return int(load.instructions_counted(tmp_path))

    try:
        stdin.write("1\n")  # (started: valgrind answers callgrind_control from here on)
        stdin.flush()
        assert stdout.readline() == "0\n"
        load.callgrind_control([process.pid], "--instr=on")
        small, large, small_again = window(20_000), window(200_000), window(20_000)
    finally:
        process.kill()
        process.wait()
    assert 0 < small < large
    # ten times the sums, about ten times the instructions; the same work, the same count (repeatable)
    assert 5 * small < large < 20 * small
    assert small_again == pytest.approx(small, rel=0.01)
