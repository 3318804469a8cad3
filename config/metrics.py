"""Prometheus metrics, served at ``/metrics`` (``config.views.metrics``).

The official ``prometheus-client``. Under ``up`` every process — uvicorn's
web workers, every Celery pool process, beat — writes its counters and
histograms to ``PROMETHEUS_MULTIPROC_DIR`` (``up`` sets it to
``<data dir>/metrics`` and empties it at start), and ``/metrics`` adds them
up (multiprocess mode). A process on its own keeps them in memory.

What is counted where it happens (the names follow Prometheus's
conventions: a unit suffix, ``_total`` for counters):

* requests and their latency — ``config.middleware.RequestMetricsMiddleware``;
* recall latency — ``memory.selectors.lesson_recall``;
* learn outcomes by kind, quarantines by rule, judge fallbacks, apply
  retries and revalidations — the learn worker;
* judge calls, cost and latency by model — ``memory.judge.calls.record_call``;
* gardener actions by rule — the gardener.

Read at scrape time (``ScrapeCollector``): the learn queue (pending
requests, the oldest one's age, per region) and this process's database
pool.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter(
    "tributary_http_requests_total",
    "HTTP requests answered, by method, route and status.",
    ["method", "route", "status"],
)
HTTP_SECONDS = Histogram(
    "tributary_http_request_duration_seconds",
    "Time to answer an HTTP request, by route.",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
RECALL_SECONDS = Histogram(
    "tributary_recall_duration_seconds",
    "Hybrid recall inside the service (embedding, both legs, fusion, provenance).",
    buckets=LATENCY_BUCKETS,
)
LEARN_OUTCOMES = Counter(
    "tributary_learn_outcomes_total",
    "Applied learn requests, by lesson kind and outcome.",
    ["kind", "outcome"],
)
QUARANTINES = Counter(
    "tributary_quarantines_total", "Learns the injection screen quarantined, by rule.", ["rule"]
)
JUDGE_CALLS = Counter(
    "tributary_judge_calls_total",
    "Calls to an LLM (judge, escalation, evaluation), by provider, model and outcome.",
    ["provider", "model", "outcome"],
)
JUDGE_COST = Counter(
    "tributary_judge_cost_usd_total",
    "What the LLM calls cost, as the provider reports it.",
    ["model"],
)
JUDGE_TOKENS = Counter(
    "tributary_judge_tokens_total", "Tokens of the LLM calls, by model and direction.",
    ["model", "direction"],
)  # fmt: skip
JUDGE_SECONDS = Histogram(
    "tributary_judge_call_duration_seconds", "Latency of one LLM call, by model.", ["model"],
    buckets=LATENCY_BUCKETS,
)  # fmt: skip
JUDGE_FALLBACKS = Counter(
    "tributary_judge_fallbacks_total",
    "Learns inserted as novel because the judge could not answer (re-judged later).",
)
TXN_RETRIES = Counter(
    "tributary_txn_retries_total",
    "Apply transactions rolled back on a serialization failure or deadlock and run again.",
)
TXN_REVALIDATIONS = Counter(
    "tributary_learn_revalidations_total",
    "Learn batches judged again because a scope they read moved before they applied.",
)
GARDENER_ACTIONS = Counter(
    "tributary_gardener_actions_total", "What the gardener did, by rule (step) and action.",
    ["rule", "action"],
)  # fmt: skip


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class ScrapeCollector(Collector):
    """Gauges read when scraped: the learn queue of each region and this
    process's database pool."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily(
            "tributary_learn_queue_depth", "Learn requests pending, by region.", labels=["region"]
        )
        oldest = GaugeMetricFamily(
            "tributary_learn_oldest_pending_seconds",
            "Age of the oldest pending learn request, by region (0: none).",
            labels=["region"],
        )
        for region, count, age in _learn_queue():
            depth.add_metric([region], count)
            oldest.add_metric([region], age)
        yield depth
        yield oldest
        pool = GaugeMetricFamily(
            "tributary_db_pool_connections",
            "Connections of the answering process's database pool, by alias and state.",
            labels=["alias", "state"],
        )
        for alias, state, value in _pool_stats():
            pool.add_metric([alias, state], value)
        yield pool


def _learn_queue() -> list[tuple[str, int, float]]:
    from django.db.models import Count, Min
    from django.utils import timezone

    from accounts.tenancy import cross_tenant
    from memory.models import LearnRequest, RequestStatus
    from regions.routing import each_region

    found = []
    for region in each_region():
        with cross_tenant(reason="metrics: the learn queue"):
            row = LearnRequest.objects.filter(status=RequestStatus.PENDING).aggregate(
                count=Count("id"), oldest=Min("created_at")
            )
        age = (timezone.now() - row["oldest"]).total_seconds() if row["oldest"] else 0.0
        found.append((region, int(row["count"]), max(0.0, age)))
    return found


def _pool_stats() -> list[tuple[str, str, float]]:
    from django.db import connections

    found = []
    for alias in connections:
        wrapper = connections[alias]
        pool = getattr(wrapper, "_connection_pools", {}).get(wrapper.alias)
        if pool is None:
            continue
        stats = pool.get_stats()
        size, available = stats.get("pool_size", 0), stats.get("pool_available", 0)
        found += [(alias, "open", size), (alias, "idle", available),
                  (alias, "busy", size - available),
                  (alias, "waiting", stats.get("requests_waiting", 0))]  # fmt: skip
    return found


def exposition() -> bytes:
    """The text exposition of every metric: all processes' (multiprocess
    mode) or this one's, and the scrape-time gauges."""
    path = multiprocess_dir()
    if path:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=path)
    else:
        registry = REGISTRY
    scraped = CollectorRegistry()
    scraped.register(ScrapeCollector())
    return generate_latest(registry) + generate_latest(scraped)


class Timer:
    """``with Timer() as t: …``; ``t.seconds`` after."""

    def __enter__(self) -> Timer:
        self.started = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.started
