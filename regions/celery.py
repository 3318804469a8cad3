"""Work stays in its region: a task sent while routed to a region goes to
that region's queue (``tributary.<region>``), which only that region's
worker pool consumes (``up`` starts one per region, each with
``TRIBUTARY_REGION`` set); beat sends each periodic task once per region.
With one region every task goes to Celery's default queue, as before."""

from __future__ import annotations

from typing import Any

from regions.layout import RegionSpec


def region_queue(region: str) -> str:
    return f"tributary.{region}"


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **_: Any) -> Any:
    from regions.routing import current_region, multi_region

    if not multi_region():
        return None
    region = current_region()
    return None if region is None else {"queue": region_queue(region)}


def beat_schedule(schedule: dict[str, Any], specs: list[RegionSpec]) -> dict[str, Any]:
    """``schedule`` once per region, each entry sent to its region's queue."""
    if not specs:
        return schedule
    return {
        f"{name}@{spec.name}": {
            **entry,
            "options": {**entry.get("options", {}), "queue": region_queue(spec.name)},
        }
        for name, entry in schedule.items()
        for spec in specs
    }
