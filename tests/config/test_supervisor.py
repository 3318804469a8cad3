"""The restart ledger `up` keeps for each part: backoff, and when to give up."""

from __future__ import annotations

from config.supervisor import BACKOFF_MAX, Restarts


def test_the_pause_doubles_and_is_capped():
    ledger = Restarts("web", limit=10, window=1000)
    pauses = [ledger.died(now=float(t)) for t in range(8)]
    assert pauses == [1.0, 2.0, 4.0, 8.0, 16.0, BACKOFF_MAX, BACKOFF_MAX, BACKOFF_MAX]


def test_a_start_is_due_only_after_the_pause():
    ledger = Restarts("worker", limit=5, window=300)
    assert not ledger.waiting() and not ledger.start_due(0.0)
    ledger.died(now=100.0)
    assert ledger.waiting()
    assert not ledger.start_due(100.5)
    assert ledger.start_due(101.0)
    ledger.started()
    assert not ledger.waiting() and not ledger.start_due(200.0)


def test_more_deaths_than_the_limit_within_the_window_give_up():
    ledger = Restarts("beat", limit=2, window=60)
    assert ledger.died(now=0.0) is not None
    assert ledger.died(now=10.0) is not None
    assert ledger.died(now=20.0) is None
    assert ledger.recent() == 3


def test_deaths_older_than_the_window_are_forgotten():
    ledger = Restarts("redis", limit=2, window=60)
    ledger.died(now=0.0)
    ledger.died(now=10.0)
    # A part that stayed up a whole window starts from a clean ledger.
    assert ledger.died(now=200.0) == 1.0
    assert ledger.recent() == 1
