"""Statement spans (psycopg's instrumentation) only inside recorded traces."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased

from config.telemetry import InsideRecordedTraces


def _provider(sampler: object) -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=sampler)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def test_a_statement_is_a_child_span_of_a_recorded_trace():
    provider, exporter = _provider(ALWAYS_ON)
    statements = InsideRecordedTraces(provider).get_tracer("psycopg")
    with (
        provider.get_tracer("tributary").start_as_current_span("db.txn") as txn,
        statements.start_as_current_span("SELECT", kind=trace.SpanKind.CLIENT) as stmt,
    ):
        assert stmt.is_recording()
        assert trace.get_current_span() is stmt
    by_name = {s.name: s for s in exporter.get_finished_spans()}
    assert set(by_name) == {"db.txn", "SELECT"}
    assert by_name["SELECT"].parent.span_id == txn.get_span_context().span_id
    assert by_name["SELECT"].kind is trace.SpanKind.CLIENT


def test_outside_a_recorded_trace_a_statement_is_nothing():
    provider, exporter = _provider(ALWAYS_ON)
    statements = InsideRecordedTraces(provider).get_tracer("psycopg")
    before = trace.get_current_span()
    # under no trace: no trace of its own, and the context is left alone
    with statements.start_as_current_span("SELECT") as stmt:
        assert stmt is trace.INVALID_SPAN and not stmt.is_recording()
        assert trace.get_current_span() is before
    assert statements.start_span("SELECT") is trace.INVALID_SPAN
    assert exporter.get_finished_spans() == ()


def test_under_a_trace_the_sampler_dropped_a_statement_is_nothing():
    provider, exporter = _provider(ParentBased(ALWAYS_OFF))
    statements = InsideRecordedTraces(provider).get_tracer("psycopg")
    with provider.get_tracer("tributary").start_as_current_span("recall") as dropped:
        assert not dropped.is_recording()
        with statements.start_as_current_span("SELECT") as stmt:
            assert stmt is trace.INVALID_SPAN
            assert trace.get_current_span() is dropped
    assert exporter.get_finished_spans() == ()


def test_our_spans_are_made_under_a_recorded_trace_or_none_and_skipped_under_a_dropped_one(
    monkeypatch,
):
    from config import telemetry

    provider, exporter = _provider(ParentBased(ALWAYS_ON))
    monkeypatch.setattr(telemetry, "_installed", "test")
    monkeypatch.setattr(telemetry, "tracer", provider.get_tracer("tributary"))
    with telemetry.span("gardener.step", rule="decay") as root:  # no parent: a trace of its own
        assert root.is_recording()
        with telemetry.span("recall.vector") as child:
            assert child.is_recording()
    dropped = trace.NonRecordingSpan(
        trace.SpanContext(
            trace_id=0x1F, span_id=0x2F, is_remote=True, trace_flags=trace.TraceFlags(0)
        )
    )
    with trace.use_span(dropped), telemetry.span("recall") as skipped:
        assert skipped is trace.INVALID_SPAN
        assert trace.get_current_span() is dropped  # the context is left alone
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["recall.vector", "gardener.step"]


def test_outside_a_recorded_trace_a_statement_runs_without_being_parsed():
    from opentelemetry.instrumentation.psycopg import CursorTracer

    from config.telemetry import _statements_read_only_inside_recorded_traces

    _statements_read_only_inside_recorded_traces()
    _statements_read_only_inside_recorded_traces()  # once is enough; twice changes nothing
    bare = CursorTracer.__new__(CursorTracer)  # no integration: it must not be touched

    def statement(*args: object) -> str:
        return f"ran {args[0]}"

    assert CursorTracer.traced_execution(bare, None, statement, "SELECT 1") == "ran SELECT 1"
    dropped = trace.NonRecordingSpan(trace.SpanContext(trace_id=0x3F, span_id=0x4F, is_remote=True))
    with trace.use_span(dropped):
        assert CursorTracer.traced_execution(bare, None, statement, "SELECT 2") == "ran SELECT 2"


def _deciding(monkeypatch, sampler: object) -> tuple[TracerProvider, InMemorySpanExporter]:
    """A provider wired as ``install_tracing`` wires it: ids drawn ahead, its sampler asked."""
    from config import telemetry

    ids = telemetry._preset_ids()
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=sampler, id_generator=ids)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(telemetry, "_ids", ids)
    monkeypatch.setattr(telemetry, "_root_sampler", provider.sampler)
    return provider, exporter


def test_a_request_whose_trace_is_dropped_runs_under_a_not_sampled_span_and_nothing_else(
    monkeypatch, rf
):
    from config.tracing_middleware import TracingMiddleware

    provider, exporter = _deciding(monkeypatch, ParentBased(ALWAYS_OFF))
    seen: list[trace.Span] = []

    def view(request: object) -> str:
        seen.append(trace.get_current_span())
        # what runs below follows the decision: a task's span, a statement
        with provider.get_tracer("celery").start_as_current_span("apply_async") as child:
            assert not child.is_recording()
            assert child.get_span_context().trace_id == seen[0].get_span_context().trace_id
        return "ok"

    middleware = TracingMiddleware.__new__(TracingMiddleware)
    middleware.get_response, middleware.async_mode = view, False
    before = trace.get_current_span()
    assert middleware(rf.get("/api/v1/recall")) == "ok"
    [span] = seen
    assert span.get_span_context().is_valid and not span.get_span_context().trace_flags.sampled
    assert not span.is_recording()
    assert trace.get_current_span() is before  # detached after the request
    assert exporter.get_finished_spans() == ()


def test_a_kept_trace_starts_with_the_id_drawn_for_the_decision(monkeypatch):
    from opentelemetry.sdk.trace.sampling import TraceIdRatioBased

    from config import telemetry

    provider, exporter = _deciding(monkeypatch, ParentBased(TraceIdRatioBased(0.5)))
    tracer = provider.get_tracer("django")
    kept = dropped = 0
    for _ in range(200):
        decided = telemetry.decide_root("GET /api/v1/recall")
        if decided is not None:
            dropped += 1
            continue
        kept += 1
        drawn = telemetry._preset.get()
        with tracer.start_as_current_span("GET api/v1/recall") as root:
            # the instrumentation's root span: the drawn id, so the same decision
            assert root.is_recording() and root.get_span_context().trace_id == drawn
        assert telemetry._preset.get() is None  # used once
    assert kept and dropped  # about half each
    assert len(exporter.get_finished_spans()) == kept
