"""Observability benchmark: tracing and metrics on against off, side by side.

    .venv/bin/python bench/observability_bench.py [--lessons 60] [--queries 300] [--rounds 6]

Two stacks (``manage.py up``) at once on this machine: OFF (no OTLP
endpoint: the tracer is the API's no-op) and ON (every process traces —
the service's sampler, one trace in ten, or ``--sampler`` — exporting over
OTLP/HTTP to a sink on loopback that reads and drops the spans, as a
collector would; JSON logs; ``/metrics`` scraped every 15 s, as Prometheus
would). Prometheus counters are always kept: their cost is in both columns
(a counter increment is measured on its own below). Each stack
has one tenant with ``--lessons`` facts learned first; then learn rounds
(24 learns, 8 threads) alternate OFF/ON and recall queries alternate query
by query. Prints p50s, learn rates and the ratios ON/OFF.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _upstack import SUBJECTS, Stack, fact, learn_round, post  # noqa: E402


class Sink(BaseHTTPRequestHandler):
    received: Any = None  # a shared counter of bytes, set in the sink's process

    def do_POST(self) -> None:
        size = len(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        with Sink.received.get_lock():
            Sink.received.value += size
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def serve_sink(port: Any, received: Any) -> None:
    """The OTLP sink, in a process of its own as a collector would be (in
    the bench's process it would take the GIL from the client it times)."""
    Sink.received = received
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    port.value = server.server_address[1]
    server.serve_forever()


def counter_cost() -> float:
    """Nanoseconds per labelled counter increment, in this process."""
    from prometheus_client import Counter

    counter = Counter("bench_probe_total", "probe", ["route", "status"])
    started = time.perf_counter()
    for _ in range(200_000):
        counter.labels("api/v1/recall", "200").inc()
    return (time.perf_counter() - started) / 200_000 * 1e9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lessons", type=int, default=60)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument(
        "--on",
        default="trace,json",
        help="what ON turns on: trace, json (comma-separated; "
        "empty: ON is configured as OFF, an A/A run that shows the noise)",
    )
    parser.add_argument(
        "--sampler", default=None, help="OTEL_TRACES_SAMPLER of ON (default: the service's)"
    )
    args = parser.parse_args()
    rng = random.Random(11)
    port, received = multiprocessing.Value("i", 0), multiprocessing.Value("q", 0)
    sink = multiprocessing.Process(target=serve_sink, args=(port, received), daemon=True)
    sink.start()
    while not port.value:
        time.sleep(0.05)
    endpoint = f"http://127.0.0.1:{port.value}"
    off = Stack("OFF", {})
    parts = {part.strip() for part in args.on.split(",") if part.strip()}
    traced = {}
    if "trace" in parts:
        traced["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    if "json" in parts:
        traced["TRIBUTARY_LOG_FORMAT"] = "json"
    if args.sampler:
        traced["OTEL_TRACES_SAMPLER"] = args.sampler
    on = Stack("ON", traced)
    stacks = [off, on]
    scraping = threading.Event()

    def scrape() -> None:
        with httpx.Client(timeout=30) as client:
            while not scraping.is_set():
                try:
                    client.get(f"{on.base}/metrics").raise_for_status()
                except httpx.HTTPError:
                    if not scraping.is_set():
                        raise
                scraping.wait(15.0)  # a usual Prometheus scrape interval

    try:
        for stack in stacks:
            stack.wait()
            stack.keys = [stack.key("obs", None)]
        print(f"machine: {os.cpu_count()} cores; both stacks up")
        for stack in stacks:
            learn_round(stack, [(stack.keys[0], fact(rng, stack.name, n))
                                for n in range(args.lessons)])  # fmt: skip
        scraper = threading.Thread(target=scrape, daemon=True)
        scraper.start()
        rates: dict[str, list[float]] = {"OFF": [], "ON": []}
        for r in range(args.rounds):
            for stack in stacks if r % 2 == 0 else reversed(stacks):
                batch = [(stack.keys[0], fact(rng, f"r{r}{stack.name}", i)) for i in range(24)]
                rates[stack.name].append(learn_round(stack, batch))
        timings: dict[str, list[float]] = {"OFF": [], "ON": []}
        with httpx.Client(timeout=60) as client:
            for stack in stacks:
                post(client, stack, stack.keys[0], "recall", {"query": "warm up"})
            for q in range(args.queries):
                query = f"{rng.choice(SUBJECTS)} {rng.choice(['port', 'timeout', 'backups'])}"
                for stack in stacks if q % 2 == 0 else reversed(stacks):
                    started = time.perf_counter()
                    answer = post(client, stack, stack.keys[0], "recall", {"query": query, "k": 10})
                    timings[stack.name].append((time.perf_counter() - started) * 1000)
                    answer.raise_for_status()
        scraping.set()
        print("\n| | off | on | on / off |\n|---|---|---|---|")
        a, b = statistics.median(timings["OFF"]), statistics.median(timings["ON"])
        print(f"| recall p50, end to end over HTTP, ms | {a:.2f} | {b:.2f} | {b / a:.3f} |")
        a, b = statistics.median(rates["OFF"]), statistics.median(rates["ON"])
        print(f"| learn, lessons/s (median of {args.rounds} rounds of 24) | {a:.1f} | {b:.1f} "
              f"| {b / a:.3f} |")  # fmt: skip
        print(f"\nspans exported by ON: {received.value / 1e6:.1f} MB of OTLP protobuf")
        print(f"a labelled counter increment: {counter_cost():.0f} ns")
    finally:
        scraping.set()
        for stack in stacks:
            stack.stop()
        sink.terminate()


if __name__ == "__main__":
    main()
