"""The offline judge, behaviour by behaviour.

Similarities are given by hand here (the golden-set test uses the real
embedding model); most tests use a high similarity on purpose, to show that
the verdict comes from reading the lessons and not from the vectors.
"""

from __future__ import annotations

import uuid
from dataclasses import FrozenInstanceError

import pytest

from memory.judge import Candidate, Judge, OfflineJudge, Relation, Verdict, get_judge
from memory.judge.facts import DURATION, HOLDER, PERCENT, RATE, SIZE, TIME, VERSION
from memory.judge.statement import analyse

HIGH = 0.93


def cand(content: str, similarity: float = HIGH, situation: str = "") -> Candidate:
    return Candidate(
        id=uuid.uuid5(uuid.NAMESPACE_URL, content + "|" + situation),
        content=content,
        situation=situation,
        similarity=similarity,
    )


def judge(content: str, *candidates: Candidate | str, situation: str = "") -> Verdict:
    given = [c if isinstance(c, Candidate) else cand(c) for c in candidates]
    return OfflineJudge().classify(content=content, situation=situation, candidates=given)


def relation(
    content: str, other: str, similarity: float = HIGH, *, situation: str = "", other_in: str = ""
) -> Relation:
    """The verdict on ``content`` (in ``situation``) against ``other`` (in ``other_in``)."""
    return judge(content, cand(other, similarity, situation=other_in), situation=situation).relation


# --- the contract -------------------------------------------------------------


def test_no_candidates_is_novel() -> None:
    verdict = judge("The export job runs at 02:00 UTC.")
    assert verdict.relation is Relation.NOVEL
    assert verdict.target_id is None
    assert verdict.judge == "offline-v1"


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        ("The export job runs at 02:00 UTC.", "The export job runs at 2am UTC.", "duplicate"),
        ("The export job runs at 03:00 UTC.", "The export job runs at 02:00 UTC.", "contradicts"),
        ("The import job runs at 02:00 UTC.", "The export job runs at 02:00 UTC.", "novel"),
    ],
)
def test_verdict_target_is_none_iff_novel(content: str, other: str, expected: str) -> None:
    candidate = cand(other)
    verdict = judge(content, candidate)
    assert verdict.relation == expected
    if verdict.relation is Relation.NOVEL:
        assert verdict.target_id is None
    else:
        assert verdict.target_id == candidate.id


def test_a_verdict_refuses_a_target_on_novel_and_none_otherwise() -> None:
    with pytest.raises(ValueError, match="target_id"):
        Verdict(Relation.NOVEL, uuid.uuid4(), 0.9, "x", "t")
    with pytest.raises(ValueError, match="target_id"):
        Verdict(Relation.DUPLICATE, None, 0.9, "x", "t")
    with pytest.raises(ValueError, match="confidence"):
        Verdict(Relation.NOVEL, None, 1.5, "x", "t")


def test_verdicts_and_candidates_are_immutable() -> None:
    verdict = judge("The export job runs at 02:00 UTC.")
    with pytest.raises(FrozenInstanceError):
        verdict.relation = Relation.DUPLICATE  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        cand("x").similarity = 0.1  # type: ignore[misc]


def test_get_judge_returns_one_offline_judge_per_process() -> None:
    first: Judge = get_judge()
    # the rules with their learned layer (tests/memory/test_judge_learned.py)
    assert isinstance(first, OfflineJudge)
    assert first.name == "offline-learned-v1"
    assert get_judge() is first


def test_classification_is_deterministic() -> None:
    candidates = [
        cand("The staging DB listens on port 5433.", 0.71),
        cand("The billing database listens on port 5432.", 0.96),
        cand("The billing DB is backed up nightly.", 0.62),
    ]
    first = judge("The billing DB listens on port 5433.", *candidates)
    analyse.cache_clear()  # a cold cache reads the same way
    for _ in range(3):
        again = OfflineJudge().classify(
            content="The billing DB listens on port 5433.", situation="", candidates=candidates
        )
        assert again == first
    assert first.relation is Relation.CONTRADICTS


def test_candidate_order_does_not_change_the_target() -> None:
    lookalike = cand("The staging DB listens on port 5433.")
    target = cand("The billing database listens on port 5432.")
    for order in ([lookalike, target], [target, lookalike]):
        verdict = judge("The billing DB listens on port 5433.", *order)
        assert (verdict.relation, verdict.target_id) == (Relation.CONTRADICTS, target.id)


def test_confidence_is_a_probability_and_higher_for_a_closer_restatement() -> None:
    close = judge(
        "The export job runs at 02:00 UTC.", cand("The export job runs at 2am UTC.", 0.97)
    )
    far = judge("The export job runs at 02:00 UTC.", cand("The export job runs at 2am UTC.", 0.55))
    assert close.relation is far.relation is Relation.DUPLICATE
    assert 0.0 <= far.confidence < close.confidence <= 1.0


def test_rationale_is_one_short_sentence_naming_the_conflict() -> None:
    verdict = judge(
        "The staging Postgres listens on port 5433.", "The staging Postgres listens on port 5432."
    )
    assert verdict.relation is Relation.CONTRADICTS
    assert "5433" in verdict.rationale and "5432" in verdict.rationale
    assert len(verdict.rationale) < 200 and verdict.rationale.endswith(".")
    assert verdict.rationale.count(". ") == 0


# --- similarity is a prior, not the answer --------------------------------------


def test_very_low_similarity_is_novel_even_with_the_same_words() -> None:
    text = "The export job runs at 02:00 UTC."
    assert relation(text, text, similarity=0.1) is Relation.NOVEL
    assert relation(text, text, similarity=0.9) is Relation.DUPLICATE


def test_near_identical_vectors_with_a_different_subject_are_novel() -> None:
    assert (
        relation(
            "Redis on cache-1.internal listens on port 6379.",
            "Redis on cache-2.internal listens on port 6379.",
            similarity=0.99,
        )
        is Relation.NOVEL
    )


# --- numbers and units ------------------------------------------------------------


@pytest.mark.parametrize(
    "other",
    [
        "The payments client times out after 30000 ms.",
        "The payments client times out after half a minute.",
        "The payments client timeout is 30s.",
        "The payments client times out after 0.5 min.",
    ],
)
def test_unit_conversion_is_a_duplicate(other: str) -> None:
    assert relation("The payments client times out after 30 seconds.", other) is Relation.DUPLICATE


@pytest.mark.parametrize(
    ("content", "other"),
    [
        ("Access tokens expire after 1 hour.", "Access tokens expire after 60 minutes."),
        ("Access tokens expire after 1 hour.", "Access tokens expire after 1h."),
        ("Access tokens expire after 90 minutes.", "Access tokens expire after 1 hour 30 minutes."),
        ("Uploads are limited to 1 GiB.", "Uploads are limited to 1024 MiB."),
        ("Uploads are limited to 500 MB.", "Uploads are limited to 0.5 GB."),
        ("The builder needs 4 GB of RAM.", "The builder needs 4096 MB of RAM."),
        ("The cache holds 512 KiB per key.", "The cache holds 0.5 MiB per key."),
        ("Canary deploys get 5% of traffic.", "Canary deploys get 5 percent of traffic."),
        (
            "The search API allows 10 requests per second.",
            "The search API allows 600 requests per minute.",
        ),
    ],
)
def test_equal_quantities_in_other_units_are_a_duplicate(content: str, other: str) -> None:
    assert relation(content, other) is Relation.DUPLICATE


@pytest.mark.parametrize(
    ("content", "other"),
    [
        ("The payments client timeout is 10 seconds.", "The payments client timeout is 30000 ms."),
        ("Uploads are limited to 2 GB.", "Uploads are limited to 1 GB."),
        ("Canary deploys get 5% of traffic.", "Canary deploys get 10 percent of traffic."),
        (
            "The deploy API allows 100 requests per minute.",
            "The deploy API allows 60 requests per minute.",
        ),
        ("The Celery worker concurrency is 8.", "The Celery worker runs with a concurrency of 4."),
    ],
)
def test_a_changed_quantity_contradicts_after_conversion(content: str, other: str) -> None:
    assert relation(content, other) is Relation.CONTRADICTS


def test_facts_are_normalised_to_common_units() -> None:
    def value(text: str, dim: str) -> tuple[float, ...]:
        (fact,) = [f for f in analyse(text).facts if f.dim == dim]
        return fact.value

    assert value("It times out after half a minute.", DURATION) == (30.0,)
    assert value("It times out after 1h30m.", DURATION) == (5400.0,)
    assert value("It allows 600 requests per minute.", RATE) == (10.0,)
    assert value("Files up to 1 GiB.", SIZE) == (1024.0**3, 1024.0**3)
    assert value("It runs at 2:30pm.", TIME) == (870.0,)
    assert value("It requires Python >= 3.11.", VERSION) == (3.0, 11.0)
    # spoken forms: fractions of a unit, a fortnight, times with a part of the day
    assert value("Snapshots are purged at a fortnight old.", DURATION) == (14 * 86400.0,)
    assert value("Crew sign on three quarters of an hour early.", DURATION) == (2700.0,)
    assert value("The window is two and a half days.", DURATION) == (2.5 * 86400,)
    assert value("The window is a day and a half.", DURATION) == (1.5 * 86400,)
    assert value("Pods need half a gibibyte.", SIZE) == (512 * 1024.0**2,) * 2
    assert value("Book by half past five in the afternoon.", TIME) == (1050.0,)
    assert value("Doors open at quarter to nine in the morning.", TIME) == (525.0,)
    # a range's unit, written once after its upper end, belongs to both ends
    temperatures = [f.value[0] for f in analyse("Keep it at 35.6–46.4 °F.").facts]
    assert temperatures == pytest.approx([275.15, 281.15])  # kelvin: 2 and 8 °C
    # without a part of the day the hour is ambiguous: no time is read
    assert not [f for f in analyse("Book by half past five.").facts if f.dim == TIME]
    # basis points beside a rate, a share written as "one in twenty", a
    # setting whose name ends in its unit
    assert value("The promo pays 425 bps APY.", PERCENT) == (4.25,)
    assert value("Raise the spread by 50 basis points.", PERCENT) == (0.5,)
    assert value("Rollouts begin with one user in twenty.", PERCENT) == (5.0,)
    assert value("Three out of four reviewers must approve.", PERCENT) == (75.0,)
    assert value("The spec sets terminationGracePeriodSeconds: 90.", DURATION) == (90.0,)
    assert value("Set timeout_ms = 500 on the client.", DURATION) == (0.5,)
    # ... and what only looks like them: two things counted, a rank, an ordinal
    assert not [f for f in analyse("Deploy one service in two regions.").facts if f.dim == PERCENT]
    assert not [f for f in analyse("The maxItems setting is 50.").facts if f.dim == DURATION]
    assert not analyse("Priority-one outages page the duty manager.").facts
    assert not analyse("It needs a check by a second registered nurse.").facts
    assert value("Wait a second before retrying.", DURATION) == (1.0,)
    # a speed written "m/s" is no minute; "hourly staff" are paid by the hour
    (speed,) = [f for f in analyse("Robots travel at 1.5 m/s.").facts]
    (other,) = [f for f in analyse("Robots travel at 5.4 km/h.").facts]
    assert speed.key == other.key and speed.value == pytest.approx(other.value)
    assert [f.dim for f in analyse("US hourly staff submit timesheets.").facts] == []
    assert [f.dim for f in analyse("The export runs hourly.").facts] == ["interval"]


# --- ports, versions, times --------------------------------------------------------


def test_port_change_contradicts() -> None:
    assert (
        relation(
            "The staging Postgres listens on port 5433.",
            "The staging Postgres listens on port 5432.",
        )
        is Relation.CONTRADICTS
    )


def test_host_colon_port_is_read_as_a_port() -> None:
    assert (
        relation(
            "The metrics exporter is served on localhost:9101.",
            "The metrics exporter listens on port 9100.",
        )
        is Relation.CONTRADICTS
    )
    assert (
        relation(
            "The metrics exporter is served on localhost:9100.",
            "The metrics exporter listens on port 9100.",
        )
        is Relation.DUPLICATE
    )


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        ("CI requires Python 3.12.", "CI requires Python 3.11.", Relation.CONTRADICTS),
        (
            "The CI image needs Python 3.11 or newer.",
            "CI requires Python >= 3.11.",
            Relation.DUPLICATE,
        ),
        ("The deploy CLI needs v2.4.0.", "The deploy CLI needs v2.3.1.", Relation.CONTRADICTS),
        (
            "The app is pinned to Gradle 8.5.",
            "The app is pinned to Gradle 8.5.0.",
            Relation.DUPLICATE,
        ),
        (
            "Use Node 18 for the frontend build.",
            "The frontend build needs Node 20.",
            Relation.CONTRADICTS,
        ),
    ],
)
def test_versions_are_compared_as_versions(content: str, other: str, expected: Relation) -> None:
    assert relation(content, other) is expected


@pytest.mark.parametrize(
    "other",
    [
        "The export job runs at 2am UTC.",
        "The export job runs at 2 a.m. UTC.",
        "The export job runs at 03:00 CET.",
        "The export job runs at 02:00 GMT.",
    ],
)
def test_times_of_day_in_other_formats_are_a_duplicate(other: str) -> None:
    assert relation("The export job runs at 02:00 UTC.", other) is Relation.DUPLICATE


@pytest.mark.parametrize(
    "other",
    [
        "The export job runs at 03:00 UTC.",
        "The export job runs at 2pm UTC.",
        "The export job runs at 02:30 UTC.",
    ],
)
def test_a_different_time_of_day_contradicts(other: str) -> None:
    assert relation("The export job runs at 02:00 UTC.", other) is Relation.CONTRADICTS


def test_a_cron_expression_is_read_as_a_schedule() -> None:
    cron = "Cleanup job schedule: `0 3 * * *`."
    assert relation("The cleanup job runs every day at 03:00.", cron) is Relation.DUPLICATE
    assert relation("The cleanup job runs every day at 04:00.", cron) is Relation.CONTRADICTS


def test_a_different_weekday_contradicts() -> None:
    assert (
        relation(
            "Production deploys are frozen on Fridays.",
            "The production deploy freeze is on Thursdays.",
        )
        is Relation.CONTRADICTS
    )


@pytest.mark.parametrize(
    "other",
    [
        "The help desk is staffed Mon-Fri.",
        "The help desk is staffed Monday through Friday.",
        "The help desk is staffed Mon–Fri.",
        "The help desk is staffed Monday-Friday.",
        "The help desk is staffed Mon thru Fri.",
    ],
)
def test_a_weekday_range_is_the_days_it_spans(other: str) -> None:
    assert relation("The help desk is staffed on weekdays.", other) is Relation.DUPLICATE
    assert relation("The help desk is staffed Monday to Thursday.", other) is Relation.CONTRADICTS


def test_a_short_day_name_counts_only_where_it_is_a_day() -> None:
    days = [f.value for f in analyse("Keep out of the sun on Fri; open Sat and Sun.").facts]
    assert days == [(4.0,), (5.0, 6.0)]


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("Vacuum runs between 1 and 3 a.m.", [1, 3]),
        ("Vacuum runs from 10 to 11 pm.", [22, 23]),
        ("Vacuum runs from 11 to 1 pm.", [11, 13]),
    ],
)
def test_a_range_of_hours_shares_its_am_or_pm(text: str, hours: list[int]) -> None:
    assert [f.value[0] / 60 for f in analyse(text).facts if f.dim == TIME] == hours


@pytest.mark.parametrize(
    ("content", "other"),
    [
        # a temperature range in the other scale, rounded to whole degrees
        ("Store unopened insulin between 36 and 46 °F.", "Store unopened insulin at 2-8 °C."),
        # torque in other units, rounded
        ("Torque the hub bolts to 120 N·m.", "Torque the hub bolts to 88.5 ft-lb."),
        # a fraction in words for a percentage
        (
            "Rotate the signing key once 75% of its validity period has elapsed.",
            "Rotate the signing key when three quarters of its validity period has elapsed.",
        ),
        # units written as words
        (
            "Regrade requests are open for one working week.",
            "Regrade requests are open for five business days.",
        ),
        (
            "Interlibrary loans take about ten working days.",
            "Interlibrary loans take about two weeks.",
        ),
        (
            "Keep free chlorine at 0.2 mg/L at the network ends.",
            "Keep free chlorine at 0.2 ppm at the network ends.",
        ),
        (
            "Light on loaned paintings is capped at 50 lux.",
            "Light on loaned paintings is capped at 50 lx.",
        ),
        (
            "German overtime is paid at 125% of base.",
            "German overtime is paid at time and a quarter.",
        ),
        ("Linen is changed every third night.", "Linen is changed every three nights."),
        ("Plant corn 2 inches deep.", "Plant corn 5.08 cm deep."),
        ("The nightly load starts 0200Z.", "The nightly load starts at 02:00 UTC."),
        ("Pallets may weigh at most one metric tonne.", "Pallets may weigh at most 1,000 kg."),
        # calendar units: a month is 30 days and a year 365, yet 36 months are three years
        (
            "Swap the battery packs in the server-room UPS every 36 months.",
            "Server room UPS battery packs get swapped every three years.",
        ),
        # a share left free is the share used, bounded the other way
        (
            "Page the on-call as soon as /var on the ingest nodes has less than 15% free.",
            "Page the on-call when /var usage on the ingest nodes goes above 85%.",
        ),
        # a setting's value with its unit is a measure, as in prose
        (
            "The reporting role has statement_timeout set to a minute and a half.",
            "The reporting role has statement_timeout=90s.",
        ),
        # a floor written as what must never happen ("never drop below"), a
        # cycle and a quarter as intervals
        (
            "Cold-room humidity must never drop below 40% in the seed vault.",
            "Cold-room humidity in the seed vault is kept at 40% or higher.",
        ),
        (
            "Fire extinguishers in the depot are serviced on a 2-year cycle.",
            "Fire extinguishers in the depot are serviced every two years.",
        ),
        (
            "Depot fire doors get their load test once a quarter.",
            "Depot fire doors get their load test quarterly.",
        ),
        # metric prefixes spelled out, a number word hyphenated to its unit
        (
            "Bells over 120 kilograms are hung with the chain hoist.",
            "Bells over 120 kg are hung with the chain hoist.",
        ),
        (
            "Grout lines in the tasting room are two-centimetre wide.",
            "Grout lines in the tasting room are 2 cm wide.",
        ),
        # so many times a period written "3x daily", "twice weekly"; pressure units
        (
            "Stir the mash tun three times a day during the first week.",
            "Stir the mash tun 3x daily during the first week.",
        ),
        ("The fire pump is run twice a week.", "The fire pump is run twice weekly."),
        (
            "Bottle-washer jets are supplied at 4 bar.",
            "Bottle-washer jets are supplied at 58 psi.",
        ),
        # a speed in words; one unit with its article after a bound
        (
            "Forklifts in the yard are limited to fifteen kilometres an hour.",
            "Forklifts in the yard are limited to 15 km/h.",
        ),
        (
            "Cut the seed potatoes to about a centimetre thick.",
            "Cut the seed potatoes to about 10 mm thick.",
        ),
        # thousands grouped by a space; a speed "a minute"; degrees above another
        # temperature, a difference; "a three-quarter-hour"; "every working day"
        (
            "Fabric for the lobby chairs must reach 30 000 rubs.",
            "Fabric for the lobby chairs must reach 30,000 rubs.",
        ),
        ("The quay hoist lifts at 30 feet a minute.", "The quay hoist lifts at 30 ft per minute."),
        (
            "Close the kiln damper once the flue runs 18 °F above ambient.",
            "Close the kiln damper once the flue runs 10 °C above ambient.",
        ),
        (
            "Lightener stays on for a three-quarter-hour at most.",
            "Lightener stays on for 45 minutes at most.",
        ),
        (
            "Forklift batteries are checked every working day.",
            "Forklift batteries are checked daily.",
        ),
        # inches written "in." at a clause's end; US proof; "an hour and a half of"
        ("Cut the fairways at 0.5 in.", "Cut the fairways at 12.7 mm."),
        ("Bottle the gin at 80 proof.", "Bottle the gin at 40 % ABV."),
        # a negated verb of a bound is a limit ("must not be loaded beyond …")
        (
            "A dryer basket must not be loaded beyond about 220 lb.",
            "Maximum load per dryer basket is 100 kg.",
        ),
        (
            "Pour the slab within an hour and a half of batching.",
            "Pour the slab within 90 minutes of batching.",
        ),
    ],
)
def test_a_measure_in_other_units_or_words_is_the_same_value(content: str, other: str) -> None:
    assert relation(content, other) is Relation.DUPLICATE


@pytest.mark.parametrize(
    ("content", "other"),
    [
        # a bare "m" beside a height is metres, not minutes
        (
            "Inbound pallets may be at most 1.8 m high.",
            "Inbound pallets may be at most 150 cm high.",
        ),
        ("Torque the hub bolts to 120 N·m.", "Torque the hub bolts to 140 Nm."),
        ("Store the vaccine at 2 °C.", "Store the vaccine at 3 °C."),
        (
            "Page the on-call as soon as /var on the ingest nodes has less than 10% free.",
            "Page the on-call when /var usage on the ingest nodes goes above 85%.",
        ),
        # within 2 % only across calendar units: 360 days are not 365
        ("Keep the audit exports for 360 days.", "Keep the audit exports for 365 days."),
        (
            "The reporting role has statement_timeout=90s.",
            "The reporting role has statement_timeout=2m.",
        ),
        (
            "Loaded haul trucks are limited to 30 km/h on the ramp.",
            "Loaded haul trucks are limited to 15 mph on the ramp.",
        ),
        (
            "Forklift batteries are checked every working day.",
            "Forklift batteries are checked weekly.",
        ),
        ("Bottle the gin at 90 proof.", "Bottle the gin at 40 % ABV."),
        (
            "Pour the slab within an hour and a half of batching.",
            "Pour the slab within 60 minutes of batching.",
        ),
        (
            "New belts run in for a full week before use.",
            "New belts run in for three days before use.",
        ),
        # one of a length before what it measures (blind-62)
        (
            "Harvest a crystallizer pan once its salt crust is 5 cm thick.",
            "Harvest a crystallizer pan once its salt crust is an inch thick.",
        ),
    ],
)
def test_a_measure_that_differs_after_conversion_contradicts(content: str, other: str) -> None:
    assert relation(content, other) is Relation.CONTRADICTS


def test_a_word_for_the_kind_of_statement_does_not_make_another_subject() -> None:
    assert (
        relation(
            "Wheel hub bolts on Line 2 are torqued to 120 N·m.",
            "Line 2 hub bolts: torque spec is 140 Nm.",
        )
        is Relation.CONTRADICTS
    )


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("two thirds of a day", "0.6667 day"),
        ("two-thirds of an hour", "0.6667 hour"),
        ("two thirds of the quota", "66.67% of the quota"),
        ("3 quarters of the budget", "75% of the budget"),
    ],
)
def test_parts_of_a_whole_are_read_as_a_share(text: str, written: str) -> None:
    from memory.judge.text import normalise_values

    assert normalise_values(text) == written


@pytest.mark.parametrize(
    ("text", "written"),
    [
        # degrees Baumé measure density, not temperature (blind-62)
        ("cuando alcance 25 grados Baumé", "cuando alcance 25 baume"),
        ("as soon as it hits 25 °Bé", "as soon as it hits 25 baume"),
        # a bare "uur" is also hours: a clock time only after "om", "van", "tot"
        ("de oven draait 7 uur", "de oven draait 7 uur"),
    ],
)
def test_scales_and_clock_times_of_other_languages_are_read_as_written(
    text: str, written: str
) -> None:
    from memory.judge.text import normalise_values

    assert normalise_values(text) == written


@pytest.mark.parametrize(
    ("situation", "other_situation"),
    [
        # blind-63: one situation negates a word the other states, or qualifies
        # a shared noun otherwise
        ("crossmatch samples, recently transfused patients",
         "crossmatch samples, not recently transfused"),
        ("station locker sites, weight limit", "supermarket locker sites, weight limit"),
    ],
)  # fmt: skip
def test_situations_that_share_most_words_but_differ_are_not_one_situation(
    situation: str, other_situation: str
) -> None:
    verdict = judge(
        "A crossmatch sample is good for 7 days and parcels up to 25 kg are accepted.",
        cand(
            "Crossmatch samples are valid for 7 days; parcels up to 25 kg go in.",
            0.9,
            other_situation,
        ),
        situation=situation,
    )
    assert verdict.relation is not Relation.DUPLICATE
    same = judge(
        "A crossmatch sample is good for 7 days and parcels up to 25 kg are accepted.",
        cand("Crossmatch samples are valid for 7 days; parcels up to 25 kg go in.", 0.9, situation),
        situation=situation,
    )
    assert same.relation is Relation.DUPLICATE


def test_places_of_one_kind_named_by_other_words_are_two_places() -> None:
    # blind-64: "the Lower Field" and "the Top Field" were one subject
    assert (
        relation(
            "Cascade on the Lower Field is picked at 22 % dry matter.",
            "Cascade on the Top Field is picked at 24 % dry matter.",
        )
        is Relation.NOVEL
    )
    # the same field named in both: its values still contradict
    assert (
        relation(
            "Cascade on the Lower Field is picked at 22 % dry matter.",
            "Pick Cascade on the Lower Field at 24 % dry matter.",
        )
        is Relation.CONTRADICTS
    )


def test_a_noun_in_ification_meets_its_verb() -> None:
    from memory.judge.text import lemma

    assert lemma("verification") == lemma("verifying") == lemma("verify")
    assert lemma("notifications") == lemma("notified")


# --- negation, antonyms, order ----------------------------------------------------------


def test_a_lesson_that_forbids_what_the_other_orders_in_other_words_is_no_restatement() -> None:
    # "clear" and "wipe" are not one word to the rules; the negation still
    # stands between the two lessons
    verdict = judge(
        "Always wipe the Gradle cache before a release build.",
        cand("Don't clear the Gradle cache before release builds; reuse it.", 0.9),
    )
    assert verdict.relation is Relation.NOVEL
    assert "perhaps contradicting" in verdict.rationale


@pytest.mark.parametrize(
    ("content", "other"),
    [
        (
            "The X-Batch header is required by the deploy API.",
            "The X-Batch header is not required by the deploy API.",
        ),
        (
            "The deploy API requires the X-Batch header.",
            "The deploy API no longer requires the X-Batch header.",
        ),
        (
            "The schema migration job can run during business hours.",
            "Never run the schema migration job during business hours.",
        ),
        ("The build pipeline supports Node 16.", "Node 16 is deprecated in the build pipeline."),
        (
            "Feature flags are cached by the edge proxy.",
            "Feature flags aren't cached by the edge proxy.",
        ),
    ],
)
def test_negation_contradicts(content: str, other: str) -> None:
    assert relation(content, other) is Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("content", "other"),
    [
        (
            "Debug logging is enabled on production API servers.",
            "Debug logging is disabled on production API servers.",
        ),
        ("Force pushes to main are allowed.", "Force pushes to main are forbidden."),
        (
            "Set ALLOW_INSECURE=false in the staging env file.",
            "ALLOW_INSECURE must be true in the staging env file.",
        ),
        (
            "Responses from the pricing API must be cached.",
            "You must not cache responses from the pricing API.",
        ),
        ("The frontend build passes with Node 20.", "The frontend build fails on Node 20."),
        ("The artifacts bucket is public.", "The artifacts bucket is private."),
        (
            "The --region flag is optional for the deploy CLI.",
            "The deploy CLI requires the --region flag.",
        ),
    ],
)
def test_antonyms_contradict(content: str, other: str) -> None:
    assert relation(content, other) is Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("content", "other"),
    [
        (
            "Signing commits is optional in the infra repo.",
            "Commit signing is not required for the infra repository.",
        ),
        ("Debug logging is turned off in production.", "Production has debug logging disabled."),
        ("Do not run terraform apply from a laptop.", "Never run terraform apply from a laptop."),
        (
            "Use `npm ci` instead of `npm install` in CI.",
            "CI should run `npm ci`, not `npm install`.",
        ),
    ],
)
def test_the_same_polarity_in_other_words_is_a_duplicate(content: str, other: str) -> None:
    assert relation(content, other) is Relation.DUPLICATE


def test_other_languages_number_words_and_degrees_are_read() -> None:
    verdict = judge(
        "Les fûts restent au moins trois jours en chambre froide à moins vingt degrés.",
        cand("Casks stay in the cold room for at least 72 hours at -20 °C.", 0.2),
    )
    assert verdict.relation is Relation.DUPLICATE
    assert verdict.relation is relation(
        "Il vino rosso della casa si serve sempre tra i 16 e i 18 gradi.",
        "Serve the house red at 16–18 °C.",
        0.3,
    )


def test_the_same_value_across_languages_with_one_side_negated_is_no_restatement() -> None:
    english = "Visitors under 14 need an adult with them in the workshop."
    assert relation("Besucher unter 14 Jahren brauchen keine Begleitung.", english, 0.3) is (
        Relation.NOVEL
    )
    # a bound is no negation
    assert (
        relation(
            "Der Ofen darf nicht mehr als 14 Stunden laufen.",
            "The kiln may run for at most 14 hours.",
            0.3,
        )
        is Relation.DUPLICATE
    )


def test_a_direction_turned_round_is_no_restatement() -> None:
    verdict = judge(
        "Stack the crates with the labels facing away from the aisle.",
        cand("Stack the crates with the labels facing the aisle.", 0.95),
    )
    assert verdict.relation is not Relation.DUPLICATE
    assert "away from" in verdict.rationale


def test_headings_naming_two_kinds_of_one_step_are_two_subjects() -> None:
    verdict = judge(
        "Cold brining (no salt crust): hold the wheels at 8 °C.",
        cand("Salt brining: hold the wheels at 12 °C.", 0.85),
    )
    assert verdict.relation is Relation.NOVEL
    assert "cold brining vs salt brining" in verdict.rationale


def test_a_rule_opened_with_no_is_the_same_rule_under_a_prohibition() -> None:
    # "No X when …" and "X is forbidden when …": one prohibition, not "not X vs X"
    forbids = "Loading the kiln is forbidden while the burners are lit."
    assert relation("No kiln loading while the burners are lit.", forbids) is not (
        Relation.CONTRADICTS
    )
    assert (
        "not kiln"
        not in judge("No kiln loading while the burners are lit.", cand(forbids, 0.85)).rationale
    )
    # a permission against the "No" form still stands against it
    assert (
        relation(
            "Loading the kiln is allowed while the burners are lit.",
            "No kiln loading while the burners are lit.",
        )
        is not Relation.DUPLICATE
    )


def test_a_reversed_order_contradicts() -> None:
    assert (
        relation(
            "Deploy the web service before running database migrations.",
            "Run database migrations before deploying the web service.",
        )
        is Relation.CONTRADICTS
    )
    drain_first = "Drain the node first, then cordon it."
    assert relation(drain_first, "Cordon the node before draining it.") is Relation.CONTRADICTS


def test_an_order_that_shares_one_step_is_a_chain_not_a_reversal() -> None:
    # "drain before deploying" and "warn, then drain": warn, drain, deploy
    # (blind-49) — a reversal needs each side to be the other's
    read = judge(
        "Game servers are drained before a patch is deployed, and players get a warning first.",
        cand("Players get a ten-minute warning, then the game servers are drained."),
    )
    assert read.relation is not Relation.CONTRADICTS
    assert "order" not in read.rationale


def test_before_and_after_phrasings_of_one_order_are_a_duplicate() -> None:
    assert (
        relation(
            "Run database migrations before deploying the web service.",
            "Deploy the web service only after the database migrations have run.",
        )
        is Relation.DUPLICATE
    )
    assert (
        relation(
            "Run database migrations before deploying the web service.",
            "Before deploying the web service, run database migrations.",
        )
        is Relation.DUPLICATE
    )


# --- subjects --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "other"),
    [
        ("The billing DB listens on port 5432.", "The staging DB listens on port 5432."),
        ("The import job runs at 02:00 UTC.", "The export job runs at 02:00 UTC."),
        (
            "The metrics API answers 429 unless X-Batch: true is sent.",
            "The deploy API answers 429 unless X-Batch: true is sent.",
        ),
        ("The backend build requires Node 20.", "The frontend build requires Node 20."),
        (
            "Write timeouts on the search cluster are 5 seconds.",
            "Read timeouts on the search cluster are 5 seconds.",
        ),
        ("The minimum pool size is 20.", "The maximum pool size is 20."),
        # a heading that names one of many by its number ("Hole 7 green: …")
        (
            "Bay 4 racking: forklifts may lift pallets to 6 m.",
            "Bay 14 racking: forklifts may lift pallets to 8 m.",
        ),
        # a house number names the house
        (
            "The boiler at 14 Oak Road is serviced every May.",
            "The boiler at 41 Oak Road is serviced every November.",
        ),
    ],
)
def test_same_words_different_service_is_novel(content: str, other: str) -> None:
    assert relation(content, other, similarity=0.97) is Relation.NOVEL


@pytest.mark.parametrize(
    ("content", "other"),
    [
        (
            "Redis on cache-1.internal listens on port 6379.",
            "Redis on cache-2.internal listens on port 6379.",
        ),
        (
            "The staging Kafka cluster keeps messages for 7 days.",
            "The staging RabbitMQ keeps messages for 7 days.",
        ),
        ("`make lint` needs Docker running.", "`make test` needs Docker running."),
        ("Windows runners take 10 minutes to boot.", "Linux runners take 10 minutes to boot."),
        (
            "Service number 1 of the fleet listens on port 6001.",
            "Service number 2 of the fleet listens on port 6002.",
        ),
    ],
)
def test_different_named_things_are_novel(content: str, other: str) -> None:
    assert relation(content, other, similarity=0.97) is Relation.NOVEL


def test_a_name_after_the_noun_is_part_of_the_subject() -> None:
    assert (
        relation(
            "Service billing of tribe 0 listens on port 5000.",
            "Service search of tribe 0 listens on port 5001.",
        )
        is Relation.NOVEL
    )
    assert (
        relation(
            "Service billing of tribe 0 listens on port 5005.",
            "Service billing of tribe 0 listens on port 5000.",
        )
        is Relation.CONTRADICTS
    )


def test_a_different_environment_is_novel_even_with_opposite_polarity() -> None:
    assert (
        relation(
            "Debug logging is enabled on the staging API servers.",
            "Debug logging is disabled on the production API servers.",
        )
        is Relation.NOVEL
    )


def test_the_situation_tells_subjects_apart() -> None:
    lesson = "Builds need the --privileged flag."
    other = cand(lesson, 0.8, situation="running Docker-in-Docker on GitHub Actions")
    assert (
        judge(lesson, other, situation="running Docker-in-Docker on GitLab CI").relation
        is Relation.NOVEL
    )
    assert (
        judge(lesson, other, situation="Docker-in-Docker on GitHub Actions").relation
        is Relation.DUPLICATE
    )


@pytest.mark.parametrize(
    ("content", "other"),
    [
        (
            "The deploy API timeout is 100 seconds.",
            "The deploy API rate limit is 100 requests per minute.",
        ),
        (
            "The export job writes its output to the s3://exports-prod bucket.",
            "The export job runs at 02:00 UTC.",
        ),
        ("The search indexer runs at 03:00 UTC.", "The search indexer takes 40 minutes to run."),
        (
            "The API gateway strips the X-Forwarded-For header.",
            "The API gateway adds the X-Request-Id header.",
        ),
        (
            "The deploy API answers 503 while the release queue is full.",
            "The deploy API answers 429 unless the X-Batch: true header is sent.",
        ),
    ],
)
def test_another_fact_about_the_same_subject_is_novel(content: str, other: str) -> None:
    assert relation(content, other) is Relation.NOVEL


def test_another_value_of_a_one_valued_setting_contradicts() -> None:
    assert (
        relation(
            "The Redis cache evicts keys with the allkeys-lru policy.",
            "The Redis cache uses the volatile-lru eviction policy.",
        )
        is Relation.CONTRADICTS
    )
    assert (
        relation(
            "The worker reads its settings from /etc/tributary/worker.toml.",
            "The worker reads its settings from /opt/tributary/worker.toml.",
        )
        is Relation.CONTRADICTS
    )


def test_another_holder_of_one_approval_contradicts() -> None:
    # who approves is a value: two holders of one approval conflict, in any
    # voice; the same holder, or one named more narrowly, does not
    assert (
        relation(
            "Corrections to published articles are approved by the section editor.",
            "Only the standards editor can approve corrections to published articles.",
        )
        is Relation.CONTRADICTS
    )
    assert (
        relation(
            "Refunds over 500 EUR are approved by the regional support manager.",
            "Only the support manager may approve refunds over 500 EUR.",
        )
        is not Relation.CONTRADICTS
    )
    holders = {
        text: [f.label for f in analyse(text).facts if f.dim == HOLDER]
        for text in (
            "Sign-off for claims over $250,000 sits with the Chief Claims Officer.",
            "The Regional Claims Director is the approver for any claim above $250k.",
            "The nightly job is run by cron.",
        )
    }
    assert list(holders.values()) == [["chief claim officer"], ["regional claim director"], []]


def test_two_kinds_of_one_thing_are_two_subjects() -> None:
    # kinds that exclude each other, a kind and its "non-" side, a sibling
    # told apart by a Roman numeral: two things, whatever the values say
    for content, other in (
        (
            "Health checks on the internal ALB for payments-api run every 10 seconds.",
            "Health checks on the external ALB for payments-api run every 30 seconds.",
        ),
        (
            "Scanner S2 overlay spec for non-critical layers is 8 nm.",
            "Scanner S2 overlay spec for critical layers is 3 nm.",
        ),
        (
            "The 2025 property quota share II pays a ceding commission of 22.5%.",
            "The 2025 property quota share pays a ceding commission of 25%.",
        ),
    ):
        assert relation(content, other) is Relation.NOVEL, content
    # the same kind on both sides is one subject: its values conflict
    assert (
        relation(
            "Health checks on the internal ALB for payments-api run every 10 seconds.",
            "Health checks on the internal ALB for payments-api run every 30 seconds.",
        )
        is Relation.CONTRADICTS
    )
    # the situation is part of the subject: "US hourly payroll" / "US salaried payroll"
    verdict = judge(
        "US salaried staff pay stubs are published two business days before payday.",
        cand(
            "US hourly staff pay stubs are published one business day before payday.",
            HIGH,
            situation="US hourly payroll",
        ),
        situation="US salaried payroll",
    )
    assert verdict.relation is Relation.NOVEL


def test_a_teen_group_and_an_adult_group_are_two_subjects() -> None:
    # blind-69: "teen fluency group … Wednesdays at 4:30 pm" against "adult
    # fluency group: Wednesdays, 18:00" superseded the adults' time
    assert (
        relation(
            "Clear Voice's fluency group for teenagers now meets on Wednesdays at 4:30 pm.",
            "Clear Voice adult fluency group: Wednesdays, 18:00.",
            situation="Clear Voice Speech Therapy Cork, teen fluency group",
            other_in="Clear Voice Speech Therapy Cork, adult fluency group",
        )
        is Relation.NOVEL
    )


def test_a_count_of_two_is_a_value() -> None:
    # blind-69: "a crew of two" read as no value folded into "a crew of four"
    # (text2num leaves "one" and "two" as words)
    assert (
        relation(
            "PackRight moves pianos with a crew of two.",
            "PackRight: piano moves always need a crew of four.",
        )
        is Relation.CONTRADICTS
    )
    assert (
        relation(
            "PackRight moves pianos with a crew of two.",
            "PackRight: piano moves are done by a crew of 2.",
        )
        is Relation.DUPLICATE
    )


def test_days_of_the_week_that_recur_say_how_often() -> None:
    # blind-70: "backwashed every Monday and Thursday" against "once a week"
    # was read as the same facts and folded
    assert (
        relation(
            "The sand filter at the Sunnybank hotel pool is backwashed every Monday and "
            "Thursday.",
            "Backwash the Sunnybank hotel sand filter once a week.",
        )
        is Relation.CONTRADICTS
    )
    from memory.judge.text import normalise

    assert "(2 times a week)" in normalise("Backwash on Mondays and Thursdays.")
    assert "(1 times a week)" in normalise("Backwash every Monday.")
    # a day alone after "on" is when, not how often
    assert "times a week" not in normalise("No production deployments on Fridays.")
    assert "times a week" not in normalise("Open on Mondays to Fridays.")


def test_a_phase_of_a_situation_is_another_situation() -> None:
    # blind-70: "a phosphine fumigation keeps the bin sealed for 5 days" was
    # folded into "after a fumigation, ventilate the bin for 5 days"
    assert (
        relation(
            "At the Kerneval co-op silo, a phosphine fumigation keeps the bin sealed for 5 days.",
            "After a fumigation at Kerneval, ventilate the bin for 5 days before anyone goes in.",
            situation="Kerneval co-op silo - fumigation",
            other_in="Kerneval co-op silo - after fumigation",
        )
        is Relation.NOVEL
    )


def test_a_lesson_that_says_it_adds_to_another_is_no_restatement() -> None:
    # blind-70: "phone the fishery board as well as sending the usual e-mail"
    # was folded into "e-mail the fishery board" on their one shared level
    situation = "Lochan Dubh scheme - low reservoir level"
    assert (
        relation(
            "When the Lochan Dubh reservoir falls below 241.0 m, phone the fishery board as "
            "well as sending the usual e-mail.",
            "E-mail the fishery board whenever the Lochan Dubh reservoir drops below 241.0 m.",
            situation=situation,
            other_in=situation,
        )
        is Relation.NOVEL
    )


def test_the_two_sides_of_one_threshold_are_no_contradiction() -> None:
    # "under $50: not refunded" and "$50 or more: refunded" split one
    # threshold between them; another threshold still conflicts
    assert (
        relation(
            "Escrow surpluses under $50 are credited to next year's escrow instead of being "
            "refunded.",
            "An escrow surplus of $50 or more is refunded within 30 days.",
        )
        is Relation.NOVEL
    )
    # the ordinal is no fraction: "the third day" is not a third of a day
    assert not [
        f for f in analyse("Don't unpack them before the third day.").facts if f.value[0] < 1
    ]


def test_a_name_and_its_initials_are_one_name() -> None:
    from memory.judge.statement import initials_shared

    assert initials_shared(
        "Mean time to restore for priority-one outages is at most 240 minutes.",
        "MTTR target for P1 outages: 4 h.",
    ) == ("MTTR for P1 outages is at most 240 minutes.", "MTTR target for P1 outages: 4 h.")
    assert (
        initials_shared(
            "Our SLOs are reviewed monthly.", "Service-level objectives are reviewed monthly."
        )[1]
        == "SLOs are reviewed monthly."
    )
    # words that only begin with the same letters elsewhere are left alone
    assert initials_shared("Run the DRS checks.", "Deploy during rollouts safely.") == (
        "Run the DRS checks.",
        "Deploy during rollouts safely.",
    )
    assert (
        relation(
            "MTTR for P1 enterprise MPLS outages: 4 h.",
            "Mean time to restore for priority-one enterprise MPLS outages is at most 240 minutes.",
        )
        is Relation.DUPLICATE
    )


# --- several candidates ------------------------------------------------------------------------


def test_a_contradiction_is_found_behind_a_closer_lookalike() -> None:
    lookalike = cand("The export job runs at 04:30 UTC.", 0.80)
    target = cand("The import job runs at 03:00 UTC.", 0.79)
    other = cand("The import job writes to the warehouse bucket.", 0.61)
    verdict = judge("The import job runs at 04:30 UTC.", lookalike, target, other)
    assert (verdict.relation, verdict.target_id) == (Relation.CONTRADICTS, target.id)


def test_a_restatement_is_found_among_lookalikes() -> None:
    candidates = [
        cand("The production Postgres database listens on port 5433.", 0.92),
        cand("Staging's Postgres runs on port 5433.", 0.91),
        cand("The staging Redis listens on port 6380.", 0.56),
    ]
    verdict = judge("The staging Postgres database listens on port 5433.", *candidates)
    assert (verdict.relation, verdict.target_id) == (Relation.DUPLICATE, candidates[1].id)


def test_an_exact_restatement_wins_over_a_contradiction() -> None:
    contradiction = cand("CDN cache invalidation takes up to 15 minutes.", 0.95)
    restatement = cand("Invalidating the CDN cache can take as long as five minutes.", 0.90)
    verdict = judge(
        "Cache invalidation on the CDN takes up to 5 minutes.", contradiction, restatement
    )
    assert (verdict.relation, verdict.target_id) == (Relation.DUPLICATE, restatement.id)


def test_only_lookalikes_is_novel() -> None:
    verdict = judge(
        "The staging Kafka cluster keeps messages for 7 days.",
        cand("The production Kafka cluster keeps messages for 3 days.", 0.93),
        cand("The staging RabbitMQ keeps messages for 7 days.", 0.72),
    )
    assert verdict.relation is Relation.NOVEL and verdict.target_id is None
    assert "different subject" in verdict.rationale


# --- robustness -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "...",
        "`",
        "=",
        "port",
        "12:99 UTC",
        "v",
        "99999999999999999999 ms",
        "漢字 🚀 30 秒",
        "x" * 3000,
    ],
)
def test_odd_input_gets_a_valid_verdict(text: str) -> None:
    verdict = judge(text, cand(text, 0.9), cand("The export job runs at 02:00 UTC.", 0.4))
    assert 0.0 <= verdict.confidence <= 1.0 and verdict.rationale
    assert (verdict.target_id is None) == (verdict.relation is Relation.NOVEL)


# --- claims read as claims: situations, names, values -----------------------


def test_the_situation_is_part_of_the_subject() -> None:
    # Found by the Python client's store: one key's port must not supersede another's.
    verdict = judge(
        "The exporter listens on port 9090.",
        cand("The exporter listens on port 8080.", situation="store key: grafana"),
        situation="store key: prometheus",
    )
    assert verdict.relation is Relation.NOVEL
    same_key = judge(
        "The exporter listens on port 9090.",
        cand("The exporter listens on port 8080.", situation="store key: grafana"),
        situation="store key: grafana",
    )
    assert same_key.relation is Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("content", "other"),
    [
        ("25% of orion-b's GPUs are reserved for research.", "25% of orion's GPUs are reserved."),
        ("payments-a runs 3 replicas.", "payments-b runs 5 replicas."),
        ("The clickstream-enriched topic keeps data for a week.", "clickstream topic: 168 hours."),
        # a number written against a capital: a name, not "7 b" nor 7 bytes
        ("Dock 7B is open for unloading from 06:00.", "Dock 7 is open for unloading from 05:30."),
        ("Substation 4C is inspected every two months.", "Substation 4 is inspected monthly."),
        ("On Bay 12A the forklift speed limit is 8 km/h.", "On Bay 12D the limit is 10 km/h."),
        # a joined name and the same name with a word more (blind-46)
        ("Consumer lag alert for the orders-events topic fires at 20k messages.",
         "Consumer lag alert for orders-events-retry fires at 200 messages."),
    ],
)  # fmt: skip
def test_names_that_differ_by_a_suffix_are_different_subjects(content: str, other: str) -> None:
    assert relation(content, other) is Relation.NOVEL


def test_hyphenated_words_that_only_inflect_stay_one_subject() -> None:
    assert relation(
        "Self-rescuers are inspected every 3 months.", "Each self-rescuer is inspected monthly."
    ) is (Relation.CONTRADICTS)


def test_a_value_of_another_object_or_another_tier_is_no_contradiction() -> None:
    # "hot storage" and "cold storage": each value belongs to its own object
    assert relation(
        "Access logs stay in hot storage for 30 days.",
        "Access logs are archived to cold storage for 2 years.",
    ) is (Relation.NOVEL)
    # a threshold added on top of another's
    assert relation(
        "Expenses over $2,000 additionally need a director's sign-off, on top of the manager's.",
        "Expenses above $200 need a manager's approval.",
    ) is (Relation.NOVEL)
    # the same rule with another threshold is a change
    assert relation(
        "Expenses over $2,000 need a manager's approval.",
        "Expenses above $200 need a manager's approval.",
    ) is (Relation.CONTRADICTS)


def test_an_environment_named_by_a_prefix_is_its_own() -> None:
    # "pre-production" is not "production" with a word in front
    assert relation(
        "In pre-production, TLS certificates come from the internal CA.",
        "Production endpoints get their TLS certificates from the internal CA.",
    ) is (Relation.NOVEL)


def test_a_share_in_words_is_a_share_without_of() -> None:
    assert relation(
        "The thumbnailer autoscaler adds pods when CPU goes above three quarters.",
        "The thumbnailer autoscaler adds pods when CPU goes above 90%.",
    ) is (Relation.CONTRADICTS)


def test_a_unit_or_a_dimension_written_against_a_number_is_not_a_name() -> None:
    # "85F" is a temperature, "3D" a kind of printer: still one subject
    assert relation("Keep the proofing room below 85F.", "Keep the proofing room below 80F.") is (
        Relation.CONTRADICTS
    )
    assert (
        relation(
            "Only staff may start jobs on the library 3D printer.",
            "Patrons may start their own jobs on the library 3D printer.",
        )
        is not Relation.NOVEL
    )


def test_other_recurring_days_scope_other_values() -> None:
    # "on Sundays" and "on Saturdays": each day its own hours, both true
    assert relation(
        "The Harbour cafe serves brunch until 2 pm on Sundays.",
        "The Harbour cafe serves brunch until noon on Saturdays.",
    ) is (Relation.NOVEL)
    # one weekly event moved: its day and its time are its value
    assert relation(
        "The weekly release train leaves Tuesday at 10:00.",
        "The weekly release train leaves Thursday at 16:00.",
    ) is (Relation.CONTRADICTS)
    # the same days, another value: still a contradiction
    assert relation(
        "The Harbour cafe serves brunch until 2 pm on Sundays.",
        "The Harbour cafe serves brunch until 1 pm on Sundays.",
    ) is (Relation.CONTRADICTS)


def test_a_spaced_name_is_its_hyphenated_form() -> None:
    spaced = relation(
        "The search API canary starts at 5% of traffic.",
        "search-api canary begins with one in ten requests.",
    )
    assert spaced is Relation.CONTRADICTS
    generic = relation(
        "The checkout-svc deploy freeze starts at 17:00.",
        "The checkout deploy freeze starts at 5 pm.",
    )
    assert generic is Relation.DUPLICATE


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        ("The learning budget is three thousand euros per employee.",
         "The learning budget is €3,000 per employee.", "duplicate"),
        ("The learning budget is EUR 3000 per employee.",
         "The learning budget is €2,500 per employee.", "contradicts"),
        ("Contracts above fifty thousand dollars need legal review.",
         "Contracts above USD 50k need legal review.", "duplicate"),
        ("A quarter of the GPU pool is reserved for research.",
         "25 percent of the GPU pool is reserved for research.", "duplicate"),
        ("Checkpoints are written four times an hour.",
         "The checkpoint interval is 15 minutes.", "duplicate"),
        ("Checkpoints are written twice an hour.",
         "The checkpoint interval is 15 minutes.", "contradicts"),
        ("Claims over three grand need the Finance Director's sign-off.",
         "Claims over $3,000 need the Finance Director's sign-off.", "duplicate"),
        # a range whose unit is written once, after its upper end: a count
        # and a duration before
        ("Swap the filter cartridges once a week.",
         "Swap the filter cartridges every 48-72 hours.", "contradicts"),
        ("A full reindex takes 10-15 minutes.",
         "A full reindex takes 10 minutes to 15 minutes.", "duplicate"),
    ],
)  # fmt: skip
def test_quantities_in_words_currencies_and_fractions_are_compared_as_values(
    content: str, other: str, expected: str
) -> None:
    assert relation(content, other).value == expected


def test_values_bounded_in_opposite_directions_are_different_ranges() -> None:
    ranges = relation(
        "Expense claims under €25 do not need manager approval.",
        "Expense claims over €1,000 need director approval.",
    )
    assert ranges is Relation.NOVEL


def test_bounds_written_in_several_words_are_read() -> None:
    # "no less than" is a floor, as "over" is: two floors, two values
    floors = relation(
        "Keep the nightly backups for over 30 days.",
        "Keep the nightly backups for no less than 90 days.",
    )
    assert floors is Relation.CONTRADICTS
    # "at least" a floor, "within" a ceiling: one week each way is no restatement
    situation = "company secretarial, board meetings"
    apart = judge(
        "Give at least 7 days' notice of a board meeting.",
        cand("Circulate the board minutes within 5 business days.", situation=situation),
        situation=situation,
    )
    assert apart.relation is Relation.NOVEL


def test_a_limit_told_from_its_two_sides_in_one_situation_is_one_limit() -> None:
    # "above 20" and "up to 25" bound in opposite directions, but one forbids
    # and the other allows: in one situation they are one limit, 20 against 25
    situation = "deciding whether to launch the dinghies"
    verdict = judge(
        "Do not launch the dinghies when the wind is above 20 knots.",
        cand("The dinghies may be launched in winds up to 25 knots.", situation=situation),
        situation=situation,
    )
    assert verdict.relation is Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        ("App logs are kept for two weeks.",
         "Application logs are kept for 30 days.", "contradicts"),
        ("The reagent fridge temperature is logged twice a day.",
         "The reagent refrigerator temperature is logged daily.", "contradicts"),
    ],
)  # fmt: skip
def test_everyday_short_forms_are_their_words(content: str, other: str, expected: str) -> None:
    assert relation(content, other).value == expected


def test_a_plural_of_a_model_name_is_the_name() -> None:
    assert (
        relation(
            "Halve the batch size when a job runs out of memory on the H100 nodes.",
            "When jobs run out of memory on the H100s, halve the batch size.",
        )
        is Relation.DUPLICATE
    )


def test_a_frequency_that_names_a_job_is_part_of_its_subject() -> None:
    verdict = judge(
        "The orders nightly ETL times out after two hours.",
        cand("orders hourly incremental ETL: timeout 15 min."),
        cand("orders nightly ETL: job timeout is 90 min.", similarity=0.9),
    )
    assert verdict.relation is Relation.CONTRADICTS
    assert verdict.target_id == cand("orders nightly ETL: job timeout is 90 min.").id


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        ("The dock accepts pallets up to 1,200 kg.",
         "The dock accepts pallets up to 1.2 t.", "duplicate"),
        ("The dock accepts pallets up to 1,500 kg.",
         "The dock accepts pallets up to 1.2 t.", "contradicts"),
        ("The vaccine fridge is kept at 5 degrees Celsius.",
         "The vaccine fridge is kept at 5 °C.", "duplicate"),
        ("The vaccine fridge is kept at 5 degrees Celsius.",
         "The vaccine fridge is kept at 41 °F.", "duplicate"),
    ],
)  # fmt: skip
def test_physical_units_are_read_through_pint(content: str, other: str, expected: str) -> None:
    assert relation(content, other).value == expected


def test_different_measures_are_different_attributes_whatever_their_verbs() -> None:
    verdict = relation(
        "Pallets heavier than 1,200 kg are refused at the dock.",
        "The dock accepts pallets no taller than 1.8 metres.",
    )
    assert verdict is Relation.NOVEL


def test_a_temperature_that_names_a_freezer_is_part_of_its_subject() -> None:
    verdict = relation(
        "Samples in the -20 °C freezer are audited quarterly.",
        "Samples in the -80 °C freezer are audited monthly.",
    )
    assert verdict is Relation.NOVEL


def test_without_negates_what_it_governs() -> None:
    verdict = relation(
        "Items may be returned without a receipt within 30 days.",
        "Returns are accepted only with a receipt, within 30 days.",
    )
    assert verdict is Relation.CONTRADICTS


def test_a_permission_withheld_until_a_condition_is_that_condition_required() -> None:
    # "blocked until someone approves" says what "requires an approval before
    # any PR can merge" says (blind-47): no polarity to oppose
    new = (
        "Review on infra-terraform pull requests is not optional: merging stays blocked "
        "until someone from the platform team approves."
    )
    other = (
        "The infra-terraform repo requires an approving review from a platform team member "
        "before any PR can merge."
    )
    read = judge(new, cand(other))
    assert read.relation is not Relation.CONTRADICTS and "blocked" not in read.rationale
    assert "allow" not in analyse(new).signs
    # a prohibition without a condition still opposes a permission
    assert (
        relation(
            "Merging to infra-terraform main is blocked for everyone.",
            "Anyone can merge to infra-terraform main.",
        )
        is Relation.CONTRADICTS
    )


def test_every_single_day_is_a_frequency() -> None:
    read = judge(
        "Cycle counts in the cold-chain aisle are done twice a week.",
        cand("The cold-chain aisle gets cycle-counted every single day."),
    )
    assert read.relation is Relation.CONTRADICTS
    assert "every single day" in read.rationale


def test_staff_and_employees_are_one_subject() -> None:
    read = judge(
        "Part-time staff must submit their hours by Friday 17:00.",
        cand("Part-time employees have until Monday noon to submit their hours."),
    )
    assert read.relation is Relation.CONTRADICTS


def test_a_polarity_word_naming_a_thing_is_no_polarity() -> None:
    # "the support portal" names a portal: "support" there supports nothing,
    # and the docs portal is another portal (blind-47)
    def polarity(text: str, word: str) -> object:
        return next(t.polarity for t in analyse(text).tokens if t.raw == word)

    assert polarity("The support portal accepts uploads up to 25 MB.", "support") is None
    assert polarity("The portal does not support uploads over 25 MB.", "support") is not None
    verdict = judge(
        "The docs portal accepts uploads up to 25 megabytes.",
        cand(
            "The support portal accepts uploads up to 25 MB.",
            situation="attaching files in the support portal",
        ),
        situation="uploading a large file to the docs portal",
    )
    assert verdict.relation is Relation.NOVEL


def test_two_candidates_that_fit_about_as_well_make_no_destructive_verdict() -> None:
    # When unsure which stored lesson a contradiction is about, insert as novel.
    verdict = judge(
        "The line 14 bus runs every 10 minutes.",
        cand("The line 14 bus runs every 20 minutes.", similarity=0.92),
        cand("The line 14 bus runs every 30 minutes.", similarity=0.91),
    )
    assert verdict.relation is Relation.NOVEL and verdict.target_id is None


# --- a dateline is when a note was written, not what it claims -----------------


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        # progress on one matter, noted on two days: not a disagreement
        (
            "2023-05-20: Declan has finished four of the eight Fennel chairs.",
            "2023-02-11: Declan has been commissioned to make eight ash chairs for Fennel.",
            Relation.NOVEL,
        ),
        (
            "[2024-03-19 10:05] Bengt accepted an offer of 2.85 million kronor for the house.",
            "[2024-03-02 16:40] Bengt's house has been put on the market for 2.95 million kronor.",
            Relation.NOVEL,
        ),
        (
            "1:56 pm on 8 May, 2023: Caroline said the adoption agency called her back.",
            "10:37 am on 27 March, 2023: Caroline said she applied to an adoption agency.",
            Relation.NOVEL,
        ),
        (
            "March 30, 2024 - The Kalmar house sold for 2.85 million kronor.",
            "March 2, 2024 - The Kalmar house was listed at 2.95 million kronor.",
            Relation.NOVEL,
        ),
        # a changed value is still a contradiction, stamped or not
        (
            "2024-06-01 - The API rate limit is 200 requests per minute.",
            "2024-01-15 - The API rate limit is 100 requests per minute.",
            Relation.CONTRADICTS,
        ),
    ],
)
def test_a_leading_dateline_is_not_a_value_of_the_claim(
    content: str, other: str, expected: Relation
) -> None:
    assert relation(content, other) is expected


def test_a_date_the_sentence_is_about_stays_a_value() -> None:
    assert analyse("2024-03-12 is the first day of the freeze.").facts
    assert analyse("12 March 2024 is the first day of the freeze.").facts
    assert (
        relation(
            "The deploy freeze starts on 2024-03-12.", "The deploy freeze starts on 2024-03-19."
        )
        is Relation.CONTRADICTS
    )


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        # every value equal, in another language: a restatement
        ("Der Kühlraum wird zwischen 3 und 5 °C gehalten; über 6 °C den Techniker rufen.",
         "Keep the cold room at 3-5 °C and call the technician above 6 °C.", "duplicate"),
        ("冷蔵庫は2〜8℃に保つこと。", "Keep the vaccine fridge between 2 and 8 °C.", "duplicate"),
        ("Les retours de plus de 2 kg sont facturés 4,50 € par colis.",
         "Returns over 2 kg are billed at €4.50 per parcel.",
         "duplicate"),
        # another value, or a value only one states: novel (no words to say it is one subject)
        ("Der Kühlraum wird zwischen 3 und 5 °C gehalten.",
         "Keep the freezer room at -18 °C.", "novel"),
        ("Le stock est compté chaque semaine.", "Count the stock every 3 weeks.", "novel"),
        # an article elided before a number is no part of it (blind-62: "l'1 %"
        # was no value, and 1.5 % of another variety agreed with the rest)
        ("La Golden Delicious si conserva a 1 °C con l'1 % di ossigeno e il 2 % di CO₂.",
         "Keep Gala at 34 °F with 1.5 % O₂ and 2 % CO₂.", "novel"),
        ("Le mele si conservano a 1 °C con l'1,5 % di ossigeno e il 2 % di CO₂.",
         "Keep the apples at 34 °F with 1.5 % O₂ and 2 % CO₂.", "duplicate"),
        # German and Dutch clock times (blind-62: "22.00" was a version number)
        ("Stilte op de camping van 22.00 tot 07.00 uur; aggregaten moeten dan uit.",
         "Quiet hours run from 10 pm to 7 am; generators must be off.", "duplicate"),
        ("Die Pegel werden täglich um 7 Uhr und um 19 Uhr abgelesen.",
         "Read the gauges daily at 7 a.m. and 7 p.m.", "duplicate"),
        ("Die Pegel werden täglich um 7 Uhr und um 19 Uhr abgelesen.",
         "Read the gauges daily at 8 a.m. and 7 p.m.", "novel"),
        # the Romance languages' "11h00" and the Nordic "kl. 22" (blind-65:
        # read as names of two subjects)
        ("Le guichet des colis est ouvert dès 8h et jusqu'à 11h30.",
         "The parcel counter is open from 8 am until 11:30.", "duplicate"),
        ("Le bassin extérieur est ouvert de 9h à 17h30.",
         "The outdoor pool is open from 09:00 to 17:30.", "duplicate"),
        ("Le bassin extérieur est ouvert de 9h à 17h30.",
         "The outdoor pool is open from 09:00 to 18:30.", "novel"),
        ("Snökanonerna får köras från kl. 18 till klockan 6.30.",
         "The snow guns may run from 6 pm to 6:30 am.", "duplicate"),
    ],
)  # fmt: skip
def test_a_pair_in_two_languages_is_read_by_its_values(
    content: str, other: str, expected: str
) -> None:
    assert relation(content, other, similarity=0.2).value == expected


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        # how often, in the lesson's own language: "deux" was no number
        # there, and two months against three read as a restatement
        ("Les filtres de la piscine sont changés tous les deux mois.",
         "Les filtres de la piscine sont changés tous les trois mois.", "contradicts"),
        ("Les filtres de la piscine sont changés tous les deux mois.",
         "Les filtres de la piscine sont changés tous les 2 mois.", "duplicate"),
        ("Die Filter im Becken werden alle zwei Monate gewechselt.",
         "Die Filter im Becken werden jeden Monat gewechselt.", "contradicts"),
        ("Die Filter im Becken werden alle zwei Monate gewechselt.",
         "Die Filter im Becken werden alle 2 Monate gewechselt.", "duplicate"),
        # a short Italian sentence, read as Italian by its little words
        # ("ogni", "si"): before, it was English, and two months against six
        # a restatement
        ("I filtri della piscina si cambiano ogni due mesi.",
         "I filtri della piscina si cambiano ogni sei mesi.", "contradicts"),
    ],
)  # fmt: skip
def test_how_often_is_read_in_the_lessons_own_language(
    content: str, other: str, expected: str
) -> None:
    assert relation(content, other, similarity=0.8).value == expected


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("alle drei Jahre", "every 3 years"),
        ("jedes Jahr", "every year"),
        ("tous les deux mois", "every 2 months"),
        ("toutes les 4 heures", "every 4 hours"),
        ("cada dos semanas", "every 2 weeks"),
        ("ogni giorno", "every day"),
        ("a cada três anos", "every 3 years"),
        ("om de drie weken", "every 3 weeks"),
        ("wird jährlich geprüft", "wird every year geprüft"),
        # not how often: "all" in German, a time in Italian
        ("alle neuen Jahre", "alle neuen Jahre"),
        ("alle Mitarbeiter", "alle Mitarbeiter"),
        ("alle 7 ore", "alle 7 ore"),
    ],
)
def test_how_often_as_other_languages_say_it(text: str, read: str) -> None:
    from memory.judge.text import _how_often

    assert _how_often(text) == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("até às 13h00", "até às 13:00"),
        ("ouvert de 9h à 17h30", "ouvert de 09:00 à 17:30"),
        ("a las 9h30", "a las 09:30"),
        ("efter kl. 22", "efter 22:00"),
        ("o godz. 7", "o 07:00"),
        # a duration stays one
        ("la tâche dure 2h30", "la tâche dure 2h30"),
        ("après 2h de cuisson", "après 2h de cuisson"),
        ("une pause de 2h à midi", "une pause de 2h à midi"),
    ],
)
def test_clock_times_of_other_languages_are_read_as_times(text: str, read: str) -> None:
    from memory.judge.text import _other_language_values

    assert _other_language_values(text) == read


@pytest.mark.parametrize(
    ("content", "other", "expected"),
    [
        ("Any shift lead can reopen a closed till on their own.",
         "Reopening a closed till requires the store manager's sign-off.", "contradicts"),
        ("Every dive in the seal pool needs a second diver as safety watch.",
         "Keepers can dive the seal pool alone to clean the filters.", "contradicts"),
        # another environment, or the two sides of one threshold
        ("Production restores require approval from the DBA lead.",
         "Staging restores can be run by any engineer without approval.", "novel"),
        ("Orders above $300 require a signature on delivery.",
         "Orders of $300 or less may be left at the door without a signature.", "novel"),
    ],
)  # fmt: skip
def test_a_second_party_required_against_one_waived(
    content: str, other: str, expected: str
) -> None:
    assert relation(content, other, similarity=0.7).value == expected


def test_a_party_forbidden_to_be_done_without_is_required_not_waived() -> None:
    verdict = relation(
        "A release can't ship without sign-off from two reviewers.",
        "Releases need approval from two reviewers.",
        similarity=0.7,
    )
    assert verdict is not Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Die Frist beträgt 14 Tage.", ("duration", 14 * 86400.0)),
        ("El plazo es de 2 semanas.", ("duration", 14 * 86400.0)),
        ("保存期間は90日間です。", ("duration", 90 * 86400.0)),
        (
            "Loads with more than one fifth of their weight in ceramics are rejected.",
            ("percent", 20.0),
        ),
        ("Stow the 9 m dish in high winds.", ("quantity", 9.0)),
        ("Fees are twenty per cent of the total.", ("percent", 20.0)),
        ("Children younger than twelve ride free.", ("duration", 12 * 31536000.0)),
        ("水温は、27℃を超えないこと。", ("quantity", 300.15)),
    ],
)
def test_values_written_as_other_languages_and_other_notations_write_them(
    text: str, fact: tuple[str, float]
) -> None:
    facts = analyse(text).facts
    assert [(f.dim, f.value[0]) for f in facts] == [fact]


def test_a_noun_labelled_by_another_letter_is_another_thing() -> None:
    verdict = relation(
        "The ring frames in spinning hall B run three shifts Monday through Saturday.",
        "Spinning hall A runs three shifts Monday to Saturday.",
    )
    assert verdict is Relation.NOVEL
    # the same letter is the same hall
    same = relation(
        "The ring frames in spinning hall B run three shifts Monday through Saturday.",
        "Spinning hall B runs three shifts Monday to Saturday.",
    )
    assert same is Relation.DUPLICATE


def test_a_size_before_a_thing_names_it() -> None:
    verdict = relation(
        "Bridge Street's 40-pound washers cost eight dollars a cycle.",
        "Bridge Street's 20 lb washers cost $4.50 per cycle.",
    )
    assert verdict is Relation.NOVEL


def test_a_value_and_its_tolerance_are_the_range_they_allow() -> None:
    tolerance = analyse("Lettuce bays: target pH 6.0 ± 0.2.").facts
    range_ = analyse("Keep the lettuce bays between pH 5.8 and 6.2.").facts
    assert (
        [(f.dim, f.key, f.value) for f in tolerance]
        == [(f.dim, f.key, f.value) for f in range_]
        == [("count", "ph", (5.8,)), ("count", "ph", (6.2,))]
    )


def test_one_common_value_across_languages_folds_nothing_far_away() -> None:
    # a German refund rule and an English log rule share "30 days", nothing else
    far = relation(
        "Rückerstattungen werden innerhalb von 30 Tagen bearbeitet.",
        "Access logs are kept for 30 days.",
        similarity=0.1,
    )
    assert far is Relation.NOVEL
    # two values, or one at the similarity any pair needs, still restate
    assert (
        relation(
            "Der Kühlraum wird zwischen 3 und 5 °C gehalten.",
            "Keep the cold room at 3-5 °C.",
            similarity=0.1,
        )
        is Relation.DUPLICATE
    )


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("I filtri della piscina si cambiano ogni due mesi.", True),
        ("Nella vasca interna il pH va misurato ogni 2 ore.", True),
        # English, with words Italian writes too
        ("Ask Ed about the build.", False),
        ("The mai tai recipe is in the wiki.", False),
        ("I rotate the keys every two months.", False),
    ],
)
def test_a_short_italian_sentence_is_read_as_another_language(text: str, other: bool) -> None:
    from memory.language import other_language

    assert other_language(text) is other


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        # blind-67's class, in other words: the value replaced is what was
        (
            "From May the Harbour Road pool opens at 06:00 instead of 07:00.",
            "The Harbour Road pool opens at 7 am on weekdays.",
            Relation.CONTRADICTS,
        ),
        (
            "Pallets are now wrapped with 4 turns of film rather than 6.",
            "Wrap each pallet with six turns of film.",
            Relation.CONTRADICTS,
        ),
        # the new value restated, the old one named beside it
        (
            "From May the Harbour Road pool opens at 06:00 instead of 07:00.",
            "The Harbour Road pool opens at 6 am.",
            Relation.DUPLICATE,
        ),
    ],
)
def test_a_value_a_lesson_says_it_replaces_is_not_one_it_states(
    new: str, old: str, expected: Relation
) -> None:
    assert relation(new, old, 0.8) is expected


def test_one_houses_two_places_named_in_two_languages_are_two_subjects() -> None:
    # "Relaks Kraków" and "Relaks Warszawa": the same values, two places
    verdict = judge(
        "Relaks Kraków: klient może bezpłatnie odwołać wizytę do 12 godzin przed terminem.",
        cand("Relaks Warszawa: free cancellation up to 12 hours before the appointment.", 0.85),
    )
    assert verdict.relation is Relation.NOVEL
    # one place named in both: read by its values (and its heading is no
    # setting "Kraków = Die" against "Kraków = the")
    same = judge(
        "Relaks Kraków: Die Sauna schließt um 21:00 und öffnet um 07:00.",
        cand("Relaks Kraków: the sauna closes at 21:00 and opens at 07:00.", 0.85),
    )
    assert same.relation is Relation.DUPLICATE
    apart = judge(
        "Relaks Kraków: Die Sauna schließt um 21:00 und öffnet um 07:00.",
        cand("Relaks Warszawa: the sauna closes at 21:00 and opens at 07:00.", 0.85),
    )
    assert apart.relation is Relation.NOVEL


def test_a_hyphenated_word_and_its_short_plural_are_one_name() -> None:
    from memory.judge.offline import _compound_names_differ
    from memory.judge.statement import analyse_pair

    new, cand = analyse_pair(
        "Walk-ins at the Queen Street shop are taken until 30 minutes before closing.",
        "At Queen Street we stop accepting walk-in customers an hour before we close.",
    )
    assert _compound_names_differ(new, cand) is None
    # names told apart by a suffix still are
    new, cand = analyse_pair("Restart the orion-b cluster nightly.", "Restart the orion cluster.")
    assert _compound_names_differ(new, cand) == "orion-b vs orion"


def test_another_languages_little_words_qualify_nothing() -> None:
    from memory.judge.statement import analyse

    spanish = analyse("Después de desinfectar un pozo con cloro, esperar 12 horas.")
    assert not any(q.modifier == "un" or q.head == "un" for q in spanish.qualifiers)
    # an English qualifier still is one ("the *staging* database")
    english = analyse("The staging database is backed up nightly.")
    assert any(q.modifier == "staging" for q in english.qualifiers)
