"""Logs a person can read: plain lines on a terminal, JSON lines for a collector (or when asked)."""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabula.server.logs import PlainFormatter, configure

from .harness import free_port

PLAIN_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (INFO|WARNING|ERROR|DEBUG) +\S")


@pytest.fixture(autouse=True)
def _loggers_as_they_were() -> Iterator[None]:
    """configure() rewires the fabula and uvicorn loggers: put them back for the other tests."""
    saved = {
        name: (logging.getLogger(name).handlers[:], logging.getLogger(name).level) for name in ("fabula", "uvicorn")
    }
    yield
    for name, (handlers, level) in saved.items():
        logging.getLogger(name).handlers[:] = handlers
        logging.getLogger(name).setLevel(level)


def record(message: str, **fields: object) -> logging.LogRecord:
    return logging.makeLogRecord({"msg": message, "levelname": "WARNING", "created": 0, **fields})


def test_a_plain_line_has_the_time_the_level_the_message_and_the_fields() -> None:
    line = PlainFormatter(utc=True).format(record("bus down", room="KX7PQ", error="Connection refused", seq=4))
    assert line == '1970-01-01 00:00:00 WARNING bus down  room=KX7PQ error="Connection refused" seq=4'


def test_a_plain_line_quotes_what_would_read_wrong_and_shows_the_traceback() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        failed = record("failed", where="", said='a "b"', exc_info=sys.exc_info())
    text = PlainFormatter(utc=True).format(failed)
    first, *rest = text.splitlines()
    assert first == '1970-01-01 00:00:00 WARNING failed  where="" said="a \\"b\\""'
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "ValueError: boom"


def test_auto_is_plain_on_a_terminal_and_json_elsewhere() -> None:
    piped = io.StringIO()
    configure("info", "auto", piped)
    logging.getLogger("fabula.server").info("room loaded", extra={"room": "KX7PQ"})
    assert json.loads(piped.getvalue())["room"] == "KX7PQ"

    ours, theirs = pty.openpty()
    with os.fdopen(theirs, "w", closefd=True) as terminal:
        configure("info", "auto", terminal)
        logging.getLogger("fabula.server").info("room loaded", extra={"room": "KX7PQ"})
        terminal.flush()
        shown = os.read(ours, 4096).decode()
    os.close(ours)
    assert PLAIN_LINE.match(shown), shown
    assert shown.rstrip().endswith("room loaded  room=KX7PQ")


def serve_output(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> list[str]:
    """The first lines `fabula serve` writes (stdout and stderr together) once it answers."""
    command = [sys.executable, "-m", "fabula.cli", "serve", "--port", str(free_port()), "--data", str(tmp_path)]
    clean = {name: value for name, value in os.environ.items() if not name.startswith("FABULA_")}
    with subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**clean, **(env or {})}, text=True
    ) as server:
        assert server.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any("serving" in line for line in lines):
            line = server.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
        server.terminate()
        server.wait(timeout=10)
    return [line for line in lines if not line.startswith(("Fabula is running", "  "))]


def test_fabula_serve_writes_json_to_a_pipe_and_plain_lines_when_asked(tmp_path: Path) -> None:
    as_json = serve_output(tmp_path / "a")
    assert as_json, "it logged"
    assert all(json.loads(line)["level"] for line in as_json), as_json
    plain = serve_output(tmp_path / "b", "--log-format", "plain")
    assert plain, "it logged"
    assert all(PLAIN_LINE.match(line) for line in plain), plain
    assert any(" serving  backends=" in line for line in plain), plain
    from_environment = serve_output(tmp_path / "c", env={"FABULA_LOG_FORMAT": "plain"})
    assert all(PLAIN_LINE.match(line) for line in from_environment), from_environment
