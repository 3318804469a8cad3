"""Numbers about a tenant's memory and its judge (``GET /api/v1/stats``,
the admin, later the dashboard). Precondition: inside the tenant's context
(or ``cross_tenant`` for the admin's all-tenant view)."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import connection

from accounts.quotas import storage_usage

JUDGE_SQL = """
SELECT provider, model,
       count(*) AS calls,
       count(*) FILTER (WHERE outcome = 'ok') AS ok,
       count(*) FILTER (WHERE outcome <> 'ok') AS failed,
       count(*) FILTER (WHERE purpose = 'escalate') AS escalations,
       coalesce(sum(input_tokens), 0) AS input_tokens,
       coalesce(sum(output_tokens), 0) AS output_tokens,
       sum(cost) AS cost,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
FROM memory_modelcall
WHERE (%(tenant)s::uuid IS NULL OR tenant_id = %(tenant)s::uuid)
GROUP BY provider, model
ORDER BY provider, model
"""


def judge_summary(tenant_id: uuid.UUID | None) -> dict[str, Any]:
    """Spend, escalation rate and latency by model, over every recorded call
    of the tenant (None: every tenant the caller sees — the admin's view).
    The explicit tenant predicate backs up row-level security."""
    args = {"tenant": tenant_id}
    with connection.cursor() as cursor:
        cursor.execute(JUDGE_SQL, args)
        columns = [c.name for c in cursor.description or []]
        models = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
        cursor.execute(
            """
            SELECT count(DISTINCT learn_request_id) FILTER (WHERE purpose = 'classify'),
                   count(DISTINCT learn_request_id) FILTER (WHERE purpose = 'escalate')
            FROM memory_modelcall WHERE (%(tenant)s::uuid IS NULL OR tenant_id = %(tenant)s::uuid)
            """,
            args,
        )
        judged, escalated = cursor.fetchone() or (0, 0)
    for row in models:
        row["cost"] = None if row["cost"] is None else float(row["cost"])
        for key in ("p50", "p95"):
            row[f"latency_{key}_ms"] = round(float(row.pop(key)), 1)
    return {
        "models": models,
        "spend": round(sum(m["cost"] or 0.0 for m in models), 6),
        "judged_requests": judged,
        "escalated_requests": escalated,
        "escalation_rate": round(escalated / judged, 4) if judged else 0.0,
    }


def memory_stats(tenant_id: uuid.UUID) -> dict[str, Any]:
    """Lessons by status and kind, learn outcomes and latency, fallbacks,
    recall volume, open disputes, the judge summary and storage against the
    tenant's quota."""
    args = {"tenant": tenant_id}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status, kind, count(*) FROM memory_lesson WHERE tenant_id = %(tenant)s "
            "GROUP BY status, kind",
            args,
        )
        lessons: dict[str, dict[str, int]] = {}
        for status, kind, count in cursor.fetchall():
            lessons.setdefault(status, {})[kind] = count
        cursor.execute(
            """
            SELECT count(*) FILTER (WHERE status = 'pending'),
                   count(*) FILTER (WHERE judge_fallback),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY (timings->>'total')::float8),
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY (timings->>'total')::float8)
            FROM memory_learnrequest WHERE tenant_id = %(tenant)s
            """,
            args,
        )
        pending, fallbacks, p50, p95 = cursor.fetchone() or (0, 0, None, None)
        cursor.execute(
            "SELECT outcome, count(*) FROM memory_learnrequest WHERE status = 'applied' "
            "AND tenant_id = %(tenant)s GROUP BY outcome",
            args,
        )
        outcomes = dict(cursor.fetchall())
        cursor.execute(
            "SELECT coalesce(sum(recall_count), 0) FROM memory_lessonrecallstats "
            "WHERE tenant_id = %(tenant)s",
            args,
        )
        recalls = (cursor.fetchone() or (0,))[0]
        cursor.execute(
            "SELECT count(*) FROM memory_dispute WHERE status = 'open' AND tenant_id = %(tenant)s",
            args,
        )
        disputes = (cursor.fetchone() or (0,))[0]
    return {
        "lessons": lessons,
        "learn": {
            "outcomes": outcomes,
            "pending": pending,
            "judge_fallbacks": fallbacks,
            "latency_p50_ms": None if p50 is None else round(p50, 1),
            "latency_p95_ms": None if p95 is None else round(p95, 1),
        },
        "recalls": int(recalls),
        "open_disputes": disputes,
        "judge": judge_summary(tenant_id),
        "storage": storage_usage(tenant_id),
    }
