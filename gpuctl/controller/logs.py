"""The controller's log lines: text for a terminal, or JSON (one object a line) for a log
pipeline (Loki, Elasticsearch, Cloud Logging), as `gpuctl controller run --log-format` picks.

A JSON line has `ts` (RFC 3339 UTC, microseconds), `level`, `logger` and `msg`, and `error`
(the traceback) when an exception is logged: the fields klog's and zap's JSON output name so.
"""

from __future__ import annotations

import json
import logging
from typing import Final

from gpuctl.times import micro_rfc3339

FORMATS: Final = ("text", "json")
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": micro_rfc3339(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure(log_format: str, verbose: bool) -> None:
    """Log to stderr in `log_format` ("text" or "json"); gpuctl's own loggers at DEBUG when
    `verbose`, else INFO."""
    handler = logging.StreamHandler()
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.getLogger("gpuctl").setLevel(logging.DEBUG if verbose else logging.INFO)
