"""Shared by the benchmarks that run whole stacks side by side: a stack
started with ``manage.py up`` in a private data dir, its keys, and timed
rounds of learns through the API."""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
# one web worker and one pool process each (two stacks share the cores), no rate limit
SMALL = {"TRIBUTARY_WEB_WORKERS": "1", "TRIBUTARY_WORKER_CONCURRENCY": "1",
         "TRIBUTARY_RATE_LIMIT_PER_MINUTE": "0"}  # fmt: skip
SUBJECTS = ["deploy API", "build cache", "billing service", "search index", "auth gateway",
            "export job", "ingest pipeline", "payment gateway", "config loader", "rate limiter",
            "package mirror", "staging database", "log shipper", "feature flags", "CDN edge",
            "scheduler", "mail relay", "metrics store", "queue broker", "vault"]  # fmt: skip
CLAIMS = ["listens on port {n}", "times out after {n} seconds", "runs at {h:02d}:00 UTC",
          "keeps backups for {n} days", "rejects payloads over {n} KB",
          "retries at most {n} times", "logs error E{n} when the disk is full"]  # fmt: skip


def fact(rng: random.Random, tag: str, n: int) -> str:
    claim = rng.choice(CLAIMS).format(n=rng.randint(2, 9000), h=rng.randint(0, 23))
    return f"The {rng.choice(SUBJECTS)} of cell {tag}-{n} {claim}."


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Stack:
    """``manage.py up`` with ``extra`` in its environment, in a data dir of its own."""

    def __init__(self, name: str, extra: dict[str, str], root: Path = ROOT) -> None:
        self.name = name
        self.root = root  # the checkout whose manage.py runs it
        self.manage_py = [sys.executable, str(root / "manage.py")]
        self.data_dir = Path(tempfile.mkdtemp(prefix=f"trib-rb-{name.lower()}-"))
        self.env = {**os.environ, "TRIBUTARY_DATA_DIR": str(self.data_dir), **SMALL, **extra}
        for gone in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "TRIBUTARY_REGIONS"):
            if gone not in extra:
                self.env.pop(gone, None)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = self.data_dir.parent / f"{self.data_dir.name}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [*self.manage_py, "up", "--port", str(self.port)], env=self.env, cwd=root,
                stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        self.keys: list[str] = []

    def wait(self) -> None:
        deadline = time.monotonic() + 300
        while "Tributary is up" not in self.log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{self.name} did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.5)

    def manage(self, *args: str) -> str:
        done = subprocess.run([*self.manage_py, *args], env=self.env, cwd=self.root,
                              capture_output=True, text=True, check=True, timeout=3600)  # fmt: skip
        return done.stdout

    def key(self, tenant: str, region: str | None) -> str:
        args = ["issue_key", "--tenant", tenant, "--agent", "bench"]
        return self.manage(*args, *(["--region", region] if region else [])).splitlines()[-1]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        self.log.unlink(missing_ok=True)


def post(client: httpx.Client, stack: Stack, key: str, path: str, body: dict[str, Any],
         **params: str) -> httpx.Response:  # fmt: skip
    return client.post(f"{stack.base}/api/v1/{path}", json=body, params=params,
                       headers={"Authorization": f"Bearer {key}"})  # fmt: skip


def learn_round(stack: Stack, texts: list[tuple[str, str]]) -> float:
    """Learns/s for ``texts`` [(key, content)], first request to last applied."""
    ids: list[tuple[str, str]] = []
    lock = threading.Lock()
    started = time.perf_counter()

    def send(chunk: list[tuple[str, str]]) -> None:
        with httpx.Client(timeout=120) as client:
            for key, content in chunk:
                answer = post(client, stack, key, "learn", {"content": content, "kind": "fact"})
                answer.raise_for_status()
                with lock:
                    ids.append((key, answer.json()["id"]))

    threads = [threading.Thread(target=send, args=(texts[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with httpx.Client(timeout=120) as client:
        for key, request_id in ids:
            got = {"status": "pending"}
            while got["status"] == "pending":
                got = client.get(f"{stack.base}/api/v1/learn/{request_id}", params={"wait": "30"},
                                 headers={"Authorization": f"Bearer {key}"}).json()  # fmt: skip
            if got["status"] != "applied":
                raise SystemExit(f"{stack.name}: a learn ended {got['status']}: {got}")
    return len(texts) / (time.perf_counter() - started)
