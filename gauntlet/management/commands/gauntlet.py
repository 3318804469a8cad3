"""``python manage.py gauntlet [--generations N] [--url URL] [--chart PATH]``

The Gauntlet: agents, each a separate process with only the Python client,
do an ops task full of traps. agent-a starts with empty memory; agent-b, a
fresh process, has what agent-a taught; then the poison run and the
generational curve. Without ``--url`` it uses the service at
``http://127.0.0.1:8000`` (``make run``), or starts one (``manage.py up
--no-beat``) on a free port for the run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

DEFAULT_URL = "http://127.0.0.1:8000"


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


class Command(BaseCommand):
    help = "Run the Gauntlet demo: what shared memory saves agents, measured."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--generations", type=int, default=5, help="agents in a row (≥ 2)")
        parser.add_argument("--url", help="a running Tributary (default: make run's, or start one)")
        parser.add_argument(
            "--chart", default=str(settings.TRIBUTARY_DATA_DIR / "gauntlet-curve.png"),
            help="where to save the learning curve (PNG)",
        )  # fmt: skip
        parser.add_argument("--no-poison", action="store_true", help="skip the poison run")
        parser.add_argument("--region", help="the region its tenants live in (default: the first)")
        parser.add_argument(
            "--agents", choices=["auto", "scripted", "llm"], default="auto",
            help="auto: LLM agents when TRIBUTARY_JUDGE names a model provider, else scripted",
        )  # fmt: skip
        parser.add_argument(
            "--discipline", action="store_true",
            help="instead: the tool-discipline evaluation of the configured model (does it "
            "recall on operational tasks and leave memory alone on pure computation?)",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        from regions.routing import in_region, region_names

        # Its tenants are made in a region (the first, with several).
        with in_region(options["region"] or region_names()[0]):
            self._handle(options)

    def _handle(self, options: dict[str, Any]) -> None:
        from gauntlet.runner import gauntlet_run, llm_environment

        if options["discipline"]:
            self._discipline(options["url"])
            return
        if options["generations"] < 2:
            raise CommandError("--generations must be at least 2 (agent-a, then agent-b)")
        llm = None if options["agents"] == "scripted" else llm_environment()
        if options["agents"] == "llm" and llm is None:
            raise CommandError("--agents llm needs TRIBUTARY_JUDGE=openai|anthropic and a model")
        url, server = self._service(options["url"])
        try:
            report = gauntlet_run(
                url=url, generations=options["generations"], chart=Path(options["chart"]),
                poison=not options["no_poison"], llm=llm,
            )  # fmt: skip
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=60)
        self._print(report)

    def _discipline(self, url: str | None) -> None:
        from django.utils import timezone

        from accounts.models import Role
        from gauntlet.discipline import discipline_run
        from gauntlet.runner import keys_issue, llm_environment

        llm = llm_environment()
        if llm is None:
            raise CommandError("--discipline needs TRIBUTARY_JUDGE=openai|anthropic and a model")
        slug = f"discipline-{timezone.now():%Y%m%d%H%M%S}"
        key = keys_issue(slug, [("agent-d", Role.WRITER)])["agent-d"]
        url, server = self._service(url)
        try:
            report = discipline_run(url=url, key=key, llm=llm)
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=60)
        w = self.stdout.write
        w(f"\nTool discipline — {llm['GAUNTLET_LLM']} {llm['GAUNTLET_LLM_MODEL']}, tenant {slug}\n")
        w(f"{'kind':<12} {'recalls':>7} {'learns':>6} {'correct':>7}  task")
        for t in report.tasks:
            correct = "" if t.correct is None else ("yes" if t.correct else "no")
            w(f"{t.kind:<12} {t.recalls:>7} {t.learns:>6} {correct:>7}  {t.prompt}")
        s = report.summary()
        w(f"\noperational tasks with a recall: {s['operational_recall_rate']:.0%} (higher is "
          f"better); controls that used memory: {s['control_memory_use_rate']:.0%} (lower is "
          f"better); controls answered right: {s['controls_correct']:.0%}; "
          f"tokens: {s['tokens']}")  # fmt: skip

    def _service(self, url: str | None) -> tuple[str, subprocess.Popen[bytes] | None]:
        if url:
            if not _healthy(url.rstrip("/")):
                raise CommandError(f"no Tributary answers at {url}")
            return url.rstrip("/"), None
        if _healthy(DEFAULT_URL):
            return DEFAULT_URL, None
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.stdout.write(f"starting Tributary on port {port} for the run (web + worker)…")
        server = subprocess.Popen(
            [sys.executable, "manage.py", "up", "--no-beat", "--port", str(port)],
            cwd=settings.BASE_DIR, env=os.environ.copy(),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        local = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while not _healthy(local):
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise CommandError("could not start Tributary for the run")
            time.sleep(0.5)
        return local, server

    def _print(self, report: Any) -> None:
        w = self.stdout.write
        w(f"\nThe Gauntlet — tenant {report.tenant}\n")
        w(f"{'agent':<11} {'outcome':<9} {'steps':>5} {'tokens':>7} {'recalled':>8} {'learned':>7}")
        for r in report.results:
            w(f"{r['agent']:<11} {r['outcome']:<9} {r['steps']:>5} {r['tokens']:>7} "
              f"{r['recalled']:>8} {r['learned']:>7}")  # fmt: skip
        a, b = report.results[0], report.results[1]
        saved = 100 * (a["steps"] - b["steps"]) / a["steps"] if a["steps"] else 0
        w(f"\nagent-b (fresh process, shared memory) took {b['steps']} steps where agent-a "
          f"(empty memory) took {a['steps']}: {saved:.0f} % fewer.")  # fmt: skip
        w("(tokens: the model's reported usage for LLM agents; offline, an estimate: characters "
          "read and written / 4)")  # fmt: skip
        if report.poison:
            p = report.poison
            w(f"\nPoison run — tenant {p['tenant']}: a false lesson was planted "
              f"(X-Batch: false); agent-c, whose deploys kept failing, found the truth: "
              f"{p['outcome']}.")  # fmt: skip
            for i, lesson in enumerate(p["chain"], start=1):
                w(f"  {i}. [{lesson['status']}] {lesson['content']} — {lesson['author']}")
        w("\nSteps per generation: " + " → ".join(str(r["steps"]) for r in report.results))
        if report.chart is not None:
            w(f"learning curve saved to {report.chart} (and on the dashboard's Health page)")
