"""The reader's training flips: one value changed is a contradiction's
pair, one name changed another thing's; every flip is one edit."""

from __future__ import annotations

import difflib
import random

from evals.judge_flips import (
    subject_flip,
    subject_flips,
    value_flip,
    value_flips,
    value_keep,
    value_keeps,
)


def _changed(a: str, b: str) -> list[str]:
    """The words of ``b`` that are not ``a``'s."""
    return [w[2:] for w in difflib.ndiff(a.split(), b.split()) if w.startswith("+ ")]


def test_a_value_flip_changes_one_value_and_nothing_else() -> None:
    rng = random.Random(0)
    for text, allowed in [
        ("Admin sessions expire after 900 seconds of inactivity.", {"after", "before"}),
        ("Staging deploys need one approval and are required on Fridays.", {"optional"}),
        ("The nightly export starts at 02:30.", set()),
    ]:
        flipped = value_flip(text, rng)
        assert flipped is not None and flipped != text
        changed = _changed(text, flipped)
        assert len(changed) == 1, (text, flipped)
        assert changed[0] in allowed or any(ch.isdigit() for ch in changed[0]), flipped


def test_nothing_to_flip_gives_none() -> None:
    assert value_flip("Ask the on-call engineer.", random.Random(0)) is None
    assert subject_flip("Ask the on-call engineer.", random.Random(0), {}) is None


def test_a_subject_flip_renames_the_thing_not_its_value() -> None:
    rng = random.Random(0)
    places = {"store": ["Lisbon", "Porto"]}
    assert (
        subject_flip("Refunds at the Lisbon store need a sign-off.", rng, places)
        == "Refunds at the Porto store need a sign-off."
    )
    lettered = subject_flip("The payments-a ledger reconciles daily.", rng, {})
    assert lettered is not None and lettered.startswith("The payments-")
    assert lettered != "The payments-a ledger reconciles daily."
    # "node 10 GiB" is a value: only the building is renamed
    numbered = subject_flip("Building 4 caps each node 10 GiB.", rng, {})
    assert numbered is not None and "node 10 GiB" in numbered
    assert not numbered.startswith("Building 4 ")


def test_flips_are_deterministic_and_bounded() -> None:
    lessons = [
        (f"Orders at the {city} warehouse ship within {n} days.", "shipping")
        for city, n in [("Reno", 2), ("Dayton", 3), ("Memphis", 4)]
    ]
    assert value_flips(lessons, 2) == value_flips(lessons, 2)
    assert len(value_flips(lessons, 2)) == 2
    renamed = subject_flips(lessons)
    assert renamed == subject_flips(lessons)
    for content, _, flipped in renamed:
        (city,) = _changed(content, flipped)
        assert city in {"Reno", "Dayton", "Memphis"}


def test_a_value_kept_is_the_same_quantity_written_another_way() -> None:
    rng = random.Random(0)
    assert value_keep("The client times out after 120 minutes.", rng) in (
        "The client times out after 2 hours.",
        "The client times out after 2 hours",
    )
    assert value_keep("Snapshots are kept for 7 days.", rng) in (
        "Snapshots are kept for one week.",
        "Snapshots are kept for seven days.",
    )
    assert value_keep("Reset at 00:00 UTC.", rng) == "Reset at midnight UTC."
    assert value_keep("The export starts at 14:30.", rng) == "The export starts at 2:30 pm."
    # a time already spoken, or one end of a range: nothing to write again
    assert value_keep("Doors open at 9:00 a.m.", rng) is None
    assert value_keep("Deploy window: 14:00-16:00 ET.", rng) is None


def test_kept_values_are_deterministic_and_bounded() -> None:
    lessons = [
        (f"Backups of site {n} run daily and are kept {n * 7} days.", "ops") for n in (1, 2, 3)
    ]
    assert value_keeps(lessons, 2) == value_keeps(lessons, 2)
    assert len(value_keeps(lessons, 2)) == 2
