"""Work a request does after its response has gone out.

Bookkeeping that the caller does not wait for (a recall's counts in Redis)
should not sit between the view's commit and the response's bytes. Under
the service's ASGI handler (``config.asgi_handler``) ``after_response``
collects such work for the request and runs it when Django closes the
response — after the last body chunk is sent. Anywhere else (a test
client, a command, the MCP server, a task) there is no response to wait
for, and the work runs at once, as it did before. A client that hangs up
before its response is sent never has it closed: its request's work is
dropped — so only bookkeeping that may be lost belongs here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar, Token

log = logging.getLogger(__name__)

Task = Callable[[], None]

_pending: ContextVar[list[Task] | None] = ContextVar("tributary_after_response", default=None)


def after_response(task: Task) -> None:
    """Run ``task`` once this request's response is sent (now, outside one)."""
    pending = _pending.get()
    if pending is None:
        task()
    else:
        pending.append(task)


def collect() -> tuple[list[Task], Token[list[Task] | None]]:
    """Start collecting the current request's work (the handler's side)."""
    tasks: list[Task] = []
    return tasks, _pending.set(tasks)


def stop_collecting(token: Token[list[Task] | None]) -> None:
    _pending.reset(token)


def run_all(tasks: list[Task]) -> None:
    """Each task, in order; one that fails is logged and the rest still run."""
    for task in tasks:
        try:
            task()
        except Exception:
            log.exception("work after the response failed")
