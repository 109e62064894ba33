"""The server's logs on stderr, with the fields passed as ``extra``: a plain line a person reads on
a terminal, one JSON object per line for a log collector.

>>> record = logging.makeLogRecord({"msg": "room loaded", "levelname": "INFO", "created": 0, "room": "KX7PQ"})
>>> PlainFormatter(utc=True).format(record)
'1970-01-01 00:00:00 INFO    room loaded  room=KX7PQ'
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO, Any

from pythonjsonlogger.json import JsonFormatter

#: What every LogRecord has: the rest of its attributes are the fields a call passed as ``extra``.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName", "color_message"}


class PlainFormatter(logging.Formatter):
    """``time level message  field=value …``, then the traceback if there is one."""

    def __init__(self, *, utc: bool = False) -> None:
        super().__init__()
        self.converter = time.gmtime if utc else time.localtime

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", self.converter(record.created))
        line = f"{stamp} {record.levelname:<7} {record.getMessage()}"
        fields = [f"{name}={_shown(value)}" for name, value in record.__dict__.items() if name not in _STANDARD]
        if fields:
            line += "  " + " ".join(fields)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line += "\n" + record.exc_text
        return line


def _shown(value: Any) -> str:
    """A field's value as a word, or quoted when it has spaces (or is empty)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    if text and not any(character.isspace() or character in '"=' for character in text):
        return text
    return json.dumps(text, ensure_ascii=False)


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


def configure(level: str, form: str = "auto", stream: IO[str] | None = None) -> None:
    """Send Fabula's and uvicorn's logs at ``level`` and above to ``stream`` (stderr) in ``form``:
    "plain", "json", or "auto" (plain where ``stream`` is a terminal)."""
    stream = sys.stderr if stream is None else stream
    handler = logging.StreamHandler(stream)
    if form == "plain" or (form == "auto" and stream.isatty()):
        handler.setFormatter(PlainFormatter())
    else:
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
