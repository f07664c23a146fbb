"""Logging for the command line: one short line per warning on stderr, details with -v.

Default: warnings and errors of the assistant (and of anything else that logs at ERROR) as one
line each, e.g. ``warning: LLM unreachable, answered offline``; no tracebacks, and library
chatter (HTTP clients, Chroma, LangChain, Python warnings) stays quiet. A record may carry a
``short`` attribute (``log.warning(..., extra={"short": "..."})``): the CLI prints that instead
of the detailed message the server logs keep.

``-v``: every INFO message with the logger name and the full first line of the detail;
``-vv``: DEBUG, library logs and tracebacks included.
"""

from __future__ import annotations

import copy
import logging
import sys
from typing import Any

#: third-party loggers that are noise for a CLI user unless asked for (-v / -vv)
NOISY = (
    "chromadb",
    "httpx",
    "httpcore",
    "httpcore2",
    "openai",
    "langchain",
    "langchain_core",
    "langchain_openai",
    "urllib3",
    "onnxruntime",
    "py.warnings",
)
_MAX = 200  # characters of one default line


class ShortFormatter(logging.Formatter):
    """`warning: <short text>`: the record's `short` if it has one, else the first line of the
    message; never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = getattr(record, "short", None) or record.getMessage()
        lines = str(text).strip().splitlines()
        line = lines[0] if lines else ""
        if len(line) > _MAX:
            line = line[: _MAX - 1] + "…"
        return f"{record.levelname.lower()}: {line}"


class DetailFormatter(logging.Formatter):
    """`warning assistant.llm: <full message>`; tracebacks only when `tracebacks` is set."""

    def __init__(self, tracebacks: bool) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        if not self.tracebacks and (record.exc_info or record.exc_text):
            record = logging.makeLogRecord(record.__dict__)
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc})"
                record.args = None
            record.exc_info = None
            record.exc_text = None
        return super().format(record).replace("WARNING", "warning", 1)


_HANDLER_NAME = "sizing-cli"
_requested = [0]  # the verbosity of the last CLI-level call (for `sizing -vv serve`)


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time (test runners swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass


def setup_logging(verbose: int = 0, server: bool = False) -> None:
    """Configure the root logger for a CLI run (idempotent: a later call replaces the handler,
    so `sizing -v ask` and `sizing ask -v` both work). A server (`sizing serve`) logs like -v
    at least, with tracebacks: an operator reads that log, not a user."""
    if server:
        # `sizing -vv serve`: the global option was applied first; keep DEBUG then
        verbose = 3 if max(verbose, _requested[0]) >= 2 else 2
    else:
        _requested[0] = verbose
    root = logging.getLogger()
    for h in list(root.handlers):
        if h.get_name() == _HANDLER_NAME:
            root.removeHandler(h)
    handler = _StderrHandler()
    handler.set_name(_HANDLER_NAME)
    logging.captureWarnings(True)
    if verbose <= 0:
        handler.setFormatter(ShortFormatter())
        root.setLevel(logging.WARNING)
        noisy_level = logging.ERROR
    elif verbose == 1:
        handler.setFormatter(DetailFormatter(tracebacks=False))
        root.setLevel(logging.INFO)
        noisy_level = logging.WARNING
    elif server and verbose == 2:
        handler.setFormatter(DetailFormatter(tracebacks=True))
        root.setLevel(logging.INFO)
        noisy_level = logging.WARNING
    else:
        handler.setFormatter(DetailFormatter(tracebacks=True))
        root.setLevel(logging.DEBUG)
        noisy_level = logging.DEBUG
    for name in NOISY:
        logging.getLogger(name).setLevel(noisy_level)
    # a library that sets its own logger to DEBUG on import (bm25s) still prints nothing below
    # the level asked for
    handler.setLevel(root.level)
    root.addHandler(handler)


def server_log_config() -> dict[str, Any]:
    """`sizing serve`'s logging as a `logging.config.dictConfig` dict for uvicorn's `log_config`:
    uvicorn applies it in every worker process it spawns (`--workers N`), so the app's log lines
    reach stderr from each worker, not only from the parent (issue 14, finding 8). The same
    levels and format as `setup_logging(server=True)`; uvicorn's own loggers are kept."""
    from uvicorn.config import LOGGING_CONFIG

    debug = _requested[0] >= 2  # `sizing -vv serve`
    level = "DEBUG" if debug else "INFO"
    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"][_HANDLER_NAME] = {"()": DetailFormatter, "tracebacks": True}
    config["handlers"][_HANDLER_NAME] = {
        "()": _StderrHandler,
        "formatter": _HANDLER_NAME,
        "level": level,
    }
    config["root"] = {"level": level, "handlers": [_HANDLER_NAME]}
    config["loggers"].update({name: {"level": "DEBUG" if debug else "WARNING"} for name in NOISY})
    return config
