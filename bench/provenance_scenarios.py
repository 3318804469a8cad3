"""Provenance scenarios: Tributary's REST API against a naive shared
scratchpad that counts agreeing agents (issue 5, point 7).

    .venv/bin/python bench/provenance_scenarios.py [--per-family 12] [--seed 5] [--keep]

In a private temporary stack, a real HTTP server (wsgiref, threaded, on a
free port of 127.0.0.1) serves ``config.wsgi.application``; every scenario
step is an HTTP request made with ``httpx`` (learns are processed in-process
by the worker's own service, as the test suite does). Each scenario instance
gets a tenant of its own, so the judge never merges lessons across
instances. The same steps — the same agents, texts, confidences and
parents — are replayed against the **scratchpad**: a list of entries in
which a lesson counts as corroborated when at least
``min_independent_sources`` distinct agents hold a supporting belief and the
mean confidence of those beliefs is at least ``min_confidence`` (the same
thresholds as the corroboration policy). The scratchpad keeps no ancestry
and no source families, ignores contradictions, and repairs nothing when a
source is invalidated.

Families (``--per-family`` instances each, drawn from a seeded random:
chain lengths, numbers of sources, confidences between the policy's
``min_confidence`` and 0.95, contradiction confidences between the policy's
``contradiction_confidence`` and 0.95). The truth is fixed by construction:

1. **echo** — one observation → belief A (the learn) → B → C …, 2–5 agents
   each deriving from the previous belief, all supporting the lesson. Truth:
   not corroborated (one root).
2. **independent** — 2–4 observations of distinct sources, each with its
   own agent's belief supporting the lesson. Truth: corroborated.
3. **copied** — 2–4 observations sharing one ``source_family`` (mirrors of
   one original), each with its own agent's belief. Truth: not corroborated.
4. **retracted** — two independent roots (the learn's belief on the first
   observation, a second agent's on the second), 1–2 chains of 1–3 beliefs
   downstream of the first belief (the last of each chain supports the
   lesson), in about half the instances a control belief resting on both roots;
   1–2 agents decide on the lesson if the system calls it corroborated;
   then a curator invalidates the first observation. Truth afterwards: not
   corroborated; the first belief and its downstream chains must be
   retracted (the control belief must not be), every decision on the lesson
   flagged ``needs_review``.
5. **contradicted** — two independent supporting roots, plus a belief from
   a third independent observation that ``contradicts`` the lesson with a
   confidence at least the policy's contradiction threshold. Truth: not
   corroborated (contested).

Metrics, for each system:

* **false-corroboration rate** — among instances whose truth is "not
  corroborated", the fraction the system reports corroborated in the final
  state (after any invalidation).
* **wrong-action rate** — an agent acts on the lesson (records a decision)
  iff the system reports it corroborated when the agent decides; every
  instance ends with such a decision. In family 4 agents also decide
  before the invalidation; a decision the system flags afterwards is
  re-decided on the system's current answer, one it does not flag stands.
  An instance is a wrong action if any standing action (acted or not)
  disagrees with the final truth. Fraction over all instances.
* **promotion precision** — among instances the system reports
  corroborated (final state), the fraction truly corroborated (n/a when it
  reports none).
* **repair completeness** — in family 4, the fraction of the affected
  downstream items (beliefs whose only root was the invalidated
  observation, decisions resting on the lesson) that the system repaired
  (belief ``retracted``, decision ``needs_review``), read back through the
  API (``/lessons/<id>/lineage``, ``/decisions?status=needs_review``).

Also printed: rows written (Tributary: every row of the scenario tenants in
the memory, provenance and curation tables; scratchpad: its entries — one
per observation, belief, claim, decision and invalidation note), and per
family the corroboration statuses Tributary reported.
"""

from __future__ import annotations

import argparse
import random
import socketserver
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import httpx
from _stack import machine, run_in_stack
from provenance_systems import Scratchpad, System, Tributary

FAMILIES = ("echo", "independent", "copied", "retracted", "contradicted")
TRUTH = {
    "echo": False,
    "independent": True,
    "copied": False,
    "retracted": False,
    "contradicted": False,
}
SERVICES = ("payments", "billing", "search", "inventory", "shipping", "auth", "ledger",
            "catalog", "notifications", "reporting", "pricing", "exports")  # fmt: skip
OPERATIONS = ("refunds", "bulk edits", "password resets", "re-indexes", "webhook retries",
              "chargebacks", "partial captures", "address changes", "coupon redemptions",
              "archive restores")  # fmt: skip
SOURCES = ("tool output", "production log", "support ticket", "incident note", "trace")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-family", type=int, default=12)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--keep", action="store_true")
    run_in_stack("trib-bench-scn-", parser.parse_args(), run)


# --- the scenarios -----------------------------------------------------------


@dataclass
class Outcome:
    """What one system did in one instance."""

    reported: bool = False  # corroborated, final state
    before: bool = False  # family 4: corroborated before the invalidation
    acted: list[bool] = field(default_factory=list)  # standing actions
    affected: int = 0  # family 4: items the invalidation should repair
    repaired: int = 0
    collateral: int = 0  # family 4: beliefs with a valid root left, yet retracted
    summary: dict[str, Any] = field(default_factory=dict)  # Tributary's lesson, final
    control: str = ""  # family 4: the status of the belief resting on both roots

    def wrong(self, truth: bool) -> bool:
        return any(acted != truth for acted in self.acted)


@dataclass
class Text:
    claim: str
    service: str
    operation: str
    n: int

    def evidence(self, k: int, rng: random.Random) -> str:
        source = rng.choice(SOURCES)
        return (f"{source} {rng.randint(1000, 99999)}: {self.operation} on {self.service} "
                f"{self.n + k + 1} days old: E_{self.service.upper()}_WINDOW.")  # fmt: skip

    def restated(self, agent: str) -> str:
        return f"{agent} agrees: {self.service} {self.operation} past {self.n} days fail."


def text_for(rng: random.Random) -> Text:
    service, operation = rng.choice(SERVICES), rng.choice(OPERATIONS)
    n = rng.choice((30, 45, 60, 90, 120, 180, 365))
    claim = f"The {service} API rejects {operation} older than {n} days."
    return Text(claim, service, operation, n)


@dataclass
class Plan:
    """Everything random about one instance, drawn once and replayed
    against both systems."""

    family: str
    text: Text
    evidence: list[str]
    confidences: list[float]
    sizes: list[int]  # echo: [agents]; retracted: lengths of downstream chains
    deciders: int = 1
    control: bool = False  # retracted: a belief resting on both roots
    contradiction: float = 0.0


def plan_for(family: str, rng: random.Random, policy: dict[str, Any]) -> Plan:
    def confidence() -> float:
        return round(rng.uniform(policy["min_confidence"] + 0.01, 0.95), 2)

    text = text_for(rng)
    if family == "echo":
        agents = rng.randint(2, 5)
        return Plan(family, text, [text.evidence(0, rng)],
                    [confidence() for _ in range(agents)], [agents])  # fmt: skip
    if family in ("independent", "copied"):
        k = rng.randint(2, 4)
        return Plan(family, text, [text.evidence(i, rng) for i in range(k)],
                    [confidence() for _ in range(k)], [k])  # fmt: skip
    if family == "retracted":
        chains = [rng.randint(1, 3) for _ in range(rng.randint(1, 2))]
        return Plan(family, text, [text.evidence(i, rng) for i in range(2)],
                    [confidence() for _ in range(3 + sum(chains))], chains,
                    deciders=rng.randint(1, 2), control=rng.random() < 0.5)  # fmt: skip
    against = round(rng.uniform(policy["contradiction_confidence"], 0.95), 2)
    return Plan(family, text, [text.evidence(i, rng) for i in range(3)],
                [confidence() for _ in range(2)], [2], contradiction=against)  # fmt: skip


def replay(system: System, plan: Plan, tag: str) -> Outcome:
    """Run one instance against one system; ``tag`` makes source families
    and URIs unique to the instance."""
    out = Outcome()
    text, conf = plan.text, iter(plan.confidences)

    def observation(i: int, family: str) -> str:
        return system.observe(f"agent{i}", plan.evidence[i], family,
                              f"https://{text.service}.internal/{tag}/{i}")  # fmt: skip

    def decide(agent: str, lesson: str) -> str | None:
        """Act (record a decision) iff the system calls the lesson corroborated."""
        if system.corroborated(lesson):
            action = f"Refused {text.operation} older than {text.n} days."
            return system.decide(agent, action, lesson)
        return None

    if plan.family == "echo":
        root = observation(0, "")
        lesson, belief = system.learn("agent0", text.claim, [("observation", root)], next(conf))
        for i in range(1, plan.sizes[0]):
            belief = system.believe(f"agent{i}", text.restated(f"agent{i - 1}"),
                                    [("belief", belief)], next(conf), supports=lesson)  # fmt: skip
    elif plan.family in ("independent", "copied"):
        copied = plan.family == "copied"
        roots = [observation(i, f"{tag}-advisory" if copied else f"{tag}-src-{i}")
                 for i in range(plan.sizes[0])]  # fmt: skip
        lesson, _ = system.learn("agent0", text.claim, [("observation", roots[0])], next(conf))
        for i in range(1, len(roots)):
            system.believe(f"agent{i}", text.restated("the evidence"),
                           [("observation", roots[i])], next(conf), supports=lesson)  # fmt: skip
    elif plan.family == "contradicted":
        roots = [observation(i, f"{tag}-src-{i}") for i in range(3)]
        lesson, _ = system.learn("agent0", text.claim, [("observation", roots[0])], next(conf))
        system.believe("agent1", text.restated("the evidence"), [("observation", roots[1])],
                       next(conf), supports=lesson)  # fmt: skip
        system.believe("agent2", f"No: {text.service} accepted {text.operation} past "
                       f"{text.n} days in this run.", [("observation", roots[2])],
                       plan.contradiction, contradicts=lesson)  # fmt: skip
    else:  # retracted
        roots = [observation(i, f"{tag}-src-{i}") for i in range(2)]
        lesson, first = system.learn("agent0", text.claim, [("observation", roots[0])], next(conf))
        second = system.believe("agent1", text.restated("the evidence"),
                                [("observation", roots[1])], next(conf),
                                supports=lesson)  # fmt: skip
        only_first = [first]
        for c, length in enumerate(plan.sizes):
            parent = first
            for j in range(length):
                parent = system.believe(
                    f"down{c}-{j}", text.restated(f"an upstream agent ({c}-{j})"),
                    [("belief", parent)], next(conf),
                    supports=lesson if j == length - 1 else None,
                )  # fmt: skip
                only_first.append(parent)
        control = None
        if plan.control:
            control = system.believe("both", text.restated("agent0 and agent1"),
                                     [("belief", first), ("belief", second)], next(conf),
                                     supports=lesson)  # fmt: skip
        out.before = system.corroborated(lesson)
        made = [decide(f"ops{d}", lesson) for d in range(plan.deciders)]
        system.invalidate(roots[0], "the log came from the sandbox, not production")
        flagged = system.flagged()
        statuses = system.belief_statuses(lesson)
        decisions = [d for d in made if d is not None]
        out.affected = len(only_first) + len(decisions)
        out.repaired = sum(statuses.get(b) == "retracted" for b in only_first)
        out.repaired += sum(d in flagged for d in decisions)
        out.collateral = sum(statuses.get(b) == "retracted" for b in (second, control) if b)
        out.control = statuses.get(control, "") if control else ""
        for d, decision in enumerate(made):
            # a flagged decision is re-decided on the current answer; the others stand
            if decision in flagged:
                decision = decide(f"ops{d}", lesson)
            out.acted.append(decision is not None)
    out.acted.append(decide("final", lesson) is not None)
    out.reported = system.corroborated(lesson)
    if isinstance(system, Tributary):
        got = system.lesson(lesson)
        out.summary = {k: got[k] for k in ("corroboration", "independent_sources",
                                           "agreeing_agents", "supporting_beliefs")}  # fmt: skip
    return out


# --- the run -----------------------------------------------------------------


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve() -> tuple[WSGIServer, str]:
    from config.wsgi import application

    server = make_server("127.0.0.1", 0, application,
                         server_class=_ThreadingServer, handler_class=_QuietHandler)  # fmt: skip
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/api/v1"


def rows_written(prefix: str) -> dict[str, int]:
    """Rows of the scenario tenants in every tenant table of memory,
    provenance and curation."""
    from django.apps import apps

    from accounts.tenancy import cross_tenant

    counts: dict[str, int] = {}
    with cross_tenant(reason="benchmark row count"):
        for label in ("memory", "provenance", "curation"):
            for model in apps.get_app_config(label).get_models():
                if any(f.name == "tenant" for f in model._meta.get_fields()):
                    n = model._default_manager.filter(tenant__slug__startswith=prefix).count()
                    if n:
                        counts[model._meta.label] = n
    return counts


def rate(hits: int, total: int) -> str:
    return f"{hits / total:.2f} ({hits}/{total})" if total else "n/a (0/0)"


def expected_roots(plan: Plan) -> int:
    """Independent evidence roots the lesson has in the final state."""
    return {"independent": plan.sizes[0], "contradicted": 2}.get(plan.family, 1)


def run(args: argparse.Namespace, data_dir: Path) -> None:
    import logging

    from django.conf import settings

    print(f"machine: {machine()}")
    policy = dict(settings.TRIBUTARY_CORROBORATION)
    print(f"policy: min_independent_sources {policy['min_independent_sources']}, "
          f"min_confidence {policy['min_confidence']}, "
          f"contradiction_confidence {policy['contradiction_confidence']}")  # fmt: skip
    rng = random.Random(args.seed)
    plans = [(family, n, plan_for(family, rng, policy))
             for family in FAMILIES for n in range(args.per_family)]  # fmt: skip
    server, base_url = serve()
    # after serve(): loading the WSGI application configures logging again
    logging.getLogger("accounts.tenancy").setLevel(logging.WARNING)  # a line per key issued
    results: list[tuple[str, dict[str, Outcome]]] = []
    roots_as_expected = 0
    pads: list[Scratchpad] = []
    started = time.perf_counter()
    try:
        with httpx.Client(base_url=base_url, timeout=60) as client:
            for family, n, plan in plans:
                tag = f"scn-{family[:5]}-{n}"
                pad = Scratchpad(policy)
                pads.append(pad)
                results.append((family, {
                    "Tributary": replay(Tributary(client, tag), plan, tag),
                    "scratchpad": replay(pad, plan, tag),
                }))  # fmt: skip
                got = results[-1][1]["Tributary"].summary["independent_sources"]
                roots_as_expected += got == expected_roots(plan)
    finally:
        server.shutdown()
        server.server_close()
    took = time.perf_counter() - started
    print(f"{len(results)} instances ({args.per_family} per family, seed {args.seed}) "
          f"over HTTP in {took:.1f} s\n")  # fmt: skip

    systems = ("Tributary", "scratchpad")
    metrics: dict[str, dict[str, str]] = {}
    for name in systems:
        outs = [(TRUTH[f], o[name]) for f, o in results]
        false_pos = sum(o.reported and not t for t, o in outs)
        negatives = sum(not t for t, _ in outs)
        promoted = sum(o.reported for _, o in outs)
        true_pos = sum(o.reported and t for t, o in outs)
        wrong = sum(o.wrong(t) for t, o in outs)
        fam4 = [o[name] for f, o in results if f == "retracted"]
        metrics[name] = {
            "false-corroboration rate": rate(false_pos, negatives),
            "wrong-action rate": rate(wrong, len(outs)),
            "promotion precision": rate(true_pos, promoted),
            "repair completeness": rate(
                sum(o.repaired for o in fam4), sum(o.affected for o in fam4)
            ),
            "collateral retractions (fam. 4)": str(sum(o.collateral for o in fam4)),
        }
    rows = rows_written("scn-")
    metrics["Tributary"]["rows written"] = str(sum(rows.values()))
    metrics["scratchpad"]["rows written"] = str(sum(len(p.entries) for p in pads))
    print(f"| metric | {' | '.join(systems)} |")
    print("|---|---|---|")
    for metric in metrics["Tributary"]:
        print(f"| {metric} | {' | '.join(metrics[s][metric] for s in systems)} |")
    ratio = sum(rows.values()) / max(1, sum(len(p.entries) for p in pads))
    print(
        f"\nrows: {ratio:.1f}x the scratchpad's entries; by table: "
        + ", ".join(f"{k} {v}" for k, v in sorted(rows.items(), key=lambda kv: -kv[1]))
    )

    print(
        "\n| family | n | truth | Tributary corroborated | scratchpad corroborated "
        "| Tributary wrong actions | scratchpad wrong actions | Tributary statuses |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for family in FAMILIES:
        both = [o for f, o in results if f == family]
        t = TRUTH[family]
        statuses = Counter(o["Tributary"].summary["corroboration"] for o in both)
        print(f"| {family} | {len(both)} | {'corroborated' if t else 'not corroborated'} | "
              f"{sum(o['Tributary'].reported for o in both)} | "
              f"{sum(o['scratchpad'].reported for o in both)} | "
              f"{sum(o['Tributary'].wrong(t) for o in both)} | "
              f"{sum(o['scratchpad'].wrong(t) for o in both)} | "
              f"{', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))} |")  # fmt: skip
    fam4 = [o["Tributary"] for f, o in results if f == "retracted"]
    pre = [(o["Tributary"].before, o["scratchpad"].before) for f, o in results if f == "retracted"]
    print(
        f"\nfamily 4 before the invalidation, corroborated: Tributary "
        f"{sum(t for t, _ in pre)}/{len(pre)}, scratchpad {sum(s for _, s in pre)}/{len(pre)}"
    )
    print(f"family 4 (Tributary): {sum(o.affected for o in fam4)} affected items, "
          f"{sum(o.repaired for o in fam4)} repaired, "
          f"{sum(o.collateral for o in fam4)} beliefs with a valid root left "
          f"retracted")  # fmt: skip
    controls = Counter(o.control for o in fam4 if o.control)
    print("family 4 (Tributary), beliefs resting on both roots: "
          + ", ".join(f"{k} {v}" for k, v in sorted(controls.items())))  # fmt: skip
    roots = Counter(
        (f, o["Tributary"].summary["independent_sources"]) for f, o in results
    )  # fmt: skip
    print("independent sources reported (family: roots × instances): "
          + "; ".join(f"{f}: " + ", ".join(f"{r}×{c}" for (g, r), c in sorted(roots.items())
                                           if g == f) for f in FAMILIES))  # fmt: skip
    print(f"independent sources as constructed: {roots_as_expected}/{len(results)} instances")


if __name__ == "__main__":
    main()
