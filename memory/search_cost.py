"""Exact search or the tenant's own HNSW index: chosen by what each costs here.

A tenant's recall scans its active lessons exactly (every distance, through
the ``(tenant, kind, status)`` B-tree) while that is cheaper than walking an
HNSW index of its own, and through the index past that size. Where the two
cost the same depends on the database server's CPU: ~1,800 lessons on the
Intel machine the benchmarks first ran on, ~600–1,000 on an AMD EPYC one
(docs/benchmarks.md). So with ``TRIBUTARY_EXACT_SEARCH_MAX=auto`` (the
default) the threshold is measured where the service runs, not fixed:

* **Measured** by the index sync (``memory.hnsw.search_indexes_sync``)
  every ``TRIBUTARY_SEARCH_CALIBRATION_HOURS``, and by ``manage.py
  search_indexes --calibrate``: on up to ``EXACT_TENANTS`` tenants of
  sizes spread on a log scale, exact search is timed, and on up to ``HNSW_TENANTS``
  tenants that have a valid index (the smallest: nearest the crossover),
  the index search too — the service's own two search functions, on the
  tenant's real lessons, with ``QUERIES`` query vectors made from them
  (each the midpoint of two of its lessons: near the tenant's text, never
  one of its lessons), the two paths alternated query by query; each
  tenant's figure is its median.
* **Fitted**: exact costs ``a + b·n`` for ``n`` lessons (least squares over
  the timed tenants), the index search costs ``h`` (nearly flat in ``n``):
  on each tenant where both were timed, the line's cost there times the
  ratio of the two medians (one busy moment slows both paths alike, and the
  line was timed at other moments), the median over those tenants; the
  threshold is the ``n`` where ``a + b·n = h``, followed at most
  ``EXTRAPOLATE`` times past the largest tenant timed exactly, moved at
  most ``STEP`` times from the last threshold measured, and kept within
  [``LOWEST``, ``HIGHEST``].
* **Bootstrapped**: with no valid index to time, the sync first builds the
  index of the largest tenant of at least ``PROBE_MIN`` lessons; the usual
  rule then keeps it (unused while the tenant is under the threshold) or
  drops it (below half the threshold). With nothing to time, nothing is
  timed.
* **Kept** in ``memory_searchcalibration`` (sizes and times, no tenant's
  ids or content; a measurement that gave no threshold is a row too, so
  the next one waits its turn). The newest row with a threshold is in
  force, for the sync's keep/build rule and for every search plan (each
  process reads it at most once a minute: ``threshold``). Until the first measurement, and
  while there is nothing to time, the threshold is ``UNCALIBRATED``.

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
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from memory.scope_cache import ScopeCache, scope_key

if TYPE_CHECKING:
    from memory.models import SearchCalibration

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
EXTRAPOLATE = 2.0
STEP = 2.0  # one measurement moves the threshold at most this factor from the last
KEEP_ROWS = 100
TTL_SECONDS = 60.0  # how long a process keeps the threshold it read (``threshold``)
# Per region database, like the plans and floors: the nil tenant and no
# kinds stand for the whole database.
_known: ScopeCache[int] = ScopeCache(TTL_SECONDS)


@dataclass(frozen=True)
class Sample:
    """One timed tenant: its active lessons, its exact search's median (up
    to ``EXACT_TIMED_MAX`` lessons) and (where it has a valid index) its
    index search's median, in ms."""

    lessons: int
    exact_ms: float | None  # None: past EXACT_TIMED_MAX, only its index timed
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
    fixed = fixed_exact_max()
    if fixed is not None:
        return fixed
    newest = in_force().values_list("exact_max", flat=True).first()
    return newest if newest is not None else UNCALIBRATED


def threshold() -> int:
    """``exact_search_max``, remembered per process and region for
    ``TTL_SECONDS``: what every search plan compares the tenant's size with
    (a measurement reaches the other processes within a minute; a recorded
    one clears this process's at once)."""
    fixed = fixed_exact_max()
    if fixed is not None:
        return fixed
    key = scope_key(uuid.UUID(int=0), ())
    known = _known.get(key)
    if known is None:
        known = exact_search_max()
        _known.put(key, known)
    return known


def forget(**_: object) -> None:
    """Read the threshold again on next use (a receiver of the model's
    saves and deletes)."""
    _known.clear()


def in_force() -> QuerySet[SearchCalibration]:
    """The measurements that gave a threshold, newest first."""
    from memory.models import SearchCalibration

    return SearchCalibration.objects.filter(exact_max__isnull=False).order_by("-measured_at", "-id")


def fit(samples: Iterable[Sample]) -> Fit | None:
    """The crossover of the timed samples, or None when they cannot give one:
    no index search timed, no exact search timed, or exact search not
    dearer with more lessons (on tenants of close sizes the noise can hide
    the slope; that answer is no answer, not a threshold far away). The
    line is followed at most ``EXTRAPOLATE`` times past the largest tenant
    whose exact search was timed."""
    samples = list(samples)
    hnsw = [s.hnsw_ms for s in samples if s.hnsw_ms is not None]
    exact = [s for s in samples if s.exact_ms is not None]
    if not hnsw or not exact:
        return None
    sizes = np.array([s.lessons for s in exact], dtype=float)
    costs = np.array([s.exact_ms for s in exact], dtype=float)
    if len(set(sizes.tolist())) >= 2:
        slope, fixed = (float(v) for v in np.polyfit(sizes, costs, 1))
        # A fixed cost below nothing, or above the cheapest search timed, is
        # the noise of a few points: keep it within what was seen.
        fixed = min(max(fixed, 0.0), float(costs.min()))
    else:  # one size: its fixed cost cannot be told apart, so all of it counts per lesson
        fixed, slope = 0.0, float(costs[0] / sizes[0])
    if slope <= 1e-9:  # not dearer with size (1e-9: a float's rounding of a flat line)
        return None
    # The index search in the line's terms: where both paths were timed on
    # one tenant, query by query, their ratio there (a busy moment slows
    # both alike, and the line was timed at other moments); else as timed.
    paired = [
        (fixed + slope * s.lessons) * s.hnsw_ms / s.exact_ms
        for s in exact
        if s.hnsw_ms is not None and s.exact_ms
    ]
    index_ms = float(statistics.median(paired or hnsw))
    crossover = min(math.ceil((index_ms - fixed) / slope), int(EXTRAPOLATE * sizes.max()))
    return Fit(
        exact_max=min(max(crossover, LOWEST), HIGHEST),
        exact_fixed_ms=round(fixed, 4),
        exact_per_1000_ms=round(slope * 1000, 4),
        hnsw_ms=round(index_ms, 4),
    )


def calibration_due() -> bool:
    """Whether the sync should measure now: auto, and no measurement within
    ``TRIBUTARY_SEARCH_CALIBRATION_HOURS`` — one that gave no threshold
    counts too, so an installation whose tenants give none is not timed
    (nor its probe index built and dropped) on every sync."""
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
    """(tenants to time, those of them whose index search is timed too).
    Exact search is timed only on tenants of ``LOWEST`` to
    ``EXACT_TIMED_MAX`` lessons."""
    with_index = sorted((t for t in indexed if t in sizes), key=lambda t: (sizes[t], t.int))
    timed_index = set(with_index[:HNSW_TENANTS])
    exact = sorted(
        (t for t, size in sizes.items() if LOWEST <= size <= EXACT_TIMED_MAX),
        key=lambda t: (sizes[t], t.int),
    )
    if len(exact) > EXACT_TENANTS:
        # Spread over the sizes on a log scale, both ends in: most tenants
        # are small, and by rank the line would be drawn between a few small
        # ones and the largest, far from where it crosses the index's cost.
        low, high = math.log(sizes[exact[0]]), math.log(sizes[exact[-1]])
        picked: list[uuid.UUID] = []
        for i in range(EXACT_TENANTS):
            target = low + (high - low) * i / (EXACT_TENANTS - 1)
            left = [t for t in exact if t not in picked]
            picked.append(min(left, key=lambda t: (abs(math.log(sizes[t]) - target), t.int)))
        exact = picked
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
            paths: list[tuple[list[float], Callable[[list[float]], object]]] = []
            if LOWEST <= sizes[tenant] <= EXACT_TIMED_MAX:
                paths.append((exact, partial(selectors._exact_neighbours, tenant, kinds,
                                             limit=K, as_of=None, generic=True)))  # fmt: skip
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
                exact_ms=round(statistics.median(exact), 4) if exact else None,
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
    """Measure, fit and record: the crossover when the samples give one —
    moved at most ``STEP`` times from the last threshold measured — else
    the attempt (no threshold; the last one stays in force). The newest
    ``KEEP_ROWS`` rows are kept."""
    from memory.models import SearchCalibration

    samples = measure(sizes, indexed)
    found = fit(samples)
    timed = [asdict(s) for s in samples]
    if found is None:
        log.info("search cost: no crossover from %d timed tenants", len(samples))
        record_attempt(timed)
        return samples, None
    last = in_force().values_list("exact_max", flat=True).first()
    if last is not None:
        bounded = min(max(found.exact_max, math.ceil(last / STEP)), int(last * STEP))
        found = replace(found, exact_max=bounded)
    SearchCalibration.objects.create(**asdict(found), samples=timed)
    _keep_newest()
    log.info(
        "search cost: exact %.3f ms + %.3f ms per 1,000 lessons, index %.3f ms: "
        "exact search up to %d lessons",
        found.exact_fixed_ms, found.exact_per_1000_ms, found.hnsw_ms, found.exact_max,
    )  # fmt: skip
    return samples, found


def record_attempt(samples: list[dict[str, object]]) -> None:
    """A measurement that gave no threshold: it makes the next one wait
    ``TRIBUTARY_SEARCH_CALIBRATION_HOURS`` like any other."""
    from memory.models import SearchCalibration

    SearchCalibration.objects.create(samples=samples)
    _keep_newest()


def _keep_newest() -> None:
    from memory.models import SearchCalibration

    stale = SearchCalibration.objects.order_by("-measured_at", "-id").values_list("id", flat=True)
    SearchCalibration.objects.filter(id__in=list(stale[KEEP_ROWS:])).delete()
