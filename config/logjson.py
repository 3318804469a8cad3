"""Logs an aggregator can read: ``TRIBUTARY_LOG_FORMAT=json``.

One JSON object per line: time, level, logger, message, and the context of
the line — the trace id (when tracing is on), the request id (the
``X-Request-ID`` a request came with, or one made for it), the tenant's slug
— plus what a request line adds (method, route, status, duration, outcome).
Never a lesson's content or a key: the service's loggers log ids, and
anything shaped like a key is redacted on the way out (``config.logfilters``).
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime

from config.logfilters import redact
from config.telemetry import current_trace_id

request_id: ContextVar[str | None] = ContextVar("tributary_request_id", default=None)
tenant_slug: ContextVar[str | None] = ContextVar("tributary_tenant_slug", default=None)

# What a log call may add with ``extra=``; nothing else of a record is copied.
EXTRA_FIELDS = ("method", "route", "status", "duration_ms", "outcome", "region", "task")


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.trace_id = current_trace_id()
        record.request_id = request_id.get()
        record.tenant = tenant_slug.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        for name in ("trace_id", "request_id", "tenant", *EXTRA_FIELDS):
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info and record.exc_info[0] is not None:
            line["exc_type"] = record.exc_info[0].__name__
            line["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(line, default=str)
