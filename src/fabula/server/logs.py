"""Structured logs: one JSON object per line on stderr, with the fields passed as ``extra``."""

from __future__ import annotations

import logging
import sys

from pythonjsonlogger.json import JsonFormatter


class ClientMistakes(logging.Filter):
    """A client's malformed frame is not a server error: uvicorn logs invalid UTF-8 in a text
    frame as an ERROR with a traceback (and closes with 1007, which is right); keep it, as INFO."""

    MESSAGES = ("Invalid UTF-8 sequence received from client.",)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.getMessage() in self.MESSAGES:
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.exc_info, record.exc_text = None, None
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True


def configure(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s", rename_fields={"levelname": "level"})
    )
    for name in ("fabula", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    quiet_client_mistakes()


def quiet_client_mistakes() -> None:
    """Log the mistakes of clients that uvicorn calls errors as what they are (once per process)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, ClientMistakes) for f in logger.filters):
        logger.addFilter(ClientMistakes())
