"""The exact-search threshold's fit and choice of tenants to time (the
measurement itself runs on a real database: tests/memory/test_recall.py)."""

from __future__ import annotations

import uuid

import pytest

from memory.search_cost import (
    EXACT_TENANTS,
    HIGHEST,
    HNSW_TENANTS,
    LOWEST,
    PROBE_MIN,
    Sample,
    chosen,
    fit,
    probe_tenant,
)


def _line(fixed: float, per_lesson: float, index_ms: float, sizes: list[int]) -> list[Sample]:
    return [Sample(n, fixed + per_lesson * n, index_ms if n > 1500 else None) for n in sizes]


def test_the_crossover_is_where_exact_search_costs_what_the_index_does():
    # exact 0.2 ms + 1.3 µs a lesson; the index 1.5 ms: equal at 1,000 lessons
    found = fit(_line(0.2, 0.0013, 1.5, [150, 400, 900, 2000, 4000]))
    assert found is not None
    assert found.exact_max == pytest.approx(1000, abs=1)
    assert found.exact_fixed_ms == pytest.approx(0.2)
    assert found.exact_per_1000_ms == pytest.approx(1.3)
    assert found.hnsw_ms == 1.5
    # a faster CPU for distances moves it up
    faster = fit(_line(0.2, 0.0007, 1.5, [150, 400, 900, 2000, 4000]))
    assert faster is not None and faster.exact_max == 1858


def test_noise_and_one_size_still_give_a_threshold_within_bounds():
    noisy = [Sample(200, 0.55, None), Sample(800, 1.2, None), Sample(3000, 4.1, 1.6),
             Sample(6000, 8.0, 1.8)]  # fmt: skip
    found = fit(noisy)
    assert found is not None and 900 < found.exact_max < 1400
    one = fit([Sample(1500, 3.0, 1.5)])  # no fixed cost to tell apart: all per lesson
    assert one is not None and one.exact_max == 750 and one.exact_fixed_ms == 0
    # exact far cheaper than the index: the line is followed twice past the size timed …
    assert fit([Sample(1500, 0.01, 9.0)]).exact_max == 3000  # type: ignore[union-attr]
    # … and never past HIGHEST
    assert fit([Sample(30_000, 0.01, 9.0)]).exact_max == HIGHEST  # type: ignore[union-attr]
    assert fit([Sample(1500, 30.0, 0.01)]).exact_max == LOWEST  # type: ignore[union-attr]


def test_a_busy_moment_slows_both_paths_of_a_tenant_alike_and_moves_nothing():
    quiet = [Sample(150, 0.395, None), Sample(400, 0.72, None), Sample(900, 1.37, None),
             Sample(2000, 2.8, 1.5), Sample(4000, 5.4, 1.6)]  # fmt: skip
    # the same, the indexed tenants timed while the machine was 2.5 times slower
    busy = [*quiet[:3], Sample(2000, 2.8 * 2.5, 1.5 * 2.5), Sample(4000, 5.4 * 2.5, 1.6 * 2.5)]
    calm, loaded = fit(quiet), fit(busy)
    assert calm is not None and loaded is not None
    assert abs(calm.exact_max - loaded.exact_max) <= 0.1 * calm.exact_max
    assert 900 < calm.exact_max < 1200


def test_small_tenants_of_close_sizes_do_not_stretch_the_line_far():
    # exact barely dearer with size amid the noise of close sizes: the line
    # is followed at most twice past the largest tenant timed
    for costs in ([0.50, 0.52, 0.51, 0.50], [0.50, 0.49, 0.515, 0.52]):
        samples = [Sample(n, c, None) for n, c in zip([120, 300, 450, 600], costs, strict=True)]
        found = fit([*samples[:3], Sample(600, costs[3], 1.1)])
        assert found is None or found.exact_max <= 1200, costs


def test_no_index_timed_or_exact_not_dearer_with_size_gives_nothing():
    assert fit([]) is None
    assert fit([Sample(500, 1.0, None), Sample(3000, 4.0, None)]) is None
    assert fit([Sample(500, 2.0, 1.0), Sample(3000, 2.0, 1.0)]) is None
    assert fit([Sample(500, 2.0, None), Sample(3000, 1.5, None), Sample(30_000, None, 2.0)]) is None
    assert fit([Sample(30_000, None, 2.0)]) is None  # only an index timed


def test_the_tenants_timed_spread_over_the_sizes_and_the_smallest_indexed():
    tenants = {uuid.UUID(int=i + 1): size for i, size in enumerate(
        [5, 99, 100, 250, 600, 1200, 2500, 4000, 9000, 30_000])}  # fmt: skip
    by_size = {size: t for t, size in tenants.items()}
    indexed = {by_size[2500], by_size[4000], by_size[9000], by_size[30_000]}
    timed, with_index = chosen(tenants, indexed)
    # exact: EXACT_TENANTS of the 7 tenants of LOWEST..20,000 lessons, spread
    # on a log scale (targets 100, 309, 949, 2,924, 9,000), both ends in; the
    # index search too: the HNSW_TENANTS smallest indexed
    assert sorted(tenants[t] for t in timed) == [100, 250, 1200, 2500, 4000, 9000]
    assert with_index == {by_size[2500], by_size[4000], by_size[9000]}
    assert (EXACT_TENANTS, HNSW_TENANTS) == (5, 3) and len(timed) == len(set(timed))


def test_the_probe_is_the_largest_tenant_worth_an_index_and_only_when_none_has_one():
    small, mid, large = uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3)
    sizes = {small: PROBE_MIN - 1, mid: PROBE_MIN, large: 5000}
    assert probe_tenant(sizes, set()) == large
    assert probe_tenant(sizes, {mid}) is None
    assert probe_tenant({small: PROBE_MIN - 1}, set()) is None
