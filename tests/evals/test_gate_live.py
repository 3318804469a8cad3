"""The live evaluation tier runs the configured LLM judge (a fake one on
loopback here, speaking the provider's wire format) and records the run.
A file of its own, so that it runs beside the offline tier
(tests/evals/test_gate.py) rather than after it: with the sets' vectors
stored (evals/vectors.py), it embeds little of its own."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals import judge_report, longmem
from evals.run import sampled
from memory.models import EvalRun

# golden cases the fake judge classifies: the live tier's wiring, not its figure
SAMPLE = 240

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_the_live_tier_runs_the_configured_llm_and_records_the_run(settings):
    from tests.fake_llm import fake_llm, verdict

    with pytest.raises(CommandError, match="TRIBUTARY_JUDGE"):
        call_command("evals", "--tier", "live")
    with fake_llm() as fake:
        fake.default = verdict("novel", None, 0.9)  # a model that calls everything novel
        settings.TRIBUTARY_JUDGE = "openai"
        settings.TRIBUTARY_JUDGE_BASE_URL = f"{fake.url}/v1"
        settings.TRIBUTARY_JUDGE_MODEL = "always-novel"
        settings.TRIBUTARY_JUDGE_STRONG_MODEL = None
        with pytest.raises(CommandError, match="only with --tier live"):
            call_command("evals", "--sample", "10")
        with pytest.raises(CommandError, match=r"classification\.strict_accuracy"):
            call_command("evals", "--tier", "live", "--sample", str(SAMPLE))
        # One call per sampled golden case the harness offers candidates for
        # (a case with none needs no call), in the set's order; then the long
        # histories' learns, judged by the same model.
        whole = judge_report.load_golden()
        golden = sampled(whole, SAMPLE)
        # spread over the set: every batch (each of one writer) is in it
        assert len(golden) == SAMPLE and {c.batch for c in golden} == {c.batch for c in whole}
        with_candidates = [c for c in golden if c.candidates]
        classifying = fake.requests[: len(with_candidates)]
        assert len(classifying) == len(with_candidates)
        for request, case in zip(classifying, with_candidates, strict=True):
            # the lesson inside the fence, JSON-escaped as the fence writes it
            # (a '"' in a lesson is written '\"' there)
            user = request["body"]["messages"][-1]["content"]
            assert json.dumps(case.content, ensure_ascii=False)[1:-1] in user
        learning = [json.dumps(r["body"]) for r in fake.requests[len(with_candidates) :]]
        assert learning
        # the sample's share of the long histories: one of the four, the first
        histories = longmem.load()["histories"]
        dates = {f["date"] for f in histories[0]["facts"]}
        assert all(any(f"{date}: " in body for date in dates) for body in learning)
        others = {f["date"] for h in histories[1:] for f in h["facts"]} - dates
        assert not any(f"{date}: " in body for date in others for body in learning)
        assert all("<untrusted-data nonce=" in str(r["body"]) for r in fake.requests)
    run = EvalRun.objects.get(tier="live")
    assert run.judge == "openai:always-novel" and not run.passed
    # a sample is a look at the judge: the sets no judge reads are left out
    assert set(run.metrics) == {"classification", "longmem"}
    # Only the novel cases are right, and a judge that never folds or
    # supersedes anything makes no destructive mistake.
    novel = sum(c.expected_relation == "novel" for c in golden)
    classification = run.metrics["classification"]
    assert classification["strict_accuracy"] == pytest.approx(novel / len(golden), abs=1e-4)
    assert classification["destructive_precision"] == 1.0
