"""Load on a server (one process or several) over real WebSockets: R rooms × N players playing random legal moves.

Every player is an external client, as a browser or `fabula bot` is: its seat is taken over HTTP
(``POST /api/rooms``, ``POST /api/rooms/{code}/join``), then it plays over its own WebSocket:
``legal`` → a random choice → ``act``. The load generator runs in its own process(es), apart
from the server, which by default it starts itself (``fabula serve`` on a free port, a temporary
data folder, per-address limits raised because every client comes from 127.0.0.1) and pins to
one core, the generator taking the others.

Phases (``--phases``, in this order):

idle    resident memory of the server with the seats taken and nobody connected, then with every
        player connected (each has said hello and got its state) and idle: the difference per
        player is what an idle connected player costs; then with every game started.
paced   each room's players act, together, as a Poisson process of N / ``--think`` actions a
        second (``--jitter uniform``: gaps uniform in 0…2× the mean), each time one awaited seat
        chosen at random — so a player acts once per ``--think`` seconds on average, although in
        Dixit only the awaited seats may move (only the storyteller in the clue phase).
max     every awaited seat acts as soon as it may: the most actions a second the server sustains.

Latency is from sending an ``act`` to the last connection of the room receiving the state it
caused: the ``ack`` names the entry's ``seq`` and the update is the first ``state`` with
``room.seq`` above it, on every connection of the room (the acting one included).

The ceiling (``--ceiling``): after Fabula, the same generator runs the ``max`` phase against
``benchmarks/transport.py``, a bare fan-out server on the same stack (Starlette + uvicorn with
``fabula serve``'s uvicorn options) that relays each ``act`` to every connection of its room with
a sequence number and no game logic — ``echo``: just the action; ``sample``: the action plus a
state Fabula really sent in this run, so that the same bytes go through the same fan-out.

The generator's players (``--client``) speak `fabula.protocol`'s typed messages, encoded by
`fabula.client`; the seats are taken with the requests of `fabula.client.create_room` and
`join_room`, through pooled HTTP clients (`seats` says why). Their WebSocket
is, by default, the ``lean`` client of `websocket` — a protocol callback per connection, no task,
only the room's observer decoding whole states — because the generator must not be what limits
the figure; ``fabula`` plays through `fabula.client.Client` (the client of `fabula bot` and the
tests), to measure what that costs. On this 2-core machine (2026-12-05, ``--phases max --rooms
100 --duration 20 --ceiling none``, the server pinned to one core and the generator to the
other, three runs of each, alternating, the machine shared with other work) the lean generator
spent 126, 143 and 147 µs of CPU per action, `fabula.client` 384, 399 and 407: 2.8 times as much
(at the 1,500 actions a second of the target, 0.6 of the generator's core instead of 0.2), and
its loop lagged 66–119 ms at the 99th percentile against 24–35, which the latencies would carry.

Run from the repository's root: ``python -m benchmarks.load`` (the default: 100 six-player rooms,
20 s per phase, the sampled ceiling; about a minute and a half). The issue's figures:

    python -m benchmarks.load --rooms 834 --phases idle,paced --duration 60   # 5,004 players
    python -m benchmarks.load --rooms 834 --phases max --ceiling both          # at full load
    python -m benchmarks.load --server http://host:8000 --server-pid 1234      # a running server
    python -m benchmarks.load --phases max --database postgresql://… --redis redis://…  # scale-out backends
    python -m benchmarks.load --phases max --servers 2 --database postgresql://… --redis redis://…
    python -m benchmarks.load --server http://127.0.0.1:8001 --server http://127.0.0.1:8002 \
        --server-pid 1234 --server-pid 1235                                    # a running deployment

The audience (issue 36; `audience` says what it measures): one room of six protocol players, then
the same play watched by N audience connections that get every state and vote once a round:

    python -m benchmarks.load --audience 2000 --think 1 --duration 30       # one process, pinned
    python -m benchmarks.load --audience 10000 --servers 2 --think 1 --duration 30 \
        --database postgresql://… --redis redis://…                           # two processes

Several processes (``--servers N``, or ``--server URL`` repeated): member M of room R takes its seat
and opens its WebSocket on server (R + M) mod N, so every room spans the processes and its
updates go through PostgreSQL and Redis; CPU and resident memory are summed over the server
processes and shown for each. ``--servers N`` starts them all on one schema and namespace
(dropped afterwards) and, with ``--pin``, pins them all to the same core: on a 2-core machine
they share that core with each other, the generator has the other, and PostgreSQL and Redis
(unpinned; their CPU is measured apart when they are local) take what they find. One
``--server`` (nginx, say) with several ``--server-pid`` loads a proxy and sums its processes.

Instructions (``--callgrind``): CPU time on a shared VM swings by a third from run to run, so a
ratio of two runs' CPU per action is worth little. With ``--callgrind`` the started servers run
under valgrind's callgrind, instrumented from each phase's start, their counters zeroed when the
window opens and dumped when it closes: the instructions they ran in the window, and per action,
repeat to within a fraction of a percent. Only user-space instructions count (not the kernel's
work, nor what cache misses and sharing a core cost), and the servers run some 50 times slower,
so keep the load light (``--rooms 20 --think 15``: 8 actions/s) and read the ``max`` phase as
the regime where the servers are saturated, not as their speed.

Targets (issue 7, this 2-core machine): one process holds 5,000 connected players (six-player
rooms, one action per player every 10 s) with p99 ≤ 200 ms and no errors; at full load at least
1,500 actions a second on one core; its maximum actions a second at least half the bare
transport's with the same fan-out; resident memory per idle connected player stated.

The modules, one concept each: `cli` (the command line and the run it asks for), `measure` (one
target through its phases, and what the OS says each process spent), `report` (what is printed,
the targets), `servers` (the processes it starts and stops), `seats` (the seats over HTTP),
`generator` (the generator processes), `players` (the simulated rooms and players),
`connections` (which client carries their messages), `websocket` (the lean client), `system`
(the figures read from /proc), `audience` (the audience mode, ``--audience N``). Other
benchmarks import it as ``load`` (benchmarks/ on their path).
"""

from __future__ import annotations

from .cli import main, parse_args
from .measure import measure
from .report import Run
from .servers import Server, callgrind_control, instructions_counted, start_server

__all__ = [
    "Run",
    "Server",
    "callgrind_control",
    "instructions_counted",
    "main",
    "measure",
    "parse_args",
    "start_server",
]
