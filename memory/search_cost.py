"""Exact search or the tenant's own HNSW index: chosen by what each costs here.

A tenant's recall scans its active lessons exactly (every distance, through
the ``(tenant, kind, status)`` B-tree) while that is cheaper than walking an
HNSW index of its own, and through the index past that size. Where the two
cost the same depends on the database server's CPU: ~1,800 lessons on the
Intel machine the benchmarks first ran on, ~1,000 on an AMD EPYC one
(docs/benchmarks.md). So with ``TRIBUTARY_EXACT_SEARCH_MAX=auto`` (the
default) the threshold is measured where the service runs, not fixed:

* **Measured** by the index sync (``memory.hnsw.search_indexes_sync``)
  every ``TRIBUTARY_SEARCH_CALIBRATION_HOURS``, and by ``manage.py
  search_indexes --calibrate``: on up to ``EXACT_TENANTS`` tenants of
  spread sizes, exact search is timed, and on up to ``HNSW_TENANTS``
  tenants that have a valid index (the smallest: nearest the crossover),
  the index search too — the service's own two search functions, on the
  tenant's real lessons, with ``QUERIES`` query vectors made from them
  (each the midpoint of two of its lessons: near the tenant's text, never
  one of its lessons), the two paths alternated query by query; each
  tenant's figure is its median.
* **Fitted**: exact costs ``a + b·n`` for ``n`` lessons (least squares over
  the timed tenants), the index search costs ``h`` (the median of its
  tenants' medians: nearly flat in ``n``); the threshold is the ``n`` where
  ``a + b·n = h``, kept within [``LOWEST``, ``HIGHEST``].
* **Bootstrapped**: with no valid index to time, the sync first builds the
  index of the largest tenant of at least ``PROBE_MIN`` lessons; if the
  measurement says exact wins at that size, the usual rule (drop below half
  the threshold) drops it again.
* **Kept** in ``memory_searchcalibration`` (sizes and times, no tenant's
  ids or content), newest row in force, for the sync's keep/build rule and
  for every search plan (read in the same round trip as the tenant's size:
  ``memory.selectors.search_plan_read``). Until the first measurement, and
  when there is nothing to time, the threshold is ``UNCALIBRATED``.

A number in ``TRIBUTARY_EXACT_SEARCH_MAX`` fixes the threshold; ``--calibrate``
still measures and records, and says the number is in force.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import timedelta
from functools import partial

import numpy as np
from django.conf import settings
from django.utils import timezone

log = logging.getLogger(__name__)

UNCALIBRATED = 2000  # until measured: the crossover on the first benchmark machine
LOWEST = 100
HIGHEST = 50_000
QUERIES = 9  # timed per tenant and path, after one untimed warm-up query
K = 10
EXACT_TENANTS = 5
HNSW_TENANTS = 3
EXACT_TIMED_MAX = 20_000  # exact search is timed on tenants up to this size only
PROBE_MIN = 500
KEEP_ROWS = 100
THRESHOLD_SQL = (
    "coalesce(%(exact_max)s::int, (SELECT exact_max FROM memory_searchcalibration "  # noqa: S608
    f"ORDER BY measured_at DESC LIMIT 1), {UNCALIBRATED})"  # (constants)
)


@dataclass(frozen=True)
class Sample:
    """One timed tenant: its active lessons, its exact search's median and
    (where it has a valid index) its index search's median, in ms."""

    lessons: int
    exact_ms: float
    hnsw_ms: float | None


@dataclass(frozen=True)
class Fit:
    exact_max: int
    exact_fixed_ms: float
    exact_per_1000_ms: float
    hnsw_ms: float


def fixed_exact_max() -> int | None:
    """The threshold ``TRIBUTARY_EXACT_SEARCH_MAX`` fixes, or None (auto)."""
    value = settings.TRIBUTARY_EXACT_SEARCH_MAX
    return None if value == "auto" else int(value)


def exact_search_max() -> int:
    """The threshold in force: the fixed one, else the newest measurement's,
    else ``UNCALIBRATED``."""
    from memory.models import SearchCalibration

    fixed = fixed_exact_max()
    if fixed is not None:
        return fixed
    newest = SearchCalibration.objects.order_by("-measured_at").values_list("exact_max").first()
    return int(newest[0]) if newest else UNCALIBRATED


def fit(samples: Iterable[Sample]) -> Fit | None:
    """The crossover of the timed samples, or None when they cannot give one
    (no index search timed, or exact search not dearer with more lessons)."""
    samples = list(samples)
    hnsw = [s.hnsw_ms for s in samples if s.hnsw_ms is not None]
    if not hnsw or not samples:
        return None
    sizes = np.array([s.lessons for s in samples], dtype=float)
    costs = np.array([s.exact_ms for s in samples], dtype=float)
    if len(set(sizes.tolist())) >= 2:
        slope, fixed = np.polyfit(sizes, costs, 1)
        # A fixed cost below nothing, or above the cheapest search timed, is
        # the noise of a few points: keep it within what was seen.
        fixed = min(max(float(fixed), 0.0), float(costs.min()))
        slope = float(np.mean((costs - fixed) / sizes)) if slope <= 0 else float(slope)
    else:  # one size: its fixed cost cannot be told apart, so all of it counts per lesson
        fixed, slope = 0.0, float(costs[0] / sizes[0])
    if slope <= 1e-9:  # (a float's rounding of a flat line)
        return None
    index_ms = float(statistics.median(hnsw))
    crossover = math.ceil((index_ms - fixed) / slope)
    return Fit(
        exact_max=min(max(crossover, LOWEST), HIGHEST),
        exact_fixed_ms=round(fixed, 4),
        exact_per_1000_ms=round(slope * 1000, 4),
        hnsw_ms=round(index_ms, 4),
    )


def calibration_due() -> bool:
    """Whether the sync should measure now: auto, and no measurement within
    ``TRIBUTARY_SEARCH_CALIBRATION_HOURS``."""
    from memory.models import SearchCalibration

    if fixed_exact_max() is not None:
        return False
    since = timezone.now() - timedelta(hours=settings.TRIBUTARY_SEARCH_CALIBRATION_HOURS)
    return not SearchCalibration.objects.filter(measured_at__gte=since).exists()


def probe_tenant(sizes: dict[uuid.UUID, int], indexed: set[uuid.UUID]) -> uuid.UUID | None:
    """The tenant whose index the sync builds to time one, when no tenant
    has a valid index: the largest of at least ``PROBE_MIN`` lessons."""
    if indexed:
        return None
    large = [t for t, size in sizes.items() if size >= PROBE_MIN]
    return max(large, key=lambda t: (sizes[t], t.int)) if large else None


def chosen(
    sizes: dict[uuid.UUID, int], indexed: set[uuid.UUID]
) -> tuple[list[uuid.UUID], set[uuid.UUID]]:
    """(tenants to time, those of them whose index search is timed too)."""
    with_index = sorted((t for t in indexed if t in sizes), key=lambda t: (sizes[t], t.int))
    timed_index = set(with_index[:HNSW_TENANTS])
    exact = sorted(
        (t for t, size in sizes.items() if LOWEST <= size <= EXACT_TIMED_MAX),
        key=lambda t: (sizes[t], t.int),
    )
    if len(exact) > EXACT_TENANTS:  # spread over the sizes there are, both ends in
        step = (len(exact) - 1) / (EXACT_TENANTS - 1)
        exact = [exact[round(i * step)] for i in range(EXACT_TENANTS)]
    tenants = list(dict.fromkeys([*exact, *sorted(timed_index, key=lambda t: sizes[t])]))
    return tenants, timed_index


def measure(sizes: dict[uuid.UUID, int], indexed: set[uuid.UUID]) -> list[Sample]:
    """Time the chosen tenants' searches (``chosen``). Precondition: no
    tenant active on the connection (each tenant is read in its own
    ``tenant_reads``, as the MCP server's recall reads)."""
    from accounts.tenancy import tenant_reads
    from memory import selectors
    from memory.models import Kind

    kinds = list(Kind.values)
    tenants, timed_index = chosen(sizes, indexed)
    samples = []
    for tenant in tenants:
        with tenant_reads(tenant):
            queries = _query_vectors(tenant, QUERIES + 1)
            if len(queries) < 2:
                continue
            exact: list[float] = []
            index: list[float] = []
            paths: list[tuple[list[float], Callable[[list[float]], object]]] = [
                (exact, partial(selectors._exact_neighbours, tenant, kinds,
                                limit=K, as_of=None, generic=True)),
            ]  # fmt: skip
            if tenant in timed_index:
                paths.append((index, partial(selectors._approximate_neighbours, tenant, kinds,
                                             limit=K)))  # fmt: skip
            for turn, vector in enumerate(queries):
                for times, search in paths[turn % 2 :] + paths[: turn % 2]:
                    started = time.perf_counter()
                    search(vector)
                    if turn:  # the first is a warm-up
                        times.append((time.perf_counter() - started) * 1000)
        samples.append(
            Sample(
                lessons=sizes[tenant],
                exact_ms=round(statistics.median(exact), 4),
                hnsw_ms=round(statistics.median(index), 4) if index else None,
            )
        )
    return samples


def _query_vectors(tenant: uuid.UUID, count: int) -> list[list[float]]:
    """``count`` query vectors near the tenant's text: each the normalised
    midpoint of two of its active lessons (random UUIDs: a sample across
    its history)."""
    from config.db.prepared import run_bound

    rows = run_bound(
        "SELECT embedding::text FROM memory_lesson WHERE tenant_id = %(tenant)s "
        "AND status = 'active' AND embedding IS NOT NULL ORDER BY id LIMIT %(limit)s",
        {"tenant": tenant, "limit": 2 * count},
    )
    vectors = [np.array(text.strip("[]").split(","), dtype=float) for (text,) in rows]
    queries = []
    for first, second in zip(vectors[0::2], vectors[1::2], strict=False):
        middle = first + second
        norm = float(np.linalg.norm(middle))
        if norm > 0:
            queries.append((middle / norm).tolist())
    return queries


def calibrate(
    sizes: dict[uuid.UUID, int], indexed: set[uuid.UUID]
) -> tuple[list[Sample], Fit | None]:
    """Measure, fit and — when the samples give a crossover — record it
    (the newest ``KEEP_ROWS`` measurements are kept)."""
    from memory.models import SearchCalibration

    samples = measure(sizes, indexed)
    found = fit(samples)
    if found is None:
        log.info("search cost: no crossover from %d timed tenants", len(samples))
        return samples, None
    SearchCalibration.objects.create(**asdict(found), samples=[asdict(s) for s in samples])
    stale = SearchCalibration.objects.order_by("-measured_at").values_list("id", flat=True)
    SearchCalibration.objects.filter(id__in=list(stale[KEEP_ROWS:])).delete()
    log.info(
        "search cost: exact %.3f ms + %.3f ms per 1,000 lessons, index %.3f ms: "
        "exact search up to %d lessons",
        found.exact_fixed_ms, found.exact_per_1000_ms, found.hnsw_ms, found.exact_max,
    )  # fmt: skip
    return samples, found
