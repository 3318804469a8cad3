"""Keys never reach a log, even when a client puts one in a URL."""

from __future__ import annotations

import logging

from config.logfilters import RedactSecrets, install


def test_a_key_in_a_query_string_is_redacted_from_the_access_log_line():
    # The record uvicorn's access logger writes: client, method, path+query, version, status.
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5555", "GET", "/mcp?key=trib_abcd1234_secretpart&x=1", "1.1", 401), None,
    )  # fmt: skip
    assert RedactSecrets().filter(record) is True
    line = record.getMessage()
    assert "trib_abcd1234" not in line and "secretpart" not in line
    assert "/mcp?key=[redacted]&x=1" in line


def test_a_key_anywhere_in_a_message_is_redacted_and_the_filter_is_installed_once():
    message = "Unauthorized: bearer trib_0123456789abcdef"
    record = logging.LogRecord("django.request", logging.WARNING, __file__, 1, message, None, None)
    RedactSecrets().filter(record)
    assert record.getMessage() == "Unauthorized: bearer [redacted]"
    install()
    install()
    access = logging.getLogger("uvicorn.access")
    assert sum(isinstance(f, RedactSecrets) for f in access.filters) == 1
