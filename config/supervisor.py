"""What ``manage.py up`` does when one of its parts dies: restart it after a
growing pause, and give up only when it keeps dying.

A part is a child process (web, worker, beat) or an embedded server
(PostgreSQL, Redis). Each has a ``Restarts`` ledger: every death is
recorded; the pause before the next start doubles from ``BACKOFF_FIRST``
up to ``BACKOFF_MAX``; more than ``limit`` deaths inside ``window``
seconds means the part cannot stay up (a port taken, a broken
configuration), and ``up`` stops everything rather than loop for ever.
A part that has stayed up for the whole window starts again from a clean
ledger, so a fault once a day never adds up to giving up.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

BACKOFF_FIRST = 1.0
BACKOFF_MAX = 30.0


@dataclass
class Restarts:
    name: str
    limit: int
    window: float
    deaths: deque[float] = field(default_factory=deque)
    due: float | None = None  # when the next start is due; None while it runs

    def died(self, now: float) -> float | None:
        """Record a death at ``now``. Returns the pause before the next start,
        or None when the part has died more than ``limit`` times within
        ``window`` seconds (give up)."""
        self.deaths.append(now)
        while self.deaths and now - self.deaths[0] > self.window:
            self.deaths.popleft()
        if len(self.deaths) > self.limit:
            self.due = None
            return None
        pause = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (len(self.deaths) - 1))
        self.due = now + pause
        return pause

    def start_due(self, now: float) -> bool:
        """True once the pause after a death is over (the caller starts the
        part, then calls ``started``)."""
        return self.due is not None and now >= self.due

    def waiting(self) -> bool:
        return self.due is not None

    def started(self) -> None:
        self.due = None

    def recent(self) -> int:
        return len(self.deaths)
