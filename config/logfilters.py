"""Keys never reach a log.

An API key can arrive where it does not belong — ``/mcp?key=trib_…`` is
refused, but the access log would still print the path. This filter, on
uvicorn's access logger (installed by ``config.asgi``), rewrites every
argument of a record: values of query parameters that name a secret, and
anything shaped like one of our keys, become ``[redacted]``.
"""

from __future__ import annotations

import logging
import re

_SECRET_PARAM = re.compile(
    r"(?i)([?&;](?:key|api_key|apikey|token|access_token|auth|authorization|password|secret)=)[^&;#\s]*"
)
_OUR_KEY = re.compile(r"trib_[A-Za-z0-9_\-]{8,}")


def redact(text: str) -> str:
    return _OUR_KEY.sub("[redacted]", _SECRET_PARAM.sub(r"\1[redacted]", text))


class RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def install() -> None:
    """On the loggers that print request lines."""
    for name in ("uvicorn.access", "uvicorn.error", "django.request", "django.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
