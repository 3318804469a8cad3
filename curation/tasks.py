"""Celery tasks: the gardener's beat entries, thin wrappers over
:mod:`curation.gardener`."""

from __future__ import annotations

from celery import shared_task

from curation.gardener import garden


@shared_task(ignore_result=True)
def garden_task(step: str) -> int:
    """Run one gardener step for every tenant; returns how many tenant runs
    failed (each failure is recorded and logged)."""
    return sum(1 for result in garden(steps=[step], trigger="beat") if result.error)
