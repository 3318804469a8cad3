"""Learn benchmark: concurrent agents through the real stack.

    .venv/bin/python bench/learn_bench.py [--agents 8] [--lessons 5000] [--keep]

Starts ``manage.py up`` (web + Celery worker + beat, embedded PostgreSQL and
Redis) in a private temporary data dir; ``--agents`` threads, each an agent
with its own key in one tenant, POST ``/api/v1/learn`` as fast as the
service accepts them (``--lessons`` in all: mostly new lessons on many
subjects, one in ten a restatement of an earlier one, one in twenty a
contradiction of the agent's own earlier lesson). Then waits for every
request to be applied and prints: accepted/s at the API, sustained
lessons/s (first request to last applied), time from request to applied
(p50/p95/p99), 40001/40P01 retries and re-validations per 100 learns, and
outcomes.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from _stack import ROOT, cpu_report, cpu_snapshot, machine, percentile, run_in_stack
from _upstack import CLAIMS, SUBJECTS


def lesson(agent: int, n: int, rng: random.Random) -> str:
    subject = f"{rng.choice(SUBJECTS)} of cluster {agent}-{n}"
    claim = rng.choice(CLAIMS).format(n=rng.randint(2, 9000), h=rng.randint(0, 23))
    return f"The {subject} {claim}."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--lessons", type=int, default=5000)
    parser.add_argument("--keep", action="store_true")
    run_in_stack("trib-bench-learn-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    import httpx
    from django.db import connections

    from accounts.models import Role
    from accounts.services import agent_ensure, api_key_issue, tenant_ensure
    from accounts.tenancy import cross_tenant, tenant_context
    from memory.models import LearnRequest, RequestStatus

    print(f"machine: {machine()}")

    with cross_tenant(reason="benchmark set-up"):
        tenant = tenant_ensure(slug="bench")
        keys = [
            api_key_issue(
                agent=agent_ensure(tenant=tenant, name=f"agent-{i}", role=Role.WRITER)
            ).plaintext
            for i in range(args.agents)
        ]
    connections.close_all()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    up = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--port", str(port)],
        cwd=ROOT, env={**os.environ, "TRIBUTARY_LOG_LEVEL": "WARNING"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):
            try:
                if httpx.get(f"{base}/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        time.sleep(5)  # the worker's pool loads the model after web is ready
        per_agent = args.lessons // args.agents
        accepted: list[float] = []
        lock = threading.Lock()

        def agent(index: int) -> None:
            rng = random.Random(index)
            written: list[str] = []
            with httpx.Client(base_url=base, timeout=60) as client:
                for n in range(per_agent):
                    roll = rng.random()
                    if written and roll < 0.10:
                        text = rng.choice(written).replace("The ", "Note: the ", 1)
                    elif written and roll < 0.15:
                        text = rng.choice(written).rstrip(".") + " (revised)."
                        text = text.replace("port ", "port 1", 1) if "port " in text else text
                    else:
                        text = lesson(index, n, rng)
                        written.append(text)
                    response = client.post(
                        "/api/v1/learn", json={"content": text},
                        headers={"Authorization": f"Bearer {keys[index]}"},
                    )  # fmt: skip
                    assert response.status_code in (200, 202), response.text
                    with lock:
                        accepted.append(time.perf_counter())

        cpu_before = cpu_snapshot()
        started = time.perf_counter()
        threads = [threading.Thread(target=agent, args=(i,)) for i in range(args.agents)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        submitted = time.perf_counter() - started
        total = per_agent * args.agents
        while True:
            with tenant_context(tenant.id):
                pending = LearnRequest.objects.filter(status=RequestStatus.PENDING).count()
            if pending == 0:
                break
            time.sleep(0.5)
        cpu_after = cpu_snapshot()
        cpu_wall = time.perf_counter() - started
        with tenant_context(tenant.id):
            rows = list(
                LearnRequest.objects.values_list(
                    "created_at", "applied_at", "serialization_failures", "revalidations",
                    "outcome", "timings",
                )
            )  # fmt: skip
        assert all(r[1] is not None for r in rows)
        first = min(r[0] for r in rows)
        last = max(r[1] for r in rows if r[1] is not None)
        wall = (last - first).total_seconds()
        latencies = [(r[1] - r[0]).total_seconds() * 1000 for r in rows if r[1] is not None]
        retries = sum(r[2] for r in rows)
        revalidations = sum(r[3] for r in rows)
        print(f"{args.agents} agents, {total} learns, one tenant")
        print(f"API accepted: {total / submitted:.0f}/s ({submitted:.1f} s)")
        print(f"sustained: {total / wall:.1f} lessons/s applied ({wall:.1f} s first → last)")
        print(
            f"request → applied: p50 {percentile(latencies, 50):.0f} ms, "
            f"p95 {percentile(latencies, 95):.0f} ms, p99 {percentile(latencies, 99):.0f} ms"
        )
        print(f"40001/40P01 retries per 100 learns: {100 * retries / total:.2f}")
        print(f"re-validations (scope moved) per 100 learns: {100 * revalidations / total:.2f}")
        print(f"outcomes: {dict(Counter(r[4] for r in rows))}")
        steps = ("embed", "candidates", "judge", "apply")
        means = {s: sum(r[5].get(s, 0.0) for r in rows) / len(rows) for s in steps}
        print("worker time per learn (mean ms): " + ", ".join(f"{s} {means[s]:.1f}" for s in steps))
        print(f"CPU, first request to all applied ({cpu_wall:.0f} s; unit: one learn):")
        print(cpu_report(cpu_before, cpu_after, cpu_wall, total))
        print(f"batch size: mean {sum(r[5].get('batch', 1) for r in rows) / len(rows):.1f}")
    finally:
        up.terminate()
        up.wait(timeout=60)


if __name__ == "__main__":
    main()
