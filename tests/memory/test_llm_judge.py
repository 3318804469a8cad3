"""The LLM judges against a real loopback server speaking the OpenAI and
Anthropic wire formats: verdicts, the untrusted-data fence, retries on
malformed answers, 429s and timeouts, the safe fallback, tiering, the call
log and /stats."""

from __future__ import annotations

import json

import httpx
import pytest

from accounts.tenancy import cross_tenant, tenant_context
from memory.models import LearnRequest, Lesson, LessonStatus, ModelCall, Outcome
from tests.conftest import Caller, learn_now, make_caller
from tests.fake_llm import (
    MALFORMED,
    RATE_LIMITED,
    SERVER_ERROR,
    FakeLLM,
    slow,
    verdict,
)

pytestmark = pytest.mark.django_db(transaction=True)

EXPORT_2 = "The nightly export job runs at 02:00 UTC."
EXPORT_3 = "The nightly export job runs at 03:00 UTC."


@pytest.fixture
def anthropic_fake(settings, openai_fake: FakeLLM) -> FakeLLM:
    settings.TRIBUTARY_JUDGE = "anthropic"
    settings.TRIBUTARY_JUDGE_BASE_URL = openai_fake.url
    settings.TRIBUTARY_JUDGE_MODEL = "claude-cheap"
    return openai_fake


def _calls(caller: Caller) -> list[tuple[str, str, str]]:
    with tenant_context(caller.agent.tenant_id):
        return list(ModelCall.objects.order_by("id").values_list("model", "purpose", "outcome"))


def test_an_openai_compatible_judge_supersedes_through_a_fenced_prompt(openai_fake):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)  # no candidates: no call at all
    assert openai_fake.requests == []
    openai_fake.script = [verdict("contradicts", "c1", 0.97)]
    new = learn_now(alice, EXPORT_3, situation="read from the crontab on the scheduler host")
    assert new.outcome == Outcome.SUPERSEDED and new.target_lesson_id == old.lesson_id
    assert new.judge == "openai:cheap-model" and new.rationale == "fake says contradicts"
    [sent] = openai_fake.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer sk-test"
    body = sent["body"]
    assert body["model"] == "cheap-model" and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    system, user = body["messages"]
    assert system["role"] == "system" and "UNTRUSTED DATA" in system["content"]
    # Both lessons only inside one fence whose markers carry this call's nonce.
    text = user["content"]
    opening = text.split("\n", 1)[0]
    assert opening.startswith('<untrusted-data nonce="') and len(opening) == len(
        '<untrusted-data nonce="0123456789abcdef">'
    )
    nonce = opening.split('"')[1]
    assert text.count(nonce) == 2
    inside = text.split(opening, 1)[1].split(f'</untrusted-data nonce="{nonce}">')[0]
    fenced = json.loads(inside)
    assert fenced["new_lesson"]["content"] == EXPORT_3
    assert fenced["candidates"] == [{"key": "c1", "content": EXPORT_2, "situation": ""}]
    assert EXPORT_3 not in system["content"]
    with tenant_context(alice.agent.tenant_id):
        call = ModelCall.objects.get()
        assert (call.provider, call.model, call.purpose, call.outcome) == (
            "openai", "cheap-model", "classify", "ok",
        )  # fmt: skip
        assert (call.input_tokens, call.output_tokens) == (210, 32)
        assert float(call.cost) == pytest.approx(0.00042) and call.latency_ms > 0
        assert call.learn_request_id == new.id


def test_a_malformed_answer_or_a_target_not_offered_is_retried(openai_fake):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    openai_fake.script = [MALFORMED, verdict("duplicate", "c7"), verdict("duplicate", "c1", 0.9)]
    again = learn_now(alice, "Nightly export job: runs at 2am UTC.")
    assert again.outcome == Outcome.REINFORCED and again.lesson_id == old.lesson_id
    assert [o for _, _, o in _calls(alice)] == ["malformed", "malformed", "ok"]


def test_429s_errors_and_timeouts_fall_back_to_novel_and_never_supersede(openai_fake):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    openai_fake.script = [RATE_LIMITED, SERVER_ERROR, slow(2.0)]
    new = learn_now(alice, EXPORT_3)
    assert new.outcome == Outcome.INSERTED and new.target_lesson_id is None
    assert new.judge == "fallback:openai:cheap-model" and new.judge_fallback
    assert [o for _, _, o in _calls(alice)] == ["rate_limited", "error", "timeout"]
    with tenant_context(alice.agent.tenant_id):
        assert Lesson.objects.get(id=old.lesson_id).status == LessonStatus.ACTIVE
        fallback = Lesson.objects.get(id=new.lesson_id)
        assert fallback.status == LessonStatus.ACTIVE and fallback.needs_rejudge
        assert LearnRequest.objects.filter(judge_fallback=True).count() == 1


def test_an_anthropic_judge_answers_through_a_forced_tool_call(anthropic_fake):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    anthropic_fake.script = [MALFORMED, verdict("duplicate", "c1", 0.92)]
    again = learn_now(alice, "Nightly export job: runs at 2am UTC.")
    assert again.outcome == Outcome.REINFORCED and again.lesson_id == old.lesson_id
    assert again.judge == "anthropic:claude-cheap"
    first, second = anthropic_fake.requests
    assert first["path"] == second["path"] == "/v1/messages"
    headers = first["headers"]  # (this SDK version sends the key as a bearer token)
    assert "sk-test" in (headers.get("x-api-key", ""), headers.get("authorization", "")[7:])
    assert "anthropic-version" in headers
    body = second["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert body["tools"][0]["input_schema"]["required"] == [
        "relation", "target", "confidence", "rationale",
    ]  # fmt: skip
    assert "UNTRUSTED DATA" in body["system"] and "<untrusted-data nonce=" in str(body["messages"])
    assert [o for _, _, o in _calls(alice)] == ["malformed", "ok"]
    with tenant_context(alice.agent.tenant_id):
        call = ModelCall.objects.order_by("id").last()
        assert call is not None and (call.input_tokens, call.output_tokens) == (190, 28)
        assert call.cost is None  # Anthropic reports tokens, not cost


def test_tiering_escalates_destructive_or_unsure_verdicts_only(openai_fake, settings, live_server):
    settings.TRIBUTARY_JUDGE_STRONG_MODEL = "strong-model"
    settings.TRIBUTARY_JUDGE_ESCALATE_BELOW = 0.8
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    # A confident duplicate: the cheap model decides alone.
    openai_fake.script = [verdict("duplicate", "c1", 0.95)]
    assert learn_now(alice, "Nightly export job: runs at 2am UTC.").outcome == Outcome.REINFORCED
    # A contradiction is destructive: the strong model has the last word.
    openai_fake.script = [verdict("contradicts", "c1", 0.99), verdict("novel", None, 0.9)]
    overruled = learn_now(alice, "The nightly export job runs at 03:00 UTC on Sundays.")
    assert overruled.outcome == Outcome.INSERTED
    # Unsure: escalated too, and the strong model's contradiction stands.
    openai_fake.script = [verdict("duplicate", "c1", 0.5), verdict("contradicts", "c1", 0.93)]
    revised = learn_now(alice, EXPORT_3)
    assert revised.outcome == Outcome.SUPERSEDED and revised.target_lesson_id == old.lesson_id
    assert revised.judge == "openai:strong-model"
    assert [(m, p) for m, p, _ in _calls(alice)] == [
        ("cheap-model", "classify"), ("cheap-model", "classify"), ("strong-model", "escalate"),
        ("cheap-model", "classify"), ("strong-model", "escalate"),
    ]  # fmt: skip
    stats = httpx.get(f"{live_server.url}/api/v1/stats", headers=alice.headers, timeout=30)
    assert stats.status_code == 200
    judge = stats.json()["judge"]
    assert (judge["judged_requests"], judge["escalated_requests"]) == (3, 2)
    assert judge["escalation_rate"] == pytest.approx(0.6667, abs=1e-4)
    by_model = {m["model"]: m for m in judge["models"]}
    assert by_model["cheap-model"]["calls"] == 3 and by_model["strong-model"]["escalations"] == 2
    assert judge["spend"] == pytest.approx(5 * 0.00042)
    assert by_model["strong-model"]["latency_p95_ms"] >= by_model["strong-model"]["latency_p50_ms"]
    body = stats.json()
    assert body["lessons"]["active"]["lesson"] == 2 and body["learn"]["judge_fallbacks"] == 0


def test_a_tenant_can_turn_tiering_off(openai_fake, settings):
    settings.TRIBUTARY_JUDGE_STRONG_MODEL = "strong-model"
    alice = make_caller("acme", "alice")
    with cross_tenant(reason="test"):
        tenant = alice.agent.tenant
        tenant.judge_config = {"tiering": False}
        tenant.save(update_fields=["judge_config"])
    learn_now(alice, EXPORT_2)
    openai_fake.script = [verdict("contradicts", "c1", 0.99)]
    assert learn_now(alice, EXPORT_3).outcome == Outcome.SUPERSEDED
    assert _calls(alice) == [("cheap-model", "classify", "ok")]


def test_a_tenant_judge_config_is_read_defensively(settings):
    from memory.judge import judge_for
    from memory.judge.llm import OpenAIJudge, TieredJudge

    settings.TRIBUTARY_JUDGE = "openai"
    settings.TRIBUTARY_JUDGE_MODEL = "cheap-model"
    settings.TRIBUTARY_JUDGE_STRONG_MODEL = "strong-model"
    settings.TRIBUTARY_JUDGE_ESCALATE_BELOW = 0.75
    for bad in ("high", 3, None, [0.5]):
        judge = judge_for({"escalate_below": bad})
        assert isinstance(judge, TieredJudge) and judge.escalate_below == 0.75
    tuned = judge_for({"escalate_below": 0.9, "model": "tenant-model"})
    assert isinstance(tuned, TieredJudge) and tuned.escalate_below == 0.9
    assert tuned.cheap.model == "tenant-model" and tuned.strong.model == "strong-model"
    plain = judge_for({"tiering": False})
    assert isinstance(plain, OpenAIJudge) and plain.model == "cheap-model"


def test_an_error_that_retrying_cannot_fix_is_not_retried(openai_fake):
    alice = make_caller("acme", "alice")
    learn_now(alice, EXPORT_2)
    openai_fake.script = [{"status": 401}]  # a bad key: one call, then the safe fallback
    new = learn_now(alice, EXPORT_3)
    assert new.outcome == Outcome.INSERTED and new.judge_fallback
    assert [o for _, _, o in _calls(alice)] == ["error"]
