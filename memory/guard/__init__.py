"""The injection screen (docs/design.md §4, step 4): a lesson shaped like an
instruction is quarantined before anything classifies it.

A lesson is data that other agents will read. It is quarantined (stored for
audit, never recalled, never shown to a judge) when any reading of it
(:mod:`memory.guard.normalise`: look-alikes mapped to ASCII, split letters
rejoined, hidden tag text, decoded base64/hex/percent runs, rot13, reversed,
leetspeak) breaks a rule (:mod:`memory.guard.rules`), each anchored on what
an attack needs and ordinary operational text lacks: the judge or a future
AI reader addressed, a secret moved to a destination outside the system,
code fetched and run, a prompt's structure faked, the people involved kept
in the dark, a security control weakened on a claimed approval. Text that
is invisible to people, words disguised with look-alike characters, and
a phrase spelled letter by letter inside prose ("u n p l u g  t h e
t r a c k e r") are attacks in themselves.

A second, learned signal (:mod:`memory.guard.learned`) scores a lesson's
embedding against the red-team set's attacks and look-alikes. It is obeyed
only beside a textual sign that the lesson turns to its reader (an AI,
"you", the user, a reply, instructions): alone, over a threshold no
look-alike reached held out, it still scored ordinary lessons of other sets
as attacks (a LangGraph store value, three of 1,482 golden-set lessons, one
of 549 facts of the blind long-history set), and a quarantine of a true
lesson is the one mistake the screen must not make. ``python -m
evals.redteam`` reports what it adds.

A third, the reader (:mod:`memory.guard.reader`), is the embedding model
with its last two layers tuned on those attacks, look-alikes and ordinary
lessons: it reads the words that tell an attack from the warning that
shares its topic, and quarantines above a threshold no held-back
look-alike or ordinary lesson reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.guard import learned, reader, world
from memory.guard.normalise import (
    hidden_text,
    readings,
    spelled_words,
    spliced_words,
    spoofed_names,
)
from memory.guard.rules import RULES, match, reason
from memory.guard.steering import READER

__all__ = ["RULES", "Screening", "screen", "screen_lesson", "screen_read", "screen_vector"]


@dataclass(frozen=True)
class Screening:
    blocked: bool
    rule: str = ""  # which rule matched (see RULES), or "learned" or "reader"
    reason: str = ""  # one sentence for curators; never echoes the payload
    # the learned signal's ingredients of the text, when read with the rules
    # (an import's screening process: ``screen_many``); () when not
    ingredients: tuple[bool, ...] = ()
    # the learned signal's probability, when it read the lesson and let it
    # through (``screen_vector``): what decides whether the reader reads it
    score: float | None = None


def _blocked(rule: str) -> Screening:
    return Screening(True, rule, f"Quarantined: {reason(rule)}.")


def screen(content: str, situation: str = "") -> Screening:
    """Screen a lesson (its content and situation) by its text alone."""
    raw = f"{content}\n{situation}"
    if hidden_text(raw) or spliced_words(raw):
        return _blocked("hidden-text")
    if spoofed_names(raw):
        return _blocked("spoofed-name")
    for how, text in readings(raw):
        rule = match(text)
        if rule is not None:
            return _blocked(rule if how == "plain" else "encoded-payload")
    rule = world.match(raw)
    if rule is not None:
        return _blocked(rule)
    if spelled_words(raw):  # a phrase spelled apart, whatever it says
        return _blocked("hidden-text")
    return Screening(False)


def screen_many(texts: Sequence[tuple[str, str]]) -> list[Screening]:
    """``screen`` for each (content, situation): what an import hands to a
    process of its own, screening one batch while the one before is written."""
    found = [screen(content, situation) for content, situation in texts]
    return [
        s if s.blocked else Screening(False, ingredients=learned.ingredients(f"{c}\n{sit}"))
        for s, (c, sit) in zip(found, texts, strict=True)
    ]


def to_embed(screenings: Sequence[Screening], missing: Sequence[bool]) -> list[int]:
    """The indexes of the lessons to embed: those without a vector (``missing``)
    that the rules let through — quarantined text is never embedded. The
    learn pipeline and an import's helper process both ask it."""
    return [
        i for i, (found, needed) in enumerate(zip(screenings, missing, strict=True))
        if needed and not found.blocked
    ]  # fmt: skip


def screen_vector(
    vector: Sequence[float], content: str, situation: str = "", held: Sequence[bool] = ()
) -> Screening:
    """The learned signal on a lesson's embedding (the learn pipeline asks
    it of each lesson the rules let through, once the lesson is embedded),
    obeyed only when the text turns to a reader at all (``READER``: an AI,
    "you", the user, a reply, instructions) — on its own it scored ordinary
    facts of sets it never saw past its threshold. ``held``: the text's
    ingredients when already read (``Screening.ingredients``)."""
    probability = learned.score(vector, f"{content}\n{situation}", held)
    if learned.past_threshold(probability) and any(
        READER.search(text) for _, text in readings(f"{content}\n{situation}")
    ):
        return Screening(True, "learned", "Quarantined: it reads like the known attacks.")
    return Screening(False, score=probability)


def screen_read(lessons: Sequence[tuple[str, str, float | None]]) -> list[Screening]:
    """The reader (``memory.guard.reader``: the model's last layers tuned on
    attacks and ordinary text) on lessons (content, situation, the learned
    signal's ``Screening.score``) the rules and the learned signal let
    through; what it flags — the content or the situation, each read on its
    own, as it was fitted — is quarantined under rule ``reader``. It reads
    only lessons the learned signal scores at least ``reader.READ_FROM``:
    one more pass of the model for a few in a hundred ordinary lessons
    rather than all of them."""
    texts = [
        (i, text)
        for i, (content, situation, score) in enumerate(lessons)
        if (score or 0.0) >= reader.READ_FROM
        for text in (content, situation)
        if text.strip()
    ]
    hits = reader.blocks([text for _, text in texts])
    flagged = {i for (i, _), hit in zip(texts, hits, strict=True) if hit}
    return [
        Screening(True, "reader", "Quarantined: the screen's tuned model reads it as an attack.")
        if i in flagged
        else Screening(False)
        for i in range(len(lessons))
    ]


def screen_lesson(content: str, situation: str, vector: Sequence[float] | None) -> Screening:
    """Both signals: the rules on the text, then (when the lesson has been
    embedded) the learned one on its vector."""
    found = screen(content, situation)
    if found.blocked or vector is None:
        return found
    return screen_vector(vector, content, situation)
