"""How long `manage.py up` takes to serve and to stop, cold and warm.

    .venv/bin/python bench/stack_startup.py [--runs 3]

Cold: a new data dir (initdb, role, database, extension, migrations).
Warm: the same data dir again. Prints one line per run and the medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one_run(data_dir: Path) -> tuple[float, float]:
    port = free_port()
    env = {**os.environ, "TRIBUTARY_DATA_DIR": str(data_dir)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "up", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"up exited with {proc.returncode}")
        time.sleep(0.05)
    ready = time.perf_counter() - started
    stopping = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    return ready, time.perf_counter() - stopping


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cold, warm, stops = [], [], []
    for _ in range(args.runs):
        data_dir = Path(tempfile.mkdtemp(prefix="trib-bench-"))
        try:
            ready, stop = one_run(data_dir)
            cold.append(ready)
            stops.append(stop)
            print(f"cold: ready in {ready:.2f} s, stopped in {stop:.2f} s")
            ready, stop = one_run(data_dir)
            warm.append(ready)
            stops.append(stop)
            print(f"warm: ready in {ready:.2f} s, stopped in {stop:.2f} s")
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
    print(
        f"median: cold start {statistics.median(cold):.2f} s, warm start "
        f"{statistics.median(warm):.2f} s, stop {statistics.median(stops):.2f} s"
    )


if __name__ == "__main__":
    main()
