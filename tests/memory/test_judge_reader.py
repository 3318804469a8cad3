"""The judge's pair reader (memory/judge/reader.py) and how its reading
joins the rules' verdict (memory/judge/learned.with_reader)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from memory.judge import Candidate, Relation, Verdict, offline_judge, reader
from memory.judge.learned import READER_NAME, LearnedJudge, with_reader
from memory.judge.offline import scope_swapped


def _candidate(content: str, similarity: float, situation: str = "") -> Candidate:
    return Candidate(id=uuid.uuid4(), content=content, situation=situation, similarity=similarity)


A = _candidate("Staging deploys need two approvals.", 0.8)
B = _candidate("Production deploys need two approvals.", 0.6)
NEW = "Deploys to staging need two approvals."
NOVEL = Verdict(Relation.NOVEL, None, 0.9, "Novel: nothing read.", "offline-learned-v1")


def _p(novel: float, duplicate: float, contradicts: float) -> np.ndarray:
    return np.asarray([novel, duplicate, contradicts])


def test_where_the_rules_give_nothing_the_most_probable_reading_past_the_threshold_decides():
    found = {0: _p(0.2, 0.1, 0.7), 1: _p(0.05, 0.9, 0.05)}
    verdict = with_reader(NOVEL, [A, B], found, threshold=0.8, veto=0.9, content=NEW)
    assert (verdict.relation, verdict.target_id, verdict.judge) == (
        Relation.DUPLICATE, B.id, READER_NAME)  # fmt: skip
    assert verdict.confidence == 0.9 and "pair reader" in verdict.rationale
    # nothing reaches the threshold: the verdict stays as it was
    assert with_reader(NOVEL, [A, B], found, threshold=0.95, veto=0.9, content=NEW) is NOVEL
    # the reader read nothing (no candidate near enough): as it was
    assert with_reader(NOVEL, [A, B], {}, threshold=0.5, veto=0.9, content=NEW) is NOVEL


def test_a_destructive_verdict_stands_unless_the_reader_reads_its_target_as_neither():
    ruled = Verdict(Relation.CONTRADICTS, A.id, 0.8, "Contradicts lesson A: a number.", "x")
    # the reader prefers another candidate: the rules' verdict still stands
    found = {0: _p(0.5, 0.1, 0.4), 1: _p(0, 1, 0)}
    assert with_reader(ruled, [A, B], found, 0.8, 0.9, content=NEW) is ruled
    vetoed = with_reader(ruled, [A, B], {0: _p(0.95, 0.03, 0.02)}, 0.8, 0.9, content=NEW)
    assert (vetoed.relation, vetoed.target_id, vetoed.judge) == (Relation.NOVEL, None, READER_NAME)
    assert "against: Contradicts lesson A" in vetoed.rationale
    # a target the reader did not read is not withdrawn
    assert with_reader(ruled, [A, B], {1: _p(1, 0, 0)}, 0.8, 0.9, content=NEW) is ruled


def test_the_readers_own_verdict_is_given_only_for_pairs_written_in_english():
    german = _candidate("Wartung der Rettungsinseln nur alle drei Jahre durch die Werft.", 0.7)
    found = {0: _p(0.01, 0.98, 0.01)}
    new = "Die Rettungsinseln auf dem Einsatzboot werden jedes Jahr gewartet."
    # both sides in German, or one of them: no restatement read, the lesson is novel
    assert with_reader(NOVEL, [german], found, 0.8, 0.9, content=new) is NOVEL
    assert with_reader(NOVEL, [german], found, 0.8, 0.9, content=NEW) is NOVEL
    english = _candidate("The life rafts on the rescue boat are serviced every year.", 0.7)
    assert with_reader(NOVEL, [english], found, 0.8, 0.9, content=new) is NOVEL
    # an English candidate beside it is still read
    found = {0: _p(0.01, 0.98, 0.01), 1: _p(0.05, 0.9, 0.05)}
    verdict = with_reader(NOVEL, [german, B], found, 0.8, 0.9, content=NEW)
    assert (verdict.relation, verdict.target_id) == (Relation.DUPLICATE, B.id)
    # and the reader may still withdraw the rules' verdict on such a pair
    ruled = Verdict(Relation.DUPLICATE, german.id, 0.8, "Restates lesson G.", "x")
    vetoed = with_reader(ruled, [german], {0: _p(0.95, 0.03, 0.02)}, 0.8, 0.9, content=new)
    assert vetoed.relation is Relation.NOVEL


@pytest.fixture
def read(monkeypatch) -> list[str]:
    """The pairs the reader is given (each read as neither)."""
    given: list[str] = []

    def probabilities(texts):
        given.extend(texts)
        return [_p(1, 0, 0) for _ in texts]

    monkeypatch.setattr(reader.MODEL, "class_probabilities", probabilities)
    return given


def test_the_reader_reads_the_nearest_two_candidates_of_at_least_its_similarity(read):
    far = _candidate("Deploys on Fridays are frozen.", reader.READ_FROM - 0.01)
    near = _candidate("Deploys on weekends are frozen.", 0.9)
    found = reader.read("Deploys are frozen on Fridays.", "", [B, far, near, A])
    assert sorted(found or {}) == [2, 3]  # near (0.9) and A (0.8), by their index
    assert len(read) == 2 and read[0].startswith(
        "Deploys are frozen on Fridays. [SEP] Deploys on w"
    )
    # one under READ_FROM is not read, even when fewer than READ are near enough
    assert sorted(reader.read("x", "", [far, B]) or {}) == [1]


def test_given_a_destructive_verdict_only_its_target_is_read(read):
    near = _candidate("Deploys on weekends are frozen.", 0.9)
    found = reader.read("Deploys are frozen on Fridays.", "", [near, A], target=1)
    assert sorted(found or {}) == [1]
    assert len(read) == 1 and read[0].endswith(A.content)
    # a target the reader would not read (too far) is not read either
    far = _candidate("Deploys on Fridays are frozen.", reader.READ_FROM - 0.01)
    assert reader.read("Deploys are frozen on Fridays.", "", [near, far], target=1) == {}
    assert len(read) == 1


@pytest.fixture
def reader_on(settings):
    settings.TRIBUTARY_JUDGE_READER = True
    reader.MODEL.forget()


def test_each_pair_is_read_on_its_own(reader_on, monkeypatch):
    # the 8-bit graph scales its activations by the whole batch: a pair read
    # beside others would score differently from the same pair alone
    model = reader.MODEL
    alone = model.class_probabilities(
        [reader.pair("Staging deploys need three approvals.", "", A.content, "")]
    )
    assert alone is not None
    sizes: list[int] = []
    provider = model._loaded()
    real = provider.encode

    def counted(texts, *args, **kwargs):
        sizes.append(len(texts))
        return real(texts, *args, **kwargs)

    monkeypatch.setattr(provider, "encode", counted)
    candidates = [A, B, _candidate("Deploys are frozen on Fridays.", 0.5)]
    read = reader.probabilities("Staging deploys need three approvals.", "", candidates)
    # three pairs, and the one the reader finds related read the other way round
    assert max(alone[0][1:]) >= reader.AGAIN_FROM  # a restatement or a contradiction
    assert read is not None and sizes == [1, 1, 1, 1]
    assert all(abs(float(p.sum()) - 1.0) < 1e-9 and p.shape == (3,) for p in read)


def test_a_pair_read_as_related_is_the_mean_of_its_two_orders(reader_on):
    new = ("Staging deploys need three approvals.", "")
    forward, backward, unrelated = reader.MODEL.class_probabilities([
        reader.pair(*new, A.content, A.situation),
        reader.pair(A.content, A.situation, *new),
        reader.pair(*new, "Deploys are frozen on Fridays.", ""),
    ])  # fmt: skip
    assert max(forward[1:]) >= reader.AGAIN_FROM > max(unrelated[1:])
    assert not np.allclose(forward, backward)  # the orders do read differently
    both = reader.probabilities(*new, [A, _candidate("Deploys are frozen on Fridays.", 0.5)])
    assert both is not None
    assert np.allclose(both[0], (forward + backward) / 2)
    assert np.allclose(both[1], unrelated)  # read once: nothing to confirm


def test_a_reader_of_one_output_is_not_read_as_several_classes(reader_on):
    from memory.guard import reader as screen_reader

    with pytest.raises(ValueError, match="one output"):
        screen_reader.MODEL.class_probabilities(["Rotate the deploy key every 90 days."])


def test_off_the_judge_is_the_rules_with_their_layer(settings):
    settings.TRIBUTARY_JUDGE_READER = False
    reader.MODEL.forget()
    judge = offline_judge()
    assert isinstance(judge, LearnedJudge)
    assert reader.read("x", "", [A]) is None
    content = "Staging deploys need one approval."
    assert judge.classify(content=content, situation="", candidates=[A]) == (
        judge.without_reader(content, "", [A])
    )


def _judged(new: str, old: str) -> tuple[Verdict, Verdict]:
    """The served judge's verdict on ``new`` against ``old`` (with its real
    similarity), and the rules' with their layer alone."""
    from memory.embeddings import embed, lesson_text

    vectors = np.asarray(embed([lesson_text(new, ""), lesson_text(old, "")]))
    c = Candidate(
        id=uuid.uuid4(), content=old, situation="", similarity=float(vectors[0] @ vectors[1])
    )
    judge = offline_judge()
    assert isinstance(judge, LearnedJudge)
    return judge.classify(content=new, situation="", candidates=[c]), judge.without_reader(
        new, "", [c]
    )


def test_a_paraphrase_the_rules_insert_as_novel_is_read_as_a_duplicate(reader_on):
    # a plain paraphrase the rules keep as a new lesson (the issue's own
    # example, the X-Batch header, is read as a duplicate by the rules'
    # learned layer since its refit on 54 batches — hence the explicit check)
    served, rules = _judged(
        "When the build fails with ENOSPC, prune the Docker build cache.",
        "ENOSPC errors during builds are fixed by running docker builder prune.",
    )
    assert rules.relation is Relation.NOVEL
    assert (served.relation, served.judge) == (Relation.DUPLICATE, READER_NAME)


def test_the_same_rule_for_another_store_is_not_folded_into_it(reader_on):
    # written for this test: the rules read the same words as a restatement
    served, rules = _judged(
        "Refunds over 200 euros need a manager's sign-off at the Lisbon store.",
        "Refunds over 200 euros need a manager's sign-off at the Porto store.",
    )
    assert rules.relation is Relation.DUPLICATE
    assert (served.relation, served.judge) == (Relation.NOVEL, READER_NAME)


def test_lessons_about_things_told_apart_by_a_number_or_a_letter_are_not_read(reader_on):
    # the reader reads "billing service 1" and "billing service 0" as one
    # service with two retry limits; the rules read two services
    new = "The billing service 1 retries at most 3 times."
    apart = [
        _candidate("The billing service 0 retries at most 2 times.", 0.92),
        _candidate("The billing service 12 retries at most 2 times.", 0.91),
        _candidate("The orion-b cluster drains nodes at 02:00.", 0.9),
        _candidate("The billing service retries at most 2 times.", 0.9),
    ]
    # the next nearest are read in their place
    assert sorted(reader.read(new, "", apart) or {}) == [2, 3]
    cluster = "The billing service of cluster 3-17 listens on port 4821."
    other = _candidate("The billing service of cluster 5-102 listens on port 88.", 0.95)
    same = _candidate("The billing service of cluster 3-17 listens on port 88.", 0.95)
    assert sorted(reader.read(cluster, "", [other, same]) or {}) == [1]
    # a name with hyphenated numbers names a thing wherever the statement
    # reader puts the subject: "error E6892" read as the subject, "store"
    # read as the verb
    for hyphenated, other_cluster in [
        ("The deploy API of cluster 3-17 logs error E6892 when the disk is full.",
         "The deploy API of cluster 5-102 logs error E112 when the disk is full."),
        ("The metrics store of cluster 4-49 retries at most 7146 times.",
         "The metrics store of cluster 0-45 retries at most 6461 times."),
    ]:  # fmt: skip
        assert reader.read(hyphenated, "", [_candidate(other_cluster, 0.95)]) == {}
        same_cluster = _candidate(hyphenated.replace("71", "72"), 0.95)
        assert sorted(reader.read(hyphenated, "", [same_cluster]) or {}) == [0]
    served, rules = _judged(new, apart[0].content)
    assert served.relation is rules.relation is Relation.NOVEL


def test_lessons_about_identifiers_told_apart_by_a_word_are_not_read(reader_on):
    # the reader read "orders_clean" and "orders_raw", or two domains, as one
    # table or one record (blind-43, blind-45); a region is a value
    # a lesson states, so two regions are still read
    for new, other in [
        ("Rows in orders_clean are kept for 400 days.", "Rows in orders_raw are kept for 30 days."),
        (
            "api.example.net keeps a 3600s TTL during migrations.",
            "Lower the api.example.com TTL to 60s ahead of migrations.",
        ),
        ("Topic events_enriched keeps 7 days of data.", "Topic events_raw keeps 3 days of data."),
    ]:
        assert reader.read(new, "", [_candidate(other, 0.9)]) == {}
    region = "The EU customer database primary runs in eu-central-1."
    moved = _candidate("The primary for the EU customer database is in eu-west-1.", 0.9)
    assert sorted(reader.read(region, "", [moved]) or {}) == [0]
    # but a region that qualifies each subject names two things (blind-45,
    # blind-47: "the egress proxy in eu-central-1" and "… in eu-west-1")
    proxy = "The shared egress proxy in eu-central-1 only lets ports 80 and 443 out."
    west = _candidate("The egress proxy in eu-west-1 allows ports 80, 443 and 22.", 0.9)
    central = _candidate("The egress proxy in eu-central-1 allows ports 80, 443 and 22.", 0.9)
    assert sorted(reader.read(proxy, "", [west, central]) or {}) == [1]
    # and joined names told apart by a letter (payments-a / payments-b)
    sidecar = "For payments-b, mTLS between the sidecar and the app is optional."
    a = _candidate("payments-a accepts plain HTTP between the sidecar and the app.", 0.9)
    b = _candidate("The payments-b app rejects sidecar connections without mTLS.", 0.85)
    assert sorted(reader.read(sidecar, "", [a, b]) or {}) == [1]
    # and lessons each opening on a place of the same kind by another name
    # (blind-48: "At the Shanghai warehouse, …" / "Shenzhen warehouse: …")
    trucks = "At the Shanghai warehouse, reefer trucks must be pre-cooled to below 4 °C."
    shenzhen = _candidate("Shenzhen warehouse: reefer trucks are pre-cooled to below 4 °C.", 0.9)
    shanghai = _candidate("Shanghai warehouse: reefer trucks are pre-cooled to 2 °C.", 0.9)
    assert sorted(reader.read(trucks, "", [shenzhen, shanghai]) or {}) == [1]


def test_a_requirement_written_as_blocked_until_is_never_read_as_its_contradiction(
    reader_on,
):
    from memory.judge.offline import condition_restated

    new = "Forklifts must not be used in a shift until its safety checklist is signed."
    stated = _candidate("A signed safety checklist is required before any forklift is used.", 0.9)
    reversed_ = _candidate("A safety checklist is optional before forklifts are used.", 0.9)
    assert condition_restated(new, stated.content)
    assert not condition_restated(new, reversed_.content)  # a reversal stays readable
    found = reader.read(new, "", [stated])
    assert found is not None and float(found[0][2]) == 0.0
    assert abs(float(found[0].sum()) - 1.0) < 1e-9


def test_an_instruction_against_its_prohibition_is_never_read_as_a_restatement(reader_on):
    # blind-62: the reader read these two as one rule at 0.96
    new = "Let waterlogged wood air-dry on site before bagging it, so it doesn't go mouldy."
    kept_wet = _candidate(
        "Keep waterlogged wood wet: bag it in site water straight away and never let it dry out.",
        0.8,
    )  # fmt: skip
    found = reader.read(new, "", [kept_wet])
    assert found is not None and float(found[0][1]) == 0.0
    assert abs(float(found[0].sum()) - 1.0) < 1e-9
    # the same rule told with a prohibition stays a restatement to read
    from memory.judge.offline import told_and_forbidden

    assert not told_and_forbidden(
        "Never force-push to main: branch protection rejects it.",
        "Force-pushing to main is blocked by branch protection, so don't do it.",
    )
    assert not told_and_forbidden(
        "Returns without a receipt get store credit only, never cash.",
        "For returns with no receipt the refund is store credit; cash refunds are not allowed.",
    )


def test_a_lesson_scoped_to_a_swapped_name_is_not_read_for_an_addition(read):
    # "Crew rostering for the Porto base" against "… the Lisbon base": the
    # writer scoped each lesson to one base; the reader reads one rest rule
    new = "Cabin crew must get at least a 10-hour rest between duty days."
    porto = _candidate(
        "Cabin crew get a minimum 11-hour rest between duty days.", 0.9,
        "Crew rostering for the Porto base",
    )  # fmt: skip
    told_otherwise = _candidate(
        "Flight attendants need ten hours off between duties.", 0.85,
        "Rest rules for Lisbon cabin staff",
    )  # fmt: skip
    situation = "Crew rostering for the Lisbon base"
    assert sorted(reader.read(new, situation, [porto, told_otherwise]) or {}) == [1]
    # a verdict of the rules on it can still be withdrawn
    assert sorted(reader.read(new, situation, [porto, told_otherwise], target=0) or {}) == [0]
    # activities told in other words are no swapped scope
    assert scope_swapped("triaging property claims", "assigning property claims") is None
    plus, basic = "Claims handling for HomeShield Plus", "Claims handling for HomeShield Basic"
    assert scope_swapped(plus, basic) == "Plus vs Basic"


def test_with_nothing_to_compare_the_rules_alone_say_novel():
    judge = offline_judge()
    assert isinstance(judge, LearnedJudge)
    alone = judge.without_reader("Staging deploys need one approval.", "", [])
    assert (alone.relation, alone.target_id) == (Relation.NOVEL, None)
    assert (
        judge.classify(content="Staging deploys need one approval.", situation="", candidates=[])
        == alone
    )
