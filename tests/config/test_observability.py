"""The whole stack observed from outside, as an operator would: traces sent
to a real OTLP receiver on loopback, /metrics added up over every process,
and JSON logs, from one `manage.py up`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from prometheus_client.parser import text_string_to_metric_families

from tests.config.upstack import free_port, issue_key, start_up, stop_up, wait_ready

pytestmark = pytest.mark.slow

SECRET_FACT = "The Quillon relay flushes its spool every 17 minutes."


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent: str
    name: str
    kind: int
    attributes: dict[str, Any]
    process: str


class Receiver:
    """An OTLP/HTTP trace receiver (protobuf), as a collector would be."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.lock = threading.Lock()

    def add(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            process = next((a.value.string_value for a in resource.resource.attributes
                            if a.key == "tributary.process"), "")  # fmt: skip
            for scope in resource.scope_spans:
                for span in scope.spans:
                    attributes = {}
                    for a in span.attributes:
                        which = a.value.WhichOneof("value")
                        attributes[a.key] = getattr(a.value, which) if which else None
                    found = Span(span.trace_id.hex(), span.span_id.hex(), span.parent_span_id.hex(),
                                 span.name, span.kind, attributes, process)  # fmt: skip
                    with self.lock:
                        self.spans.append(found)


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Receiver]]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path == "/v1/traces":
                receiver.add(body)
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", receiver
    finally:
        server.shutdown()


def test_one_learn_is_one_trace_metrics_add_up_and_logs_are_json(data_dir: Path, tmp_path: Path):
    with otlp_receiver() as (endpoint, receiver):
        port = free_port()
        log = tmp_path / "up.log"
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "200",
            "OTEL_TRACES_SAMPLER": "always_on",  # every trace (the default keeps one in ten)
            "OTEL_SERVICE_NAME": "tributary-test",
            "TRIBUTARY_LOG_FORMAT": "json",
            "TRIBUTARY_WEB_WORKERS": "1",
            "TRIBUTARY_WORKER_CONCURRENCY": "1",
        }
        up = start_up(data_dir, port, log, **env)
        try:
            wait_ready(up, port, log)
            key = issue_key(data_dir, "otel", "ana")
            base = f"http://127.0.0.1:{port}"
            headers = {"Authorization": f"Bearer {key}", "X-Request-ID": "req-learn-1"}
            body = {"content": SECRET_FACT, "kind": "fact"}
            learned = httpx.post(
                f"{base}/api/v1/learn", params={"wait": 25}, headers=headers, json=body, timeout=60
            )
            assert learned.status_code in (200, 201), learned.text
            assert learned.json()["status"] == "applied"
            assert learned.headers["X-Request-ID"] == "req-learn-1"
            recalled = httpx.post(
                f"{base}/api/v1/recall", headers={"Authorization": f"Bearer {key}"},
                json={"query": "Quillon relay spool"}, timeout=60,
            )  # fmt: skip
            assert recalled.json()["results"][0]["lesson"]["content"] == SECRET_FACT

            # --- one trace: the HTTP request, the Celery task, the apply transaction
            trace = _wait_for_learn_trace(receiver)
            names = {span.name for span in trace}
            processes = {span.process for span in trace}
            assert {"web", "worker"} <= processes, processes
            server = [s for s in trace if s.kind == 2]  # SPAN_KIND_SERVER
            assert server and any("learn" in s.name for s in server), [s.name for s in server]
            # the route, set by the middleware's process_view (run in place in async mode)
            assert {s.attributes.get("http.route") for s in server} & {"api/v1/learn"}, server
            assert any(name.startswith("run/memory.tasks.process_learn_request") for name in names)
            assert {"learn.batch", "learn.claim", "learn.embed", "learn.judge"} <= names, names
            [txn] = [s for s in trace if s.name == "db.txn"]
            assert txn.attributes["tributary.txn.retries"] == 0
            assert txn.attributes["tributary.txn.attempts"] >= 1
            by_id = {s.span_id: s for s in trace}
            assert by_id[txn.parent].name == "learn.batch"
            # psycopg's statements are spans inside the recorded trace: some under the txn
            under_txn = [s for s in trace if s.kind == 3 and _ancestors(s, by_id) & {txn.span_id}]
            assert under_txn and all(
                "db.system" in s.attributes or "db.system.name" in s.attributes for s in under_txn
            )
            # The recall's spans (exported in the web's next batch).
            parts = {"recall", "recall.embedding", "recall.vector", "recall.fulltext",
                     "recall.fusion", "recall.provenance"}  # fmt: skip
            deadline = time.monotonic() + 30
            while not parts <= {s.name for s in receiver.spans} and time.monotonic() < deadline:
                time.sleep(0.3)
            assert parts <= {s.name for s in receiver.spans}

            # --- /metrics adds up the web's and the worker's counts
            scraped = httpx.get(f"{base}/metrics", timeout=30)
            assert scraped.status_code == 200
            samples = {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(scraped.text)
                for s in family.samples
            }
            outcome = (
                "tributary_learn_outcomes_total",
                (("kind", "fact"), ("outcome", "inserted")),
            )
            assert samples[outcome] == 1  # counted in the worker's pool process
            assert sum(v for (n, labels), v in samples.items()
                       if n == "tributary_http_requests_total"
                       and ("route", "api/v1/learn") in labels) >= 1  # fmt: skip
        finally:
            stop_up(up, log)

    # --- JSON logs: each of our lines is one object; never content or a key
    text = log.read_text()
    secret = key.split("_", 2)[2]  # the secret may hold "_" itself
    assert SECRET_FACT not in text
    assert key not in text and secret not in text
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert lines, text[-2000:]
    for line in lines:
        assert {"time", "level", "logger", "message"} <= set(line), line
    [request_line] = [line for line in lines if line.get("request_id") == "req-learn-1"
                      and line.get("logger") == "config.request"]  # fmt: skip
    assert request_line["tenant"] == "otel" and request_line["outcome"] == "ok"
    assert request_line["route"] == "api/v1/learn" and request_line["status"] in (200, 201)
    assert request_line.get("trace_id") and len(request_line["trace_id"]) == 32


def _ancestors(span: Span, by_id: dict[str, Span]) -> set[str]:
    found: set[str] = set()
    while span.parent in by_id and span.parent not in found:
        found.add(span.parent)
        span = by_id[span.parent]
    return found


def _wait_for_learn_trace(receiver: Receiver) -> list[Span]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with receiver.lock:
            spans = list(receiver.spans)
        for txn in (s for s in spans if s.name == "db.txn"):
            trace = [s for s in spans if s.trace_id == txn.trace_id]
            if any(s.process == "web" and s.kind == 2 for s in trace):
                return trace
        time.sleep(0.3)
    raise AssertionError(f"no learn trace; spans: {sorted({s.name for s in spans})}")
