"""The reader's training flips: one value changed is a contradiction's
pair, one name changed another thing's; every flip is one edit."""

from __future__ import annotations

import difflib
import random

from evals.judge_flips import (
    requirement_rewrite,
    requirement_rewrites,
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


def test_a_requirement_is_written_withheld_or_lifted() -> None:
    text = "DNS changes need a change ticket approved by networking."
    ticket = "a change ticket approved by networking"
    written = {
        keep: {requirement_rewrite(text, random.Random(seed), keep=keep) for seed in range(20)}
        for keep in (True, False)
    }
    assert written[True] == {
        f"DNS changes are not allowed without {ticket}.",
        f"Without {ticket}, DNS changes are blocked.",
        f"DNS changes are blocked until there is {ticket}.",
        "A change ticket approved by networking is mandatory for DNS changes.",
    }
    assert written[False] == {
        f"DNS changes do not need {ticket}.",
        f"DNS changes no longer need {ticket}.",
        f"DNS changes are allowed without {ticket}.",
        "A change ticket approved by networking is optional for DNS changes.",
    }
    # one subject, one verb: "Logging in requires …" reads "… is allowed without …"
    assert requirement_rewrite(
        "Logging into the console requires a hardware key.", random.Random(0), keep=False
    ) in {
        "Logging into the console does not require a hardware key.",
        "Logging into the console no longer requires a hardware key.",
        "Logging into the console is allowed without a hardware key.",
        "A hardware key is optional for logging into the console.",
    }


def test_only_a_plain_requirement_is_rewritten() -> None:
    rng = random.Random(0)
    for text in (
        "At the downtown branch, counts need a witness.",  # a leading phrase
        "Kingsgate Pharmacy needs two working days to prepare a repeat.",  # a time, not a thing
        "Merges need two approvals before the freeze.",  # a condition
        "Refunds that exceed $500 need a sign-off.",  # a clause in the subject
        "Ask the on-call engineer.",
    ):
        assert requirement_rewrite(text, rng, keep=True) is None, text


def test_requirement_rewrites_are_deterministic_and_bounded() -> None:
    lessons = [(f"Builds of app {n} need a signed manifest.", "ci") for n in (1, 2, 3)]
    assert requirement_rewrites(lessons, 2, keep=True) == requirement_rewrites(
        lessons, 2, keep=True
    )
    assert len(requirement_rewrites(lessons, 2, keep=False)) == 2
    withheld = {f for _, _, f in requirement_rewrites(lessons, 3, keep=True)}
    lifted = {f for _, _, f in requirement_rewrites(lessons, 3, keep=False)}
    assert withheld and lifted and not withheld & lifted
