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
from contextvars import ContextVar
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
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({
        "service.name": os.environ.get("OTEL_SERVICE_NAME") or "tributary",
        "tributary.process": role,
    })  # fmt: skip
    global _ids, _root_sampler
    _ids = _preset_ids()
    provider = TracerProvider(resource=resource, sampler=_sampler(), id_generator=_ids)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    # The standard switch of the auto-instrumentation, honoured here too
    # (OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=psycopg,httpx).
    disabled = {
        name.strip()
        for name in os.environ.get("OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", "").split(",")
    }
    instrumentors: dict[str, Any] = {
        "django": _instrument_django,
        "celery": lambda: CeleryInstrumentor().instrument(),
        "psycopg": lambda: _instrument_psycopg(provider),
        "httpx": lambda: HTTPXClientInstrumentor().instrument(),
    }
    for name, instrument in instrumentors.items():
        if name not in disabled:
            instrument()
    atexit.register(provider.shutdown)
    _root_sampler = provider.sampler
    _installed = role
    log.info("tracing on (%s): spans exported over OTLP", role)
    return True


def _instrument_psycopg(provider: Any) -> None:
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor

    PsycopgInstrumentor().instrument(
        skip_dep_check=True, tracer_provider=InsideRecordedTraces(provider)
    )
    _statements_read_only_inside_recorded_traces()


def _statements_read_only_inside_recorded_traces() -> None:
    """psycopg's instrumentation parses every statement for its span's name
    (a regular expression over the SQL and a split of all of it) before it
    asks for the span, and a recall runs eight statements: outside a
    recorded trace, run the statement straight away. (The async cursor's
    path is not patched; ``InsideRecordedTraces`` keeps it spanless.)"""
    from opentelemetry.instrumentation.psycopg import CursorTracer

    traced = getattr(CursorTracer, "traced_execution", None)
    if traced is None or getattr(traced, "_tributary", False):
        return

    def traced_execution(self: Any, cursor: Any, query_method: Any, *args: Any, **kw: Any) -> Any:
        if not trace.get_current_span().is_recording():
            return query_method(*args, **kw)
        return traced(self, cursor, query_method, *args, **kw)

    traced_execution._tributary = True  # type: ignore[attr-defined]
    CursorTracer.traced_execution = traced_execution  # type: ignore[method-assign]


class InsideRecordedTraces:
    """The tracer provider given to psycopg's instrumentation: a statement is
    a span only inside a recorded trace. Outside one — the nine traces in
    ten the sampler drops, and work under no trace at all, such as the
    learn drain's claims — it gets the shared invalid span and the context is
    left alone, instead of a non-recording span (or a trace of its own) made
    and dropped for each of the dozens of statements a learn batch runs."""

    def __init__(self, provider: Any) -> None:
        self._provider = provider

    def get_tracer(self, *args: Any, **kwargs: Any) -> _ChildSpansOnly:
        return _ChildSpansOnly(self._provider.get_tracer(*args, **kwargs))


class _ChildSpansOnly:
    def __init__(self, tracer: trace.Tracer) -> None:
        self._tracer = tracer

    @contextmanager
    def start_as_current_span(self, name: str, *args: Any, **kwargs: Any) -> Iterator[trace.Span]:
        if not trace.get_current_span().is_recording():
            yield trace.INVALID_SPAN
            return
        with self._tracer.start_as_current_span(name, *args, **kwargs) as current:
            yield current

    def start_span(self, name: str, *args: Any, **kwargs: Any) -> trace.Span:
        if not trace.get_current_span().is_recording():
            return trace.INVALID_SPAN
        return self._tracer.start_span(name, *args, **kwargs)


def _instrument_django() -> None:
    """The official instrumentation, its middleware swapped for the
    subclass that runs in async mode (``config.tracing_middleware``)."""
    from django.conf import settings
    from opentelemetry.instrumentation.django import DjangoInstrumentor

    from config.tracing_middleware import PATH

    DjangoInstrumentor().instrument()
    official = DjangoInstrumentor._opentelemetry_middleware
    settings.MIDDLEWARE = [PATH if m == official else m for m in settings.MIDDLEWARE]


# Set by ``install_tracing``: the provider's id generator, whose next trace
# id can be drawn ahead, and its sampler.
_ids: Any = None
_root_sampler: Any = None
_preset: ContextVar[int | None] = ContextVar("tributary_preset_trace_id", default=None)


def _preset_ids() -> Any:
    """The SDK's random ids, except that the next trace id can be drawn
    ahead (``decide_root``) for the root span that then starts the trace."""
    from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

    class PresetIds(RandomIdGenerator):
        def generate_trace_id(self) -> int:
            preset = _preset.get()
            if preset is not None:
                _preset.set(None)
                return preset
            return super().generate_trace_id()

    return PresetIds()


def decide_root(name: str) -> trace.Span | None:
    """The sampler's decision for a trace about to start here, taken before
    any work is done for its root span. Dropped: a non-recording span of the
    drawn trace id, not sampled, for the work to run under. Kept: None, and
    the next root span started in this context gets the drawn id (so the
    sampler, which decides by trace id, keeps it again)."""
    from opentelemetry.sdk.trace.sampling import Decision

    if _ids is None or _root_sampler is None:
        return None
    trace_id = _ids.generate_trace_id()
    result = _root_sampler.should_sample(None, trace_id, name, trace.SpanKind.SERVER)
    if result.decision is not Decision.DROP:
        _preset.set(trace_id)
        return None
    span_context = trace.SpanContext(
        trace_id, _ids.generate_span_id(), is_remote=False, trace_flags=trace.TraceFlags(0)
    )
    return trace.NonRecordingSpan(span_context)


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
    in this process, or under a trace that is not recorded: nothing at all
    (the shared invalid span, no context change)."""
    if _installed is None:
        yield trace.INVALID_SPAN
        return
    parent = trace.get_current_span()
    if parent.get_span_context().is_valid and not parent.is_recording():
        # under a trace the sampler dropped (nine in ten): nothing to record,
        # so no span is made and the context is left alone, as psycopg's
        # statements are (``InsideRecordedTraces``)
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
