"""Running the Gauntlet: keys for a fresh tenant, each agent as its own
process (the client is all it has), results kept for the dashboard, the
poison run, and the learning curve. ``manage.py gauntlet`` calls
:func:`gauntlet_run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.models import Role
from accounts.services import agent_ensure, api_key_issue, tenant_ensure
from accounts.tenancy import cross_tenant, tenant_context
from gauntlet.models import GauntletResult
from gauntlet.png import line_chart_png
from memory.judge.calls import ModelCallRecord, model_calls_save


@dataclass
class GauntletReport:
    tenant: str
    results: list[dict[str, Any]] = field(default_factory=list)
    poison: dict[str, Any] = field(default_factory=dict)
    chart: Path | None = None


def keys_issue(slug: str, agents: list[tuple[str, Role]]) -> dict[str, str]:
    """A fresh tenant ``slug`` with these agents, one new key each."""
    with cross_tenant(reason=f"gauntlet: keys for {slug}"):
        tenant = tenant_ensure(slug=slug)
        return {
            name: api_key_issue(agent=agent_ensure(tenant=tenant, name=name, role=role)).plaintext
            for name, role in agents
        }


def llm_environment() -> dict[str, str] | None:
    """The model the judge is configured with, for LLM agents (None when
    the judge is offline)."""
    if settings.TRIBUTARY_JUDGE not in ("openai", "anthropic"):
        return None
    return {
        "GAUNTLET_LLM": str(settings.TRIBUTARY_JUDGE),
        "GAUNTLET_LLM_MODEL": str(
            settings.TRIBUTARY_JUDGE_STRONG_MODEL or settings.TRIBUTARY_JUDGE_MODEL
        ),
        "GAUNTLET_LLM_BASE_URL": settings.TRIBUTARY_JUDGE_BASE_URL or "",
        "GAUNTLET_LLM_API_KEY": settings.TRIBUTARY_JUDGE_API_KEY or "",
    }


def run_agent(
    url: str, key: str, *args: str, llm: dict[str, str] | None = None, timeout: float = 300
) -> dict[str, Any]:
    """One agent, in its own process, with nothing but the client (and,
    for an LLM agent, the model's SDK)."""
    env = {**os.environ, "TRIBUTARY_URL": url, "TRIBUTARY_API_KEY": key, **(llm or {})}
    if llm:
        args = (*args, "--llm")
    done = subprocess.run(
        [sys.executable, "-m", "gauntlet.agent", *args], env=env, cwd=settings.BASE_DIR,
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"agent {args} printed no result; stderr:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])  # type: ignore[no-any-return]


def gauntlet_run(
    *,
    url: str,
    generations: int,
    chart: Path | None,
    poison: bool = True,
    llm: dict[str, str] | None = None,
) -> GauntletReport:
    stamp = timezone.now().strftime("%Y%m%d%H%M%S")
    slug = f"gauntlet-{stamp}"
    names = ["agent-a", "agent-b", *[f"agent-g{g}" for g in range(3, generations + 1)]]
    keys = keys_issue(slug, [(name, Role.WRITER) for name in names])
    report = GauntletReport(tenant=slug)
    for generation, name in enumerate(names, start=1):
        report.results.append(
            run_agent(url, keys[name], "--name", name, "--generation", str(generation), llm=llm)
        )
    with cross_tenant(reason="gauntlet: tenant id"):
        from accounts.models import Tenant

        tenant_id = Tenant.objects.get(slug=slug).id
    run = uuid.uuid4()
    agent_calls_save(tenant_id, report.results)
    with tenant_context(tenant_id):
        GauntletResult.objects.bulk_create([
            GauntletResult(
                tenant_id=tenant_id, run=run, generation=r["generation"], agent=r["agent"],
                outcome=r["outcome"], steps=r["steps"], tokens=r["tokens"],
                recalled=r["recalled"], learned=r["learned"],
            )
            for r in report.results
        ])  # fmt: skip
    if poison:
        report.poison = _poison_run(url, f"{slug}-poison", llm)
    if chart is not None:
        report.chart = line_chart_png(
            [float(r["steps"]) for r in report.results], chart,
            tokens=[float(r["tokens"]) for r in report.results],
        )  # fmt: skip
    return report


def agent_calls_save(tenant_id: uuid.UUID, results: list[dict[str, Any]]) -> int:
    """The LLM agents' model calls, logged as the judge's are (``ModelCall``,
    purpose ``agent``: /stats and the admin summarise them)."""
    calls = [(None, ModelCallRecord(**c)) for r in results for c in r.get("calls", [])]
    with tenant_context(tenant_id):
        model_calls_save(tenant_id=tenant_id, calls=calls, created_at=timezone.now())
    return len(calls)


def _poison_run(url: str, slug: str, llm: dict[str, str] | None) -> dict[str, Any]:
    """A false lesson is planted; an agent whose reality contradicts it
    (a curator: only a curator's contradiction supersedes another agent's
    lesson, a writer's opens a dispute) finds the truth and supersedes it
    in one transaction; the chain stays readable."""
    from tributary_client import Tributary

    keys = keys_issue(slug, [("mallory", Role.WRITER), ("agent-c", Role.CURATOR)])
    planted = run_agent(url, keys["mallory"], "--name", "mallory", "--poison")
    agent_c = run_agent(url, keys["agent-c"], "--name", "agent-c", "--generation", "2", llm=llm)
    truth = next((entry for entry in agent_c["lessons"] if entry["remedy"] == "batch_header"), None)
    chain: list[dict[str, Any]] = []
    if truth and truth["lesson"]:
        with Tributary(base_url=url, api_key=keys["agent-c"]) as client:
            chain = [
                {"content": lesson.content, "status": lesson.status, "author": lesson.author}
                for lesson in client.history(truth["lesson"])
            ]
    return {"tenant": slug, "planted": planted.get("poison"), "agent": agent_c,
            "outcome": truth["outcome"] if truth else None, "chain": chain}  # fmt: skip
