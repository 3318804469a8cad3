"""Traces: OpenTelemetry, opt-in.

Off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``…_TRACES_ENDPOINT``) is set
(and ``OTEL_SDK_DISABLED`` is not ``true``). Then each process — the web,
every worker pool process, beat and commands — exports its spans over OTLP
(HTTP/protobuf; the standard ``OTEL_*`` variables configure the exporter,
the service name and resource attributes) through the official SDK, with
its Django, Celery, psycopg and httpx instrumentations: one learn is one
trace from the HTTP request through the Celery task (the context travels in
the task's headers) to the apply transaction.

Our own spans (``span``) tell the story where the instrumentations cannot:
``recall`` (embedding, vector leg, full-text leg, fusion, provenance),
``learn.request``, ``learn.batch`` (claim, embed, screen, judge, apply),
``db.txn`` with the retry and revalidation counts, ``judge.call`` with
provider, model, tokens and cost, ``gardener.step``. Off, ``span`` does
nothing but enter and leave a context manager (about a microsecond; the
API's no-op tracer took eight).
"""

from __future__ import annotations

import atexit
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace

log = logging.getLogger(__name__)
tracer = trace.get_tracer("tributary")
_installed: str | None = None


def tracing_configured() -> bool:
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def install_tracing(role: str) -> bool:
    """Set up the SDK and the instrumentations in this process, once (the
    web before Django builds its middleware; a worker pool process after
    the fork). Returns True when tracing is on."""
    global _installed
    if _installed is not None:
        return True
    if not tracing_configured():
        return False
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({
        "service.name": os.environ.get("OTEL_SERVICE_NAME") or "tributary",
        "tributary.process": role,
    })  # fmt: skip
    provider = TracerProvider(resource=resource, sampler=_sampler())
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    # The standard switch of the auto-instrumentation, honoured here too:
    # OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=psycopg drops a span per SQL
    # statement, the largest share of tracing's cost (benchmarks.md).
    disabled = {
        name.strip()
        for name in os.environ.get("OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", "").split(",")
    }
    instrumentors: dict[str, Any] = {
        "django": lambda: DjangoInstrumentor().instrument(),
        "celery": lambda: CeleryInstrumentor().instrument(),
        "psycopg": lambda: PsycopgInstrumentor().instrument(skip_dep_check=True),
        "httpx": lambda: HTTPXClientInstrumentor().instrument(),
    }
    for name, instrument in instrumentors.items():
        if name not in disabled:
            instrument()
    atexit.register(provider.shutdown)
    _installed = role
    log.info("tracing on (%s): spans exported over OTLP", role)
    return True


DEFAULT_SAMPLE_RATIO = 0.1


def _sampler() -> Any:
    """The standard ``OTEL_TRACES_SAMPLER`` when set; otherwise one trace in
    ten (``OTEL_TRACES_SAMPLER_ARG`` changes the ratio), decided where the
    trace starts and followed by every process it reaches (parent-based), so
    a sampled learn is whole from the request to the apply transaction.
    Tracing every request costs about a tenth of recall's and learning's
    speed on a small machine (benchmarks.md); one in ten, a few percent."""
    if os.environ.get("OTEL_TRACES_SAMPLER"):
        return None  # the SDK reads it
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    try:
        ratio = float(os.environ.get("OTEL_TRACES_SAMPLER_ARG") or DEFAULT_SAMPLE_RATIO)
    except ValueError:
        ratio = DEFAULT_SAMPLE_RATIO
    return ParentBased(TraceIdRatioBased(min(1.0, max(0.0, ratio))))


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[trace.Span]:
    """A span of ours, child of the current one. Attribute values that are
    None are left out; never put content or keys in them. With tracing off
    in this process: nothing at all (the shared invalid span, no context
    change)."""
    if _installed is None:
        yield trace.INVALID_SPAN
        return
    with tracer.start_as_current_span(name) as current:
        if attributes and current.is_recording():
            current.set_attributes({k: v for k, v in attributes.items() if v is not None})
        yield current


def current_trace_id() -> str | None:
    """The hex id of the current trace, for log lines (None: none)."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None
