"""The record of model calls a judge makes, collected while it classifies.

The learn worker wraps its judging in :func:`collect_calls`; every call an
LLM judge makes inside — failed ones too — is appended as a
:class:`ModelCallRecord`, and the worker writes them (with the tenant) in
the batch's apply transaction. Outside a collector, records are dropped
(the offline judge makes no calls at all).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime

from config.db.bulk import rows_insert


@dataclass(frozen=True)
class ModelCallRecord:
    provider: str
    model: str
    purpose: str  # classify | escalate | evaluate
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None  # in the provider's currency (USD), when it reports one
    latency_ms: float
    outcome: str  # ok | malformed | rate_limited | timeout | error


_collector: ContextVar[list[ModelCallRecord] | None] = ContextVar("model_calls", default=None)


@contextmanager
def collect_calls() -> Iterator[list[ModelCallRecord]]:
    calls: list[ModelCallRecord] = []
    token = _collector.set(calls)
    try:
        yield calls
    finally:
        _collector.reset(token)


def record_call(**fields: object) -> None:
    record = ModelCallRecord(**fields)  # type: ignore[arg-type]
    _count(record)
    calls = _collector.get()
    if calls is not None:
        calls.append(record)


def _count(record: ModelCallRecord) -> None:
    """Every model call in the metrics, whoever collects it."""
    from config.metrics import JUDGE_CALLS, JUDGE_COST, JUDGE_SECONDS, JUDGE_TOKENS

    JUDGE_CALLS.labels(record.provider, record.model, record.outcome).inc()
    JUDGE_SECONDS.labels(record.model).observe(record.latency_ms / 1000)
    if record.cost:
        JUDGE_COST.labels(record.model).inc(record.cost)
    for direction, tokens in (("input", record.input_tokens), ("output", record.output_tokens)):
        if tokens:
            JUDGE_TOKENS.labels(record.model, direction).inc(tokens)


def model_calls_save(
    *,
    tenant_id: uuid.UUID,
    calls: Sequence[tuple[uuid.UUID | None, ModelCallRecord]],
    created_at: datetime,
) -> None:
    """Write ``(learn request id or None, record)`` pairs as ``ModelCall``
    rows in one statement. Precondition: inside the tenant's context."""
    from memory.models import ModelCall

    rows_insert(
        [
            ModelCall(
                tenant_id=tenant_id, learn_request_id=request_id, provider=c.provider,
                model=c.model, purpose=c.purpose, input_tokens=c.input_tokens,
                output_tokens=c.output_tokens, cost=c.cost, latency_ms=round(c.latency_ms, 2),
                outcome=c.outcome, created_at=created_at,
            )
            for request_id, c in calls
        ]
    )  # fmt: skip
