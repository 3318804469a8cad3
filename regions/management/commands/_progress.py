"""A progress bar per table on stderr (tqdm), for the transfer commands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm import tqdm

from regions.transfer import Progress


@contextmanager
def table_progress(stream: Any, totals: dict[str, int] | None = None) -> Iterator[Progress]:
    bars: dict[str, tqdm] = {}  # type: ignore[type-arg]

    def update(table: str, done: int) -> None:
        bar = bars.get(table)
        if bar is None:
            for other in bars.values():
                other.close()
            total = (totals or {}).get(table)
            bar = bars[table] = tqdm(total=total, desc=table, unit="row", file=stream, leave=False)
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        for bar in bars.values():
            bar.close()
