"""The gardener's re-judge step: a lesson inserted as novel because the LLM
judge failed is judged again once the judge answers, and a contradiction
found then takes the normal path (supersede or dispute)."""

from __future__ import annotations

import pytest

from accounts.models import Role
from accounts.tenancy import tenant_context
from curation.gardener import garden
from curation.models import GardenerRun, JournalLine
from memory.judge import Relation, Verdict
from memory.models import Dispute, Lesson, LessonStatus, Outcome
from tests.conftest import learn_now, make_caller
from tests.fake_llm import RATE_LIMITED, SERVER_ERROR, FakeLLM, slow, verdict

pytestmark = pytest.mark.django_db(transaction=True)

EXPORT_2 = "The nightly export job runs at 02:00 UTC."
EXPORT_3 = "The nightly export job runs at 03:00 UTC."
FAILING = [RATE_LIMITED, SERVER_ERROR, slow(2.0)]


def _fell_back(caller, content: str, fake: FakeLLM):
    fake.script = list(FAILING)
    request = learn_now(caller, content)
    assert request.outcome == Outcome.INSERTED and request.judge_fallback
    return request


def _lesson(caller, lesson_id) -> Lesson:
    with tenant_context(caller.agent.tenant_id):
        return Lesson.objects.get(id=lesson_id)


def test_a_contradiction_found_on_rejudging_supersedes_the_same_authors_lesson(openai_fake):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    new = _fell_back(alice, EXPORT_3, openai_fake)
    assert _lesson(alice, old.lesson_id).status == LessonStatus.ACTIVE  # both active meanwhile
    openai_fake.script = [verdict("contradicts", "c1", 0.95)]
    [result] = garden(steps=["rejudge"], tenant_slug="acme")
    assert result.counts["superseded"] == 1 and result.counts["judged"] == 1
    superseded = _lesson(alice, old.lesson_id)
    assert superseded.status == LessonStatus.SUPERSEDED
    assert superseded.superseded_by_id == new.lesson_id and superseded.deactivated_at is not None
    rejudged = _lesson(alice, new.lesson_id)
    assert rejudged.status == LessonStatus.ACTIVE and not rejudged.needs_rejudge
    # the judge saw the other lesson, never the lesson itself
    sent = str(openai_fake.requests[-1]["body"])
    assert EXPORT_2 in sent and sent.count(EXPORT_3) == 1


def test_a_contradiction_of_another_agents_lesson_opens_a_dispute(openai_fake):
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    old = learn_now(alice, EXPORT_2)
    new = _fell_back(bob, EXPORT_3, openai_fake)
    openai_fake.script = [verdict("contradicts", "c1", 0.95)]
    garden(steps=["rejudge"], tenant_slug="acme")
    assert _lesson(alice, old.lesson_id).status == LessonStatus.ACTIVE
    assert _lesson(alice, new.lesson_id).status == LessonStatus.DISPUTED
    with tenant_context(alice.agent.tenant_id):
        dispute = Dispute.objects.get()
        assert (dispute.lesson_id, dispute.target_id) == (new.lesson_id, old.lesson_id)
        assert dispute.opened_by_id == bob.agent.id


def test_a_curators_lesson_supersedes_another_agents_on_rejudging(openai_fake):
    alice = make_caller("acme", "alice")
    carol = make_caller("acme", "carol", Role.CURATOR)
    old = learn_now(alice, EXPORT_2)
    new = _fell_back(carol, EXPORT_3, openai_fake)
    openai_fake.script = [verdict("contradicts", "c1", 0.95)]
    garden(steps=["rejudge"], tenant_slug="acme")
    assert _lesson(alice, old.lesson_id).superseded_by_id == new.lesson_id


def test_a_duplicate_found_on_rejudging_is_merged_into_the_older_lesson(openai_fake):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    new = _fell_back(alice, "Nightly export job: runs at 2am UTC.", openai_fake)
    openai_fake.script = [verdict("duplicate", "c1", 0.95)]
    [result] = garden(steps=["rejudge"], tenant_slug="acme")
    assert result.counts["merged"] == 1
    merged = _lesson(alice, new.lesson_id)
    assert merged.status == LessonStatus.RETIRED and merged.merged_into_id == old.lesson_id
    with tenant_context(alice.agent.tenant_id):
        assert JournalLine.objects.filter(rule="merged").count() == 1


def test_a_novel_verdict_clears_the_mark_and_a_failing_judge_keeps_it(openai_fake):
    alice = make_caller("acme", "alice")
    learn_now(alice, EXPORT_2)
    new = _fell_back(alice, "Backups of the billing DB run at 01:00 UTC.", openai_fake)
    openai_fake.script = list(FAILING)  # still down: the mark stays, nothing changes
    [down] = garden(steps=["rejudge"], tenant_slug="acme")
    assert down.counts["judge_failed"] == 1 and down.counts["judged"] == 0
    assert _lesson(alice, new.lesson_id).needs_rejudge
    openai_fake.script = [verdict("novel", None, 0.9)]
    [up] = garden(steps=["rejudge"], tenant_slug="acme")
    assert up.counts["novel"] == 1
    lesson = _lesson(alice, new.lesson_id)
    assert lesson.status == LessonStatus.ACTIVE and not lesson.needs_rejudge
    [again] = garden(steps=["rejudge"], tenant_slug="acme")  # nothing left to judge
    assert again.counts["judged"] == 0 and again.counts["judge_failed"] == 0
    with tenant_context(alice.agent.tenant_id):
        assert GardenerRun.objects.filter(task="rejudge", error="").count() == 3


def test_a_lesson_changed_since_the_judge_saw_it_is_left_for_the_next_run(openai_fake, monkeypatch):
    alice = make_caller("acme", "alice")
    old = learn_now(alice, EXPORT_2)
    new = _fell_back(alice, EXPORT_3, openai_fake)

    class RetiresMeanwhile:
        """A judge during whose answer a curator retires the target."""

        name = "slow-judge"

        def classify(self, *, content, situation, candidates):
            with tenant_context(alice.agent.tenant_id):
                Lesson.objects.filter(id=old.lesson_id).update(status=LessonStatus.RETIRED)
            return Verdict(Relation.CONTRADICTS, candidates[0].id, 0.95, "newer", self.name)

    monkeypatch.setattr("curation.rejudge.judge_for", lambda config: RetiresMeanwhile())
    [result] = garden(steps=["rejudge"], tenant_slug="acme")
    assert result.counts["changed_meanwhile"] == 1
    assert _lesson(alice, new.lesson_id).needs_rejudge
    assert _lesson(alice, old.lesson_id).superseded_by_id is None
