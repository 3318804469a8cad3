"""Learn benchmark: concurrent agents through the real stack.

    .venv/bin/python bench/learn_bench.py [--agents 8] [--lessons 5000] [--keep]

First measures the embedding limit in this process: lesson-like
sentences embedded by the model in batches of 32, on one thread and on every
core (the higher is "the limit"). Then starts ``manage.py up`` (web + Celery
worker + beat, embedded PostgreSQL and Redis) in a private temporary data
dir; ``--agents`` threads, each an agent with its own key (in one tenant,
or spread over ``--tenants``), POST ``/api/v1/learn`` as fast as the
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
    parser.add_argument("--tenants", type=int, default=1, help="agents spread over this many")
    parser.add_argument("--keep", action="store_true")
    run_in_stack("trib-bench-learn-", parser.parse_args(), run)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    import httpx
    from django.db import connections

    from accounts.models import Role
    from accounts.services import agent_ensure, api_key_issue, tenant_ensure
    from accounts.tenancy import cross_tenant
    from memory.models import LearnRequest, RequestStatus

    print(f"machine: {machine()}")
    limit = embedding_limit()

    with cross_tenant(reason="benchmark set-up"):
        tenants = [tenant_ensure(slug=f"bench-{t}") for t in range(max(1, args.tenants))]
        keys = [
            api_key_issue(
                agent=agent_ensure(
                    tenant=tenants[i % len(tenants)], name=f"agent-{i}", role=Role.WRITER
                )
            ).plaintext
            for i in range(args.agents)
        ]
    connections.close_all()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = open(data_dir / "up.log", "wb")  # noqa: SIM115 (closed with the stack)
    up = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--port", str(port)],
        cwd=ROOT, env={**os.environ, "TRIBUTARY_LOG_LEVEL": "WARNING"},
        stdout=log, stderr=subprocess.STDOUT,
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
        errors: list[str] = []
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
                    with lock:
                        if response.status_code in (200, 202):
                            accepted.append(time.perf_counter())
                        else:
                            errors.append(f"{response.status_code} {response.text[:200]}")

        cpu_before = cpu_snapshot()
        started = time.perf_counter()
        threads = [threading.Thread(target=agent, args=(i,)) for i in range(args.agents)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        submitted = time.perf_counter() - started
        if errors:
            print(f"{len(errors)} learn(s) refused, the first: {errors[0]}; the stack's log: "
                  + (log.name if args.keep else "rerun with --keep to read it"))  # fmt: skip
        total = len(accepted)  # the learns the API accepted
        while True:
            with cross_tenant(reason="benchmark progress"):
                pending = LearnRequest.objects.filter(status=RequestStatus.PENDING).count()
            if pending == 0:
                break
            time.sleep(0.5)
        cpu_after = cpu_snapshot()
        cpu_wall = time.perf_counter() - started
        with cross_tenant(reason="benchmark results"):
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
        print(f"{args.agents} agents, {total} learns, {len(tenants)} tenant(s)")
        print(f"API accepted: {total / submitted:.0f}/s ({submitted:.1f} s)")
        print(f"sustained: {total / wall:.1f} lessons/s applied ({wall:.1f} s first → last), "
              f"{100 * total / wall / limit:.0f} % of the embedding limit")  # fmt: skip
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
        log.close()


def embedding_limit() -> float:
    """Sentences/s the model embeds here in batches of 32 (the worker's
    batch), on one thread and on every core, on the runtime the service
    uses (``TRIBUTARY_EMBEDDING_RUNTIME``); returns the higher."""
    from memory.embeddings import default_model_path, embed, get_provider, load_provider

    rng = random.Random(99)
    texts = [lesson(99, n, rng) for n in range(640)]
    runtime = get_provider().runtime
    rates = {}
    for threads in sorted({1, os.cpu_count() or 1}):
        provider = load_provider(default_model_path(), runtime, threads)
        embed(texts[:32], provider)  # warm up
        started = time.perf_counter()
        for i in range(0, len(texts), 32):
            embed(texts[i : i + 32], provider)
        rates[threads] = len(texts) / (time.perf_counter() - started)
    print(f"embedding limit ({runtime}): " + ", ".join(
        f"{r:.0f} sentences/s on {t} thread(s)" for t, r in rates.items()))  # fmt: skip
    return max(rates.values())


if __name__ == "__main__":
    main()
