"""The offline judge: deterministic heuristics, no model calls.

For each candidate the judge analyses both lessons (:func:`analyse`: facts
with normalised units, content words with polarity, qualifiers, entities,
the grammatical subject, a prescribed order) and asks, in this order:

1. *Related at all?* A cosine similarity below ``MIN_SIMILARITY`` means
   novel; the similarity is a prior, never the only signal.
2. *Same subject?* Different named things (hosts, tools, environments,
   code spans, identifiers in the subject, in the lesson or its situation),
   a different qualifier in front of the same word inside the subject
   ("*billing* DB" vs "*staging* DB"), or a different frequency used as a
   name ("the *nightly* ETL job") mean a different subject: novel, however
   close the vectors are.
3. *Incompatible?* A fact of the same kind with another value (after
   normalising units, times and versions), a word with opposite polarity
   ("enabled"/"disabled", "required"/"not required", "never run"/"can run"),
   a reversed order ("X before Y" vs "Y before X"), another location, or
   another value of a one-valued setting ("the allkeys-lru *policy*"):
   contradicts, unless each grammatical subject has a word the other lesson
   never uses ("Service *billing* ..." vs "Service *search* ...") or the rest
   of the wording differs so much that the two lessons are about different
   conditions.
4. *Same claim?* No conflicts, no fact or object the new lesson adds, at
   most one swapped content word, and enough shared vocabulary (or a high
   similarity): duplicate. Otherwise novel.

Across candidates a confident duplicate wins (the knowledge is already
there); otherwise the most confident duplicate or contradiction; otherwise
the verdict is novel.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memory.guard.negation import AFTER_THE_VERB, negators
from memory.judge import lexicon as lx
from memory.judge.base import Candidate, Relation, Verdict
from memory.judge.facts import (
    INTERVAL,
    MOVES_PAST,
    QUANTITY,
    SOFT_DIMENSIONS,
    VERSION,
    WEEKDAY,
    Fact,
    day_range,
    describe,
    keys_match,
    same_value,
)
from memory.judge.statement import (
    CONTEXT_TYPES,
    LOCATION_TYPES,
    WEIGHT_CONTENT,
    Qualifier,
    Statement,
    analyse,
    analyse_pair,
)
from memory.judge.text import Kind, Role, is_verb, lemma, stem
from memory.language import other_language

# Below this cosine similarity a candidate is not considered at all.
MIN_SIMILARITY = 0.30
# Substituted vocabulary (weight on both sides) above which two lessons with a
# conflicting value are taken to state different facts, not to disagree.
SUBSTITUTION_DIFFERENT_FACT = 1.5
# Substituted vocabulary above which two agreeing lessons are not restatements
# (one swapped word is paraphrase; more is a different claim).
SUBSTITUTION_NOT_DUPLICATE = 1.0
# Vocabulary only the new lesson has, above which it adds something.
NEW_CONTENT_NOT_DUPLICATE = 2.5
# Shared vocabulary (as a share of the smaller lesson) needed for a duplicate.
MIN_COVERAGE_DUPLICATE = 0.5
# A duplicate at least this confident is preferred to any contradiction.
PREFERRED_DUPLICATE = 0.75
# Destructive readings of two candidates this close in confidence are ambiguous.
AMBIGUOUS_MARGIN = 0.1
# A contradiction read with less confidence than this is inserted as novel
# (safety by asymmetry: a wrong one supersedes or disputes a true lesson).
# On the blind batches 3-17 (2026-12-02) every contradiction the rules read
# below it was wrong (two values of different attributes, mostly).
MIN_CONTRADICTS = 0.65

# A restatement in another language, read from one equal value (two lift it
# by 0.06, three or more by 0.12).
CROSS_LANGUAGE_DUPLICATE = 0.62

_SINGLE_VALUED: frozenset[str] = frozenset(lemma(w) for w in lx.SINGLE_VALUED_HEADS)

# Entity types that can stand for one another when judging "different subject".
_TYPE_GROUPS: dict[str, str] = {"tech": "name", "name": "name"}


@dataclass
class Reading:
    """What one candidate is to the new lesson, and how sure the judge is."""

    relation: Relation
    confidence: float
    reason: str
    details: dict[str, float] = field(default_factory=dict)


def _clip(x: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return max(lo, min(hi, x))


def _weight(st: Statement, lemmas: Iterable[str]) -> float:
    return sum(st.content.get(lem, 0.0) for lem in lemmas)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _group(facts: list[Fact]) -> dict[tuple[str, str], list[Fact]]:
    groups: dict[tuple[str, str], list[Fact]] = {}
    for f in facts:
        groups.setdefault((f.dim, f.key), []).append(f)
    return groups


@dataclass
class _FactComparison:
    agree: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    conflict_dims: list[str] = field(default_factory=list)  # each conflict's dimension
    new_only: list[tuple[str, str]] = field(default_factory=list)
    cand_only: list[tuple[str, str]] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)  # keys of compared groups, both spellings
    ranges: list[str] = field(default_factory=list)  # values bounded in opposite directions
    # of them, those bounded at the same value: the two sides of one threshold
    thresholds: list[str] = field(default_factory=list)
    agree_hard: int = 0  # agreeing groups outside the soft dimensions


def _compare_facts(new: list[Fact], cand: list[Fact], ranges: bool = True) -> _FactComparison:
    """Pair facts by dimension and key, then compare their values (values
    bounded in opposite directions are two ranges, unless ``ranges`` is off)."""
    out = _FactComparison()
    gn, gc = _group(new), _group(cand)
    # a version with no tool named ("v2.3.1") matches the other side's only version
    for mine, theirs in ((gn, gc), (gc, gn)):
        if (VERSION, "") in mine:
            keys = [k for k in theirs if k[0] == VERSION]
            if len(keys) == 1 and keys[0] not in mine:
                mine[keys[0]] = mine.pop((VERSION, ""))
    # "connection" counts the same thing as "max_connections"
    for key in list(gn):
        if key in gc:
            continue
        matches = [k for k in gc if k[0] == key[0] and k not in gn and keys_match(k[1], key[1])]
        if len(matches) == 1:
            gn[matches[0]] = gn.pop(key)
            out.keys |= {key[1], matches[0][1]}
    for key, facts_n in gn.items():
        facts_c = gc.get(key)
        if facts_c is None:
            out.new_only.append(key)
            continue
        out.keys.add(key[1])
        if ranges and _opposite_bounds(facts_n, facts_c):
            # "claims under 25 EUR" and "claims over 1000 EUR": two ranges, two subjects
            out.ranges.append(f"{', '.join(describe(f) for f in facts_n)} vs "
                              f"{', '.join(describe(f) for f in facts_c)}")  # fmt: skip
            if any(same_value(a, b) for a in facts_n for b in facts_c):
                out.thresholds.append(describe(facts_n[0]))
            continue
        n_in_c = [any(same_value(a, b) for b in facts_c) for a in facts_n]
        c_in_n = [any(same_value(b, a) for a in facts_n) for b in facts_c]
        said_n = ", ".join(describe(f) for f in facts_n)
        said_c = ", ".join(describe(f) for f in facts_c)
        if all(n_in_c) and all(c_in_n):
            same = said_n if said_n.lower() == said_c.lower() else f"{said_n} = {said_c}"
            out.agree.append(same)
            out.agree_hard += key[0] not in SOFT_DIMENSIONS
        elif not any(n_in_c) or (len(facts_n) == len(facts_c)):
            out.conflicts.append(f"{said_n} vs {said_c}")
            out.conflict_dims.append(key[0])
        else:
            out.agree.append(said_n)
    out.cand_only += [k for k in gc if k not in gn]
    return out


def _opposite_bounds(new: list[Fact], cand: list[Fact]) -> bool:
    bounds_n, bounds_c = {f.bound for f in new}, {f.bound for f in cand}
    return len(bounds_n) == len(bounds_c) == 1 and bounds_n == {-x for x in bounds_c} != {0}


def _context_entities(st: Statement, situation: Statement | None) -> dict[str, str]:
    found = {lem: t for lem, t in st.entities.items() if t in CONTEXT_TYPES}
    if situation is not None:
        found.update({lem: t for lem, t in situation.entities.items() if t in CONTEXT_TYPES})
    return found


def _all_lemmas(st: Statement, situation: Statement | None) -> set[str]:
    lemmas = set(st.content)
    if situation is not None:
        lemmas |= set(situation.content)
    return lemmas


def _subject_conflict(
    new: Statement,
    cand: Statement,
    new_sit: Statement | None,
    cand_sit: Statement | None,
) -> str | None:
    """Why the two lessons are about different subjects, or None if they are not."""
    lemmas_n, lemmas_c = _all_lemmas(new, new_sit), _all_lemmas(cand, cand_sit)
    ents_n, ents_c = _context_entities(new, new_sit), _context_entities(cand, cand_sit)
    only_n = {lem: t for lem, t in ents_n.items() if lem not in lemmas_c}
    only_c = {lem: t for lem, t in ents_c.items() if lem not in lemmas_n}
    for lem_n, t_n in sorted(only_n.items()):
        for lem_c, t_c in sorted(only_c.items()):
            if _TYPE_GROUPS.get(t_n, t_n) == _TYPE_GROUPS.get(t_c, t_c):
                return f"{new.say(lem_n)} vs {cand.say(lem_c)}"
    subj_n = sorted(e for e in new.subject_entities if e not in lemmas_c)
    subj_c = sorted(e for e in cand.subject_entities if e not in lemmas_n)
    if subj_n and subj_c:
        return f"{new.say(subj_n[0])} vs {cand.say(subj_c[0])}"
    for q_n, q_c in _qualifier_differences(new, cand, lemmas_n, lemmas_c):
        if q_n.in_subject or q_c.in_subject:
            return _say_qualifiers(new, cand, q_n, q_c)
    return (
        _compound_names_differ(new, cand)
        or _sites_apart(new, cand)
        or _lettered_apart(new, cand)
        or _identifiers_apart(new, cand)
        or _valued_apart(new, cand)
        or _kinds_apart(new, cand)
    )


_NUMERAL_AFTER = re.compile(r"\b([A-Za-z][\w-]* [A-Za-z][\w-]*) (II|III|IV)\b")


def _numeral_added(a: str, b: str) -> str | None:
    """ "the property quota share II" beside "the property quota share": a
    sibling told apart by a Roman numeral the other lesson's name lacks."""
    for found in _NUMERAL_AFTER.finditer(a):
        name = re.escape(found.group(1))
        if re.search(rf"\b{name}\b(?! (?:II|III|IV)\b)", b, re.IGNORECASE) and not re.search(
            rf"\b{name} {found.group(2)}\b", b
        ):
            return f"{found.group()} vs {found.group(1)}"
    return None


def _kinds_apart(new: Statement, cand: Statement) -> str | None:
    """One thing of two kinds that exclude each other: "the *internal* ALB"
    and "the *external* ALB", "*non-critical* layers" and "*critical* layers"."""
    lemmas_n, lemmas_c = set(new.content), set(cand.content)
    for q_n, q_c in _qualifier_differences(new, cand, lemmas_n, lemmas_c):
        if _contrasted(new, cand, [q_n.modifier], [q_c.modifier]):
            return _say_qualifiers(new, cand, q_n, q_c)
    return (
        _kind_negated(new.text, cand.text)
        or _kind_negated(cand.text, new.text)
        or _numeral_added(new.text, cand.text)
        or _numeral_added(cand.text, new.text)
    )


_NON_KIND = re.compile(r"\bnon[- ]?([a-z]{3,})((?: [a-z]+){1,2})", re.IGNORECASE)


def _kind_negated(a: str, b: str) -> str | None:
    """ "non-critical (implant) layers" beside "critical layers": the kind's
    other side, of the same thing (not "non-heap memory" beside "max heap")."""
    for found in _NON_KIND.finditer(a):
        kind, things = found.group(1).lower(), set(found.group(2).lower().split())
        if re.search(rf"(?<!non-)(?<!non )(?<!non)\b{kind}\b", a, re.IGNORECASE):
            continue
        of_kind = rf"(?<!non-)(?<!non )(?<!non)\b{kind}((?: [a-z]+){{1,2}})"
        for bare in re.finditer(of_kind, b, re.IGNORECASE):
            if things & set(bare.group(1).lower().split()):
                return f"non-{kind} vs {kind}"
    return None


_NAME_PARTS = re.compile(r"[\s\-_]+")
# a number, a letter, or a number and a letter ("14a" of "route 14A", "b12")
_NUMBERED_PART = re.compile(r"\d+|[a-z]|\d+[a-z]|[a-z]\d+")
_NUMBERED_PARTS = 3  # "cluster 3-17-b": the most numbers and letters after a shared name


def _name_difference(
    parts_a: list[str], parts_b: list[str]
) -> tuple[int, int, list[str], list[str]]:
    """How two names, split into parts, differ: how many parts they share
    at the start and at the end, and what is left of each."""
    head = 0
    while head < min(len(parts_a), len(parts_b)) and parts_a[head] == parts_b[head]:
        head += 1
    rest_a, rest_b, tail = parts_a[head:], parts_b[head:], 0
    while rest_a and rest_b and rest_a[-1] == rest_b[-1]:
        rest_a, rest_b, tail = rest_a[:-1], rest_b[:-1], tail + 1
    return head, tail, rest_a, rest_b


def _numbered_apart(a: str, b: str) -> bool:
    """Whether two names are one name told apart by numbers or letters:
    "service 1" / "service 0", "orion cluster" / "orion-b cluster",
    "payments-a" / "payments-b", "cluster 3-17" / "cluster 5-102", "route 14A" / "route 14"."""
    head, tail, parts_a, parts_b = _name_difference(
        _NAME_PARTS.split(a.lower()), _NAME_PARTS.split(b.lower())
    )
    return (
        head + tail > 0
        and (parts_a or parts_b) != []
        and max(len(parts_a), len(parts_b)) <= _NUMBERED_PARTS
        and all(_NUMBERED_PART.fullmatch(x) for x in [*parts_a, *parts_b])
    )


def named_apart(new: Statement, cand: Statement) -> str | None:
    """How the two lessons' subjects are named apart — by values that differ
    ("the nightly ETL" and "the hourly ETL") or by a number or a letter
    ("billing service 1" and "billing service 0", "orion" and "orion-b"),
    or identifiers by a word ("orders_clean" and "orders_raw", wherever they
    stand; not cloud regions, which are values): two things, whatever else
    the lessons share — or None. A name with
    hyphenated numbers ("cluster 3-17") names a thing wherever it stands
    (the subject is not always read: "the metrics *store* of cluster 3-17"
    reads "store" as the verb); a single number is a subject's name only
    in the subject ("the build needs Node 18" against "Node 20" is a
    change of version)."""
    names_n, names_c = _naming_entities(new), _naming_entities(cand)
    for e_n in sorted(names_n - names_c):
        for e_c in sorted(names_c - names_n):
            if _numbered_apart(e_n, e_c):
                return f"{new.say(e_n)} vs {cand.say(e_c)}"
    return (
        _lettered_apart(new, cand)
        or _identifiers_apart(new, cand)
        or _environments_apart(new, cand)
        or _valued_apart(new, cand)
        or _sites_apart(new, cand)
        or _kinds_apart(new, cand)
    )


# A thing labelled by a capital letter after its noun ("spinning hall A",
# "rink B", "type O", "plan C"): mid-sentence, a capital letter is no
# article. ("I" is a pronoun; "A&E", "A/B" are other things.)
_LETTER_LABEL = re.compile(r"\b([A-Za-z][a-z-]{2,})\s+([A-HJ-Z])\b(?![&/'’.-])")
_NOT_LABELLED = frozenset(
    "the and or of to in at on for with from by than then but nor plan".split()  # noqa: SIM905
)


def _letter_labels(text: str) -> dict[str, str]:
    return {
        m.group(1).lower(): m.group(2)
        for m in _LETTER_LABEL.finditer(text)
        if m.group(1).lower() not in _NOT_LABELLED
    }


def _lettered_apart(new: Statement, cand: Statement) -> str | None:
    """The same noun labelled by two letters: two things ("hall A" and "hall B")."""
    labels_n, labels_c = _letter_labels(new.text), _letter_labels(cand.text)
    for head in sorted(labels_n.keys() & labels_c.keys()):
        if labels_n[head] != labels_c[head]:
            return f"{head} {labels_n[head]} vs {head} {labels_c[head]}"
    return None


# A requirement written as a permission withheld until its condition
# ("merging stays *blocked until* release-eng signs off") and the same
# requirement stated ("an approval from release-eng is *mandatory* for
# every pull request"): one rule, which the pair reader can read as a
# contradiction (blind-48: 0.94–0.96).
_WITHHELD_UNTIL = re.compile(
    r"\b(?:blocked|not (?:be )?(?:allowed|permitted|used|operated|started|merged|deployed|released)"
    r"|cannot|can't|may not|must not|mustn't|(?:is|are) locked)\b[^.;]{0,80}\buntil\b",
    re.IGNORECASE,
)
_REQUIRED = re.compile(
    r"\b(?:required|requires?|mandatory|must (?:be|have|get)|needs?|only (?:after|once|when)"
    r"|(?:is|are) needed)\b",
    re.IGNORECASE,
)
_NOT_REQUIRED = re.compile(
    r"\b(?:not|no longer|never|without)\b[^.;]{0,20}"
    r"\b(?:required|requires?|mandatory|needed|needs?)\b"
    r"|\b(?:optional|no (?:\w+ )?(?:needed|required))\b",
    re.IGNORECASE,
)


def condition_restated(new: str, cand: str) -> bool:
    """One lesson withholds a permission until a condition, the other states
    a requirement and nothing optional: the same rule written two ways, or
    two requirements — never one rule and its reversal."""
    return any(
        _WITHHELD_UNTIL.search(a)
        and not _WITHHELD_UNTIL.search(b)
        and _REQUIRED.search(b)
        and not (_NOT_REQUIRED.search(a) or _NOT_REQUIRED.search(b))
        for a, b in ((new, cand), (cand, new))
    )


# a verb forbidden before its object ("never *let* it dry out", "do not
# *stack* them") and the word that opens a sentence
_FORBIDDEN_VERB = re.compile(
    r"\b(?:never|don't|do not|must not|mustn't|should not|shouldn't) ([a-z]+)"
    r" (?:it|them|the|a|an|any|this|that|these|those|your|our)\b",
    re.IGNORECASE,
)
_INSTRUCTION_VERB = re.compile(r"(?:^|[.!?]\s+)([A-Za-z]+) ")


def told_and_forbidden(new: str, cand: str) -> bool:
    """One lesson opens an instruction with a verb the other forbids: "Let
    waterlogged wood air-dry on site" against "Keep it wet … and never let
    it dry out" — whatever else they share, no restatement."""
    return any(
        {m.group(1).lower() for m in _FORBIDDEN_VERB.finditer(b)}
        & {m.group(1).lower() for m in _INSTRUCTION_VERB.finditer(a)}
        for a, b in ((new, cand), (cand, new))
    )


# A lesson scoped, first thing, to a named place ("At the *Shanghai*
# warehouse, …", "*Shenzhen* warehouse: …", "In the Lyon office, …").
_SITE_OPENER = re.compile(
    r"^\s*(?:(?:at|in|for|on) )?(?:the |our )?((?:[A-Z][\w'-]+ ){1,2}?)"
    r"(warehouse|plant|site|office|campus|hospital|factory|depot|store|branch|data ?cent(?:er|re)"
    r"|facility|lab|mill|port|airport|base|clinic|ward|refinery|substation)s?\b\s*[:,]",
    re.IGNORECASE,
)


# A place named by a capitalised word before its kind, inside the sentence
# ("Cascade on the *Lower Field*", "the *North Pier*")
_NAMED_PLACE = re.compile(
    r"(?<=[a-z,;:] )(?:the )?([A-Z][a-z]+) (Field|Block|Paddock|Yard|Pier|Berth|Dock|Wing|Ward"
    r"|Hall|Gate|Terminal|Hangar|Pond|Bog|Orchard|Vineyard|Meadow|Pasture|Quarry|Pit|Shed|Barn)\b"
)


def _places(text: str) -> set[tuple[str, str]]:
    """The places a lesson names, each as (its kind, its name): the one it
    opens on ("At the Shanghai warehouse, …") and those named inside it
    ("… on the Lower Field …")."""
    found = {(m.group(2).lower(), m.group(1)) for m in _NAMED_PLACE.finditer(text)}
    opener = _SITE_OPENER.match(text)
    if opener is not None and opener.group(1).strip()[:1].isupper():
        found.add((opener.group(2).lower(), opener.group(1).strip()))
    return found


def _sites_apart(new: Statement, cand: Statement) -> str | None:
    """Each lesson names a place of the same kind by another name that the
    other never uses ("At the Shanghai warehouse, …" and "Shenzhen
    warehouse: …"; "Cascade on the Lower Field …" and "… the Top Field …"):
    two places, however alike the rest — or None."""
    for kind, name_n in sorted(_places(new.text)):
        for kind_c, name_c in sorted(_places(cand.text)):
            if (
                kind == kind_c
                and name_n.lower() != name_c.lower()
                and name_n.lower() not in cand.text.lower()
                and name_c.lower() not in new.text.lower()
            ):
                return f"{name_n} vs {name_c}"
    return None


def _environments_apart(new: Statement, cand: Statement) -> str | None:
    """Each lesson names a deployment environment the other never does
    ("pre-production" and "production"): how they differ, or None."""
    envs_n = {e for e, t in new.entities.items() if t == "environment"}
    envs_c = {e for e, t in cand.entities.items() if t == "environment"}
    only_n, only_c = sorted(envs_n - envs_c), sorted(envs_c - envs_n)
    if only_n and only_c:
        return f"{new.say(only_n[0])} vs {cand.say(only_c[0])}"
    return None


# a name joined by hyphens or underscores ("billing-events-dlq")
_JOINED_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+\b")


def _joined_names(st: Statement) -> set[str]:
    """Names joined by hyphens or underscores, however the entity reader
    took them (not cloud regions, nor ranges of days)."""
    return {
        name
        for name in _JOINED_NAME.findall(st.text.lower())
        if not _REGION.fullmatch(name) and day_range(name) is None
    }


def _identifiers_apart(new: Statement, cand: Statement) -> str | None:
    """Identifiers one lesson names and the other does not, told apart by a
    word (``_worded_apart``): how they differ, or None."""
    ids_n, ids_c = _identifiers(new), _identifiers(cand)
    for e_n in sorted(ids_n - ids_c):
        for e_c in sorted(ids_c - ids_n):
            if _worded_apart(e_n, e_c):
                return f"{new.say(e_n)} vs {cand.say(e_c)}"
    # hyphenated words are not all names ("self-rescuer", "latency-critical"):
    # only a word added to one is read as another thing
    joined_n, joined_c = _joined_names(new), _joined_names(cand)
    for e_n in sorted(joined_n - joined_c):
        for e_c in sorted(joined_c - joined_n):
            if _extended_by_word(e_n, e_c) or _numbered_apart(e_n, e_c):
                return f"{e_n} vs {e_c}"
    return _regions_apart(new, cand)


def _regions_apart(new: Statement, cand: Statement) -> str | None:
    """Each lesson's subject is qualified by a cloud region the other's is
    not ("the egress proxy in *eu-central-1*" and "… in *eu-west-1*"): two
    things. A region stated after the verb is a value ("the primary runs
    in eu-west-1"): two of those are a change, and still read."""
    regions_n = sorted(e for e in new.subject_entities if _REGION.fullmatch(e))
    regions_c = sorted(e for e in cand.subject_entities if _REGION.fullmatch(e))
    if regions_n and regions_c and set(regions_n).isdisjoint(regions_c):
        return f"{new.say(regions_n[0])} vs {cand.say(regions_c[0])}"
    return None


# A cloud region is a value a lesson states ("the primary runs in
# eu-central-1"), not a name: two regions are a change, not two things.
_REGION = re.compile(r"(?:[a-z]{2}(?:-gov)?-[a-z]+-\d+[a-z]?|[a-z]+-[a-z]+\d)")
_ID_PARTS = re.compile(r"[-_.]+")


def _identifiers(st: Statement) -> set[str]:
    """Names written as identifiers or hosts ("orders_clean", "api.example.net")."""
    return {
        e
        for e, t in st.entities.items()
        if t in ("ident", "host") and _ID_PARTS.search(e) and not _REGION.fullmatch(e)
    }


def _worded_apart(a: str, b: str) -> bool:
    """Whether two identifiers are one name told apart by a word:
    "orders_clean" / "orders_raw", "clickstream-enriched" /
    "clickstream-raw", "api.example.net" / "api.example.com" — or one
    name and that name with a word more (``_extended_by_word``)."""
    head, _, rest_a, rest_b = difference = _id_difference(a, b)
    if len(rest_a) == len(rest_b) == 1:
        return head > 0 and rest_a[0].isalpha() and rest_b[0].isalpha() and rest_a != rest_b
    return _word_added(*difference)


def _id_difference(a: str, b: str) -> tuple[int, int, list[str], list[str]]:
    return _name_difference(_ID_PARTS.split(a.lower()), _ID_PARTS.split(b.lower()))


def _extended_by_word(a: str, b: str) -> bool:
    """Whether one name is the other with a word more ("billing-events" /
    "billing-events-dlq"; not a generic word: "payments-api" /
    "payments-api-svc")."""
    return _word_added(*_id_difference(a, b))


def _word_added(head: int, tail: int, rest_a: list[str], rest_b: list[str]) -> bool:
    """What is left of two names (``_name_difference``) is one word more on one side."""
    extra = rest_a or rest_b
    return (
        head + tail > 0
        and not (rest_a and rest_b)
        and len(extra) == 1
        and extra[0].isalpha()
        and len(extra[0]) > 1
        and extra[0] not in _GENERIC_SUFFIXES
    )


_SITUATION_WORD = re.compile(r"[^\W_]+")
_GLUE = frozenset(
    ["a", "an", "the", "for", "of", "in", "on", "at", "to", "and", "with", "by", "from"]
)


def scope_swapped(situation_n: str, situation_c: str) -> str | None:
    """Two situations that are one phrase with one name swapped
    ("Crew rostering for the *Lisbon* base" and "… the *Porto* base",
    "*Short*-haul pilot rostering" and "*Long*-haul …", "Claims handling for
    HomeShield *Plus*" and "… *Basic*"): the writer scoped each lesson to one
    of two things, so they are about different subjects however alike the
    rest reads. How they differ ("Lisbon vs Porto"), or None — also for a
    situation told in other words, where most of the words differ."""
    words_n = _SITUATION_WORD.findall(situation_n)
    words_c = _SITUATION_WORD.findall(situation_c)
    stems_n = [stem(w.lower()) for w in words_n]
    stems_c = [stem(w.lower()) for w in words_c]
    head = 0
    while head < min(len(stems_n), len(stems_c)) and stems_n[head] == stems_c[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(stems_n), len(stems_c)) - head and stems_n[-1 - tail] == stems_c[-1 - tail]
    ):
        tail += 1
    own_n = words_n[head : len(words_n) - tail]
    own_c = words_c[head : len(words_c) - tail]
    shared = [w for w in stems_n[:head] + stems_n[len(stems_n) - tail :] if w not in _GLUE]
    if not (len(own_n) == len(own_c) == 1 and len(shared) >= 2):
        return None
    # names, not the activity told in other words ("*triaging* property
    # claims" and "*assigning* …", "self-serve *plans*" and "… *subscriptions*")
    if not all(w[:1].isupper() or any(ch.isdigit() for ch in w) for w in own_n + own_c):
        return None
    return f"{own_n[0]} vs {own_c[0]}"


_HYPHENATED_NUMBERS = re.compile(r"\d+(?:-\d+)+$")


def _naming_entities(st: Statement) -> frozenset[str]:
    """The subject's entities and every name ending in hyphenated numbers."""
    return st.subject_entities | {e for e in st.entities if _HYPHENATED_NUMBERS.search(e)}


def _valued_apart(new: Statement, cand: Statement) -> str | None:
    """Subjects named by values that differ: "the nightly ETL" and "the hourly ETL"."""
    for f_n in [*new.subject_facts, *_naming_frequencies(new)]:
        for f_c in [*cand.subject_facts, *_naming_frequencies(cand)]:
            if f_n.dim == f_c.dim and not same_value(f_n, f_c):
                return f"{describe(f_n)} vs {describe(f_c)}"
    return None


# words after a size that tell the measure rather than name a thing
_MEASURE_TOLD = lx.LENGTH_CUES | {
    "clear", "free", "thick", "thin", "narrow", "long", "short", "heavy", "light", "of", "in",
}  # fmt: skip


def _naming_frequencies(st: Statement) -> list[Fact]:
    """Values used as part of a name: "the *nightly* ETL", "the *hourly*
    incremental job", "the *-80 °C* freezer" (a frequency or a temperature
    right before a noun), as opposed to "backups run nightly"."""
    out = []
    for f in st.facts:
        frequency = f.dim == INTERVAL and f.text.lower() in lx.FREQUENCY_WORDS
        temperature = f.dim == QUANTITY and f.key == "[temperature]"  # "the -80 °C freezer"
        # a size before a thing ("the 20 lb washers", "the 9 m dish"), not a
        # measure told of it ("1.8 m high", "3 m apart")
        size = f.dim == QUANTITY and f.key in ("[mass]", "[length]", "[length] ** 3")
        if not (frequency or temperature or size):
            continue
        # the word after the fact's own words ("-80 degc *freezer*")
        end = f.pos + len(f.text.split())
        after = st.tokens[end] if f.pos >= 0 and end < len(st.tokens) else None
        if (
            after is not None
            and after.kind is Kind.WORD
            and after.role is Role.CONTENT
            and not (after.verb or after.aux or is_verb(after.lemma))
            and not (f.dim == QUANTITY and after.raw.lower() in _MEASURE_TOLD)
        ):
            out.append(f)
    return out


# Suffixes that name the same thing as the bare word ("checkout-svc" is the
# checkout service).
_GENERIC_SUFFIXES = frozenset(
    {"svc", "service", "srv", "server", "app", "api", "cluster", "db", "team", "job", "worker"}
)
_COMPOUND = re.compile(r"\b([a-z][a-z0-9]*)-([a-z0-9]+)\b")


def _hyphenated(text: str) -> list[tuple[str, str]]:
    """(head, tail) of each hyphenated word but a range of days ("mon-fri")."""
    return [(h, t) for h, t in _COMPOUND.findall(text) if day_range(f"{h}-{t}") is None]


def _compounds(text: str) -> dict[str, str]:
    """Hyphenated names in a lesson, head -> suffix ("orion-b" -> orion: b)."""
    found: dict[str, str] = {}
    for head, tail in _hyphenated(text.lower()):
        if tail not in _GENERIC_SUFFIXES:
            found.setdefault(head, tail)
    return found


def _compound_names_differ(new: Statement, cand: Statement) -> str | None:
    """ "orion-b" and "orion", "payments-a" and "payments-b",
    "clickstream-enriched" and "clickstream": names that differ by a suffix
    are different things. A name written spaced ("search api") matches its
    hyphenated form."""
    text_n, text_c = new.text.lower(), cand.text.lower()
    tails_n = {tail: head for head, tail in _hyphenated(text_n)}
    for head_c, tail in _hyphenated(text_c):
        head_n = tails_n.get(tail)
        if (
            head_n is not None
            and head_n != head_c
            and max(len(head_n), len(head_c)) <= 2  # codes, not values ("allkeys-lru")
            and f"{head_c}-{tail}" not in text_n
        ):
            return f"{head_n}-{tail} vs {head_c}-{tail}"  # "A-class" and "C-class"
    for mine, theirs, text_theirs, flip in (
        (_compounds(text_n), _compounds(text_c), text_c, False),
        (_compounds(text_c), _compounds(text_n), text_n, True),
    ):
        for head, tail in mine.items():
            following = re.findall(rf"\b{re.escape(head)}[ -]([a-z0-9]+)", text_theirs)
            if any(stem(word) == stem(tail) or f"{word}s" == tail or f"{tail}s" == word
                   for word in following):  # fmt: skip
                # "force-pushing" and "force push", "search-api" and "search
                # API", "walk-ins" and "walk-in" (a short plural)
                continue
            other = theirs.get(head)
            if other is not None or re.search(rf"\b{re.escape(head)}\b", text_theirs):
                said_mine = f"{head}-{tail}"
                said_theirs = f"{head}-{other}" if other is not None else head
                return f"{said_theirs} vs {said_mine}" if flip else f"{said_mine} vs {said_theirs}"
    return None


def _situation_conflict(
    new: Statement,
    cand: Statement,
    new_sit: Statement | None,
    cand_sit: Statement | None,
) -> str | None:
    """The situation is part of the subject: "port 9090" under store key
    *grafana* and "port 8080" under *prometheus* are about two things. When
    both lessons name a situation and each situation has a distinctive word
    the other lesson never uses (in its content or situation), they are
    about different subjects."""
    if new_sit is None or cand_sit is None:
        return None
    lemmas_n, lemmas_c = _all_lemmas(new, new_sit), _all_lemmas(cand, cand_sit)
    own_n = _distinctive(new_sit, lemmas_c)
    own_c = _distinctive(cand_sit, lemmas_n)
    # one swapped word ("replica" / "replication") is paraphrase; a name or
    # two words of its own on each side is another situation, and so is
    # one word of a kind that excludes the other's ("hourly" / "salaried")
    if _name_weight(new_sit, own_n) >= 1.5 and _name_weight(cand_sit, own_c) >= 1.5:
        return f"under {new_sit.say(own_n[0])} vs under {cand_sit.say(own_c[0])}"
    contrast = _contrasted(new_sit, cand_sit, own_n, own_c)
    return f"under {contrast}" if contrast else None


def _contrast_group(st: Statement, lemma: str) -> int | None:
    word = st.say(lemma).lower()
    for k, group in enumerate(lx.CONTRASTS):
        if word in group or lemma in group:
            return k
    return None


def _contrasted(
    new: Statement, cand: Statement, own_n: Iterable[str], own_c: Iterable[str]
) -> str | None:
    """Two words of one kind that excludes the other, one on each side
    (each absent from the other lesson), as "a vs b"."""
    groups_c = {_contrast_group(cand, lem): lem for lem in own_c}
    for lem in own_n:
        k = _contrast_group(new, lem)
        if k is not None and k in groups_c:
            return f"{new.say(lem)} vs {cand.say(groups_c[k])}"
    return None


def _same_situation(new_sit: Statement | None, cand_sit: Statement | None) -> bool:
    """Both lessons name a situation, and they are the same one (most of
    their vocabulary shared)."""
    if new_sit is None or cand_sit is None:
        return False
    words_n, words_c = set(new_sit.content), set(cand_sit.content)
    if not words_n or len(words_n & words_c) / len(words_n | words_c) < 0.6:
        return False
    # most words shared, but one of them negated ("recently transfused
    # patients" and "not recently transfused"), or a shared noun qualified
    # otherwise ("station locker sites" and "supermarket locker sites")
    if any(
        new_sit.signs.get(w) and cand_sit.signs.get(w) and new_sit.signs[w] != cand_sit.signs[w]
        for w in words_n & words_c
    ):
        return False
    # or one of them a phase of the other ("Kerneval silo - fumigation" and
    # "Kerneval silo - after fumigation")
    if _phases(new_sit.text) != _phases(cand_sit.text):
        return False
    return not _qualifier_differences(new_sit, cand_sit, words_n, words_c)


_PHASE = re.compile(r"\b(after|before|during|following|prior to|post|pre)[- ]([a-z]+)", re.I)


_SAME_PHASE = {"prior to": "before", "pre": "before", "following": "after", "post": "after"}


def _phases(text: str) -> set[tuple[str, str]]:
    """The phases a situation names ("after fumigation": (after, fumigation)),
    "prior to" and "pre" read as "before", "following" and "post" as "after"."""
    return {
        (_SAME_PHASE.get(m.group(1).lower(), m.group(1).lower()), m.group(2).lower())
        for m in _PHASE.finditer(text)
    }


def _name_weight(st: Statement, lemmas: list[str]) -> float:
    """Vocabulary weight where a capitalised word ("Netherlands", "France")
    counts as a name — not the verb a situation opens on, capitalised only
    because it opens the text ("Deciding which maples to tap", "Choosing
    trees to tap")."""
    return sum(max(st.content.get(lem, 0.0), 1.5 if _a_name(st, lem) else 0.0) for lem in lemmas)


def _a_name(st: Statement, lemma: str) -> bool:
    said = st.say(lemma)
    if not said[:1].isupper():
        return False
    return not (said.endswith("ing") and said[1:].islower() and st.text.lstrip().startswith(said))


def _distinctive(st: Statement, other_lemmas: set[str]) -> list[str]:
    return sorted(
        w for w, weight in st.content.items() if weight >= WEIGHT_CONTENT and w not in other_lemmas
    )


def _qualifier_differences(
    new: Statement, cand: Statement, lemmas_n: set[str], lemmas_c: set[str]
) -> list[tuple[Qualifier, Qualifier]]:
    """Pairs of different qualifiers in front of the same word.

    "*staging* DB" vs "*billing* DB". A qualifier only counts when the other
    lesson does not use the word anywhere ("the DB for staging").
    """
    out = []
    for q_n in new.qualifiers:
        for q_c in cand.qualifiers:
            if (
                q_n.head == q_c.head
                and q_n.modifier != q_c.modifier
                and q_n.modifier not in lemmas_c
                and q_c.modifier not in lemmas_n
            ):
                out.append((q_n, q_c))
    return out


def _say_qualifiers(new: Statement, cand: Statement, q_n: Qualifier, q_c: Qualifier) -> str:
    return (
        f"{new.say(q_n.modifier)} {new.say(q_n.head)} vs {cand.say(q_c.modifier)} "
        f"{cand.say(q_c.head)}"
    )


def _polarity_conflicts(new: Statement, cand: Statement) -> list[str]:
    """Words used with opposite polarity ("enabled"/"disabled", "run"/"never run").

    Compared sentence by sentence, so that "Never use X. Use Y instead." still
    contradicts "X may be used"; the two sentences must share another word.
    """
    out: list[str] = []
    for k_n, sent_n in enumerate(new.sentence_signs):
        for k_c, sent_c in enumerate(cand.sentence_signs):
            shared = set(sent_n) & set(sent_c)
            for lem in sorted(shared):
                if lem in new.entities or lem in cand.entities:
                    continue  # "no EC2 instance ..." quantifies a name; it negates nothing
                sn, sc = sent_n[lem], sent_c[lem]
                if (sn == {-1} and _one_prohibition(new, k_n, sent_n, sent_c)) or (
                    sc == {-1} and _one_prohibition(cand, k_c, sent_c, sent_n)
                ):
                    continue
                if _negated_bound(new, lem, sn) or _negated_bound(cand, lem, sc):
                    continue  # "must not be loaded beyond 1,100 lb": a maximum load
                if len(sn) == 1 and len(sc) == 1 and sn != sc and len(shared) > 1:
                    said_n = "not " if -1 in sn else ""
                    said_c = "not " if -1 in sc else ""
                    conflict = f"{said_n}{new.say(lem)} vs {said_c}{cand.say(lem)}"
                    if conflict not in out:
                        out.append(conflict)
    return out


_PAST_A_BOUND = r"(?:beyond|above|over|more than|past|in excess of|below|under|less than)"


def _negated_bound(st: Statement, lemma: str, signs: set[int]) -> bool:
    """The word is negated only as the verb of a bound ("must not be *loaded*
    beyond 1,100 lb", "never *heated* above 60 °C"): a limit, no prohibition."""
    if signs != {-1}:
        return False
    said = re.escape(st.say(lemma))
    bound = rf"\b{said}\s+(?:to |at )?{_PAST_A_BOUND}\s+(?:about |around |roughly )?\d"
    return bool(re.search(bound, st.text))


def _one_prohibition(
    st: Statement, sentence: int, signs: dict[str, set[int]], other: dict[str, set[int]]
) -> bool:
    """Whether a word negated by the "No"/"Never" that ``st``'s sentence
    opens with stands against the same word under a prohibition in the
    other ("forbidden", "not allowed"): "No tower climbs when the wind is
    above 20 m/s" is "climbing a tower is forbidden if the wind exceeds
    20 m/s", one rule told two ways."""
    if other.get("allow") != {-1} or "allow" in signs:
        return False
    starts = [0] + [i + 1 for i, tok in enumerate(st.tokens[:-1])
                    if tok.kind is Kind.PUNCT and tok.raw in ".;!?"]  # fmt: skip
    return sentence < len(starts) and st.tokens[starts[sentence]].raw.lower() in ("no", "never")


def _recurring_days(st: Statement) -> bool:
    """Whether every day the lesson names is written as recurring: "on
    Sundays", "weekends" (a scope), not "Sunday" (a value)."""
    days = [f for f in st.facts if f.dim == WEEKDAY]
    return bool(days) and all(f.text.lower().endswith("s") for f in days)


def _order_relation(new: Statement, cand: Statement) -> str | None:
    """ "conflict", "agree" or None when either lesson prescribes no order."""
    if new.order is None or cand.order is None:
        return None
    (a1, b1), (a2, b2) = new.order, cand.order
    straight = _jaccard(a1, a2) + _jaccard(b1, b2)
    swapped = _jaccard(a1, b2) + _jaccard(b1, a2)
    # reversed only when each side is the other's: "drain before deploying"
    # and "warn, then drain" share only the drain (a chain: warn, drain, deploy)
    if swapped > straight and swapped >= 0.5 and a1 & b2 and b1 & a2:
        return "conflict"
    if straight >= 0.5:
        return "agree"
    return None


# Words that say what kind of statement a lesson is, not what it is about:
# "Line 2 hub bolts: torque *spec* is 140 Nm" is about the hub bolts
_GENERIC_SUBJECT_WORDS = frozenset(
    stem(w)
    for w in (
        "spec", "specs", "specification", "specifications", "policy", "policies", "rule",
        "rules", "requirement", "requirements", "standard", "standards", "guideline",
        "guidelines", "procedure", "procedures", "ops", "operations", "process", "program",
        "programme", "practice", "practices", "term", "terms",
    )
)  # fmt: skip


def _own_subject_words(st: Statement, other_lemmas: set[str]) -> list[str]:
    """Distinctive words of the lesson's subject that the other lesson never uses."""
    return sorted(
        w
        for w in st.subject_words
        if w not in other_lemmas
        and st.content.get(w, 0.0) >= WEIGHT_CONTENT
        and w not in _GENERIC_SUBJECT_WORDS
    )


def _locations(st: Statement) -> set[str]:
    return {
        lem
        for lem, t in st.entities.items()
        if t in LOCATION_TYPES and lem not in st.subject_entities
    }


def read_pair(
    new: Statement,
    cand: Statement,
    similarity: float,
    new_sit: Statement | None = None,
    cand_sit: Statement | None = None,
) -> Reading:
    """How the candidate relates to the new lesson (see the module docstring).

    The reason of a NOVEL reading completes "the nearest lesson is ...".
    """
    sim = _clip(similarity, -1.0, 1.0)
    if other_language(new.text) != other_language(cand.text) and not (new.empty or cand.empty):
        apart = _heading_names_apart(new.text, cand.text)
        if apart is not None:
            return Reading(Relation.NOVEL, 0.8, f"about a different subject ({apart})")
        return _across_languages(new, cand, sim)
    if sim < MIN_SIMILARITY or new.empty or cand.empty:
        return Reading(Relation.NOVEL, 0.95, f"unrelated (similarity {sim:.2f})")
    sim_score = _clip((sim - 0.5) / 0.45)
    check = _check_waived(new, cand, sim)
    if check is not None:
        return Reading(Relation.CONTRADICTS, 0.72, check)
    subject = (
        _situation_conflict(new, cand, new_sit, cand_sit)
        or _subject_conflict(new, cand, new_sit, cand_sit)
        or _headings_apart(new.text, cand.text)
    )
    if subject is not None:
        # the closer the vectors, the likelier the subject rule misread them
        confidence = 0.9 - 0.1 * sim_score
        return Reading(Relation.NOVEL, confidence, f"about a different subject ({subject})")

    facts = _compare_facts(new.facts, cand.facts)
    if facts.thresholds and _polarity_conflicts(new, cand):
        # "surpluses under $50 are not refunded" beside "$50 or more is
        # refunded": each side of one threshold, told once each — no conflict
        reason = f"the other side of one threshold ({facts.thresholds[0]})"
        return Reading(Relation.NOVEL, 0.7, reason)
    if facts.ranges and _same_situation(new_sit, cand_sit) and _polarity_conflicts(new, cand):
        # "do not open above 85 %" and "may be opened up to 90 %" in one
        # situation: one limit, told from its two sides
        facts = _compare_facts(new.facts, cand.facts, ranges=False)
    if facts.ranges:
        return Reading(Relation.NOVEL, 0.7, f"about another range ({facts.ranges[0]})")
    conflicts = list(facts.conflicts)
    # the keys of compared facts ("concurrency", "max_connections") were compared
    # with their values
    compared: set[str] = set(facts.keys)
    # locations ("reads its config from /etc/a.toml") are compared as values,
    # not as vocabulary
    locs_n, locs_c = _locations(new), _locations(cand)
    if locs_n and locs_c:
        compared |= locs_n | locs_c
        if locs_n & locs_c:
            facts.agree.append(", ".join(new.say(x) for x in sorted(locs_n & locs_c)))
        else:
            said_n = ", ".join(new.say(x) for x in sorted(locs_n))
            said_c = ", ".join(cand.say(x) for x in sorted(locs_c))
            conflicts.append(f"{said_n} vs {said_c}")
    lemmas_n, lemmas_c = _all_lemmas(new, new_sit), _all_lemmas(cand, cand_sit)
    other_object = None
    for q_n, q_c in _qualifier_differences(new, cand, lemmas_n, lemmas_c):
        # both in the predicates: a different value of a one-valued setting
        # ("the allkeys-lru policy"), or simply a different object
        if q_n.phrase_head in _SINGLE_VALUED and q_c.phrase_head in _SINGLE_VALUED:
            compared |= {q_n.modifier, q_c.modifier}
            conflicts.append(_say_qualifiers(new, cand, q_n, q_c))
        else:
            other_object = other_object or _say_qualifiers(new, cand, q_n, q_c)
    hard_new_only = [k for k in facts.new_only if k[0] not in SOFT_DIMENSIONS]
    hard_cand_only = [k for k in facts.cand_only if k[0] not in SOFT_DIMENSIONS]
    if not conflicts and not facts.agree and hard_new_only and hard_cand_only:
        # "heavier than 1,200 kg are refused" and "no taller than 1.8 m are
        # accepted": each states another measure, so their verbs do not disagree
        reason = "about another attribute of the same subject"
        return Reading(Relation.NOVEL, 0.7, reason)
    polarity = _polarity_conflicts(new, cand)
    # the only disagreement is in the facts' values
    values_only = bool(conflicts) and conflicts == facts.conflicts and not polarity
    if values_only and _another_tier(new, cand):
        # "Refunds over $5,000 additionally need Finance sign-off, on top of
        # the team lead's approval" beside "Refunds above $500 require
        # team-lead approval": a threshold added above another
        return Reading(Relation.NOVEL, 0.6, f"another tier ({'; '.join(conflicts)})")
    if values_only and other_object is not None:
        # "stays in *hot* storage for 90 days" and "archived to *cold* storage
        # for 7 years": each value belongs to its own object
        said = f"{other_object}: {'; '.join(conflicts)}"
        return Reading(Relation.NOVEL, 0.65, f"about another object ({said})")
    conflicts += polarity
    if _order_relation(new, cand) == "conflict":
        conflicts.append("the order is reversed")

    # vocabulary: a word counts as shared when the other lesson has it in its
    # content or in its situation
    words_n, words_c = set(new.content) - compared, set(cand.content) - compared
    only_n = words_n - lemmas_c
    only_c = words_c - lemmas_n
    w_n, w_c = _weight(new, words_n), _weight(cand, words_c)
    w_only_n, w_only_c = _weight(new, only_n), _weight(cand, only_c)
    coverage = max(1.0 - w_only_n / max(w_n, 1e-9), 1.0 - w_only_c / max(w_c, 1e-9))
    substitution = min(w_only_n, w_only_c)
    details = {
        "similarity": sim,
        "coverage": coverage,
        "substitution": substitution,
        "new_only": w_only_n,
    }

    if other_object is not None and not conflicts:
        return Reading(Relation.NOVEL, 0.7, f"about another object ({other_object})", details)
    if (
        WEEKDAY in facts.conflict_dims
        and set(facts.conflict_dims) - {WEEKDAY}
        and _recurring_days(new)
        and _recurring_days(cand)
    ):
        # "closes at 10 pm on Sundays" and "at 11 pm on Saturdays": the days
        # scope each value, so other days may have other values ("the freeze
        # starts Friday at 12:00" against "Thursday at 18:00" is one freeze)
        said = "; ".join(conflicts)
        return Reading(Relation.NOVEL, 0.6, f"about other days ({said})", details)
    if conflicts:
        # a contradiction needs one subject: "Service billing ..." and "Service
        # search ..." each have a subject word the other lesson never uses
        own_n = _own_subject_words(new, lemmas_c)
        own_c = _own_subject_words(cand, lemmas_n)
        if own_n and own_c:
            said = f"{new.say(own_n[0])} vs {cand.say(own_c[0])}"
            return Reading(Relation.NOVEL, 0.7, f"about a different subject ({said})", details)
        if substitution >= SUBSTITUTION_DIFFERENT_FACT and coverage < 0.75:
            reason = "about the same subject under a different condition"
            return Reading(Relation.NOVEL, 0.6, reason, details)
        confidence = (
            0.55
            + 0.2 * coverage
            + 0.2 * sim_score
            + 0.05 * min(len(conflicts) - 1, 2)
            - 0.1 * substitution
        )
        if confidence < MIN_CONTRADICTS:
            reason = f"perhaps contradicting, not surely ({'; '.join(conflicts)})"
            return Reading(Relation.NOVEL, 0.5, reason, details)
        return Reading(
            Relation.CONTRADICTS, _clip(confidence, 0.5, 0.97), "; ".join(conflicts), details
        )

    hard_new = [k for k in facts.new_only if k[0] not in SOFT_DIMENSIONS]
    hard_cand = [k for k in facts.cand_only if k[0] not in SOFT_DIMENSIONS]
    if (
        facts.agree_hard
        and not hard_new
        and not hard_cand
        and other_object is None
        and sim >= 0.7
        and _same_situation(new_sit, cand_sit)
        and not (_naming_frequencies(new) or _naming_frequencies(cand))
        # (not one that says it adds to the other: "phone the fishery board
        # as well as sending the usual e-mail")
        and not (_ADDS_TO.search(new.text) and not _ADDS_TO.search(cand.text))
    ):
        # the same values under the same situation, in other words
        reason = f"same situation and values ({'; '.join(facts.agree)})"
        return Reading(Relation.DUPLICATE, 0.76, reason, details)
    if facts.new_only and hard_cand:
        reason = "about another attribute of the same subject"
        return Reading(Relation.NOVEL, 0.7, reason, details)
    if hard_new:
        reason = f"silent on the {hard_new[0][0]} this lesson states"
        return Reading(Relation.NOVEL, 0.65, reason, details)
    if substitution > SUBSTITUTION_NOT_DUPLICATE:
        return Reading(Relation.NOVEL, 0.6, "saying something else", details)
    if w_only_n >= NEW_CONTENT_NOT_DUPLICATE:
        return Reading(Relation.NOVEL, 0.6, "narrower than this lesson", details)
    reversed_ = _reversed_alone(new.text, cand.text)
    if reversed_ is not None:
        # "face away from the direction of travel" against "face the
        # direction of travel": the same words, one of them turned round
        reason = f"perhaps contradicting, not surely ({reversed_} in one lesson only)"
        return Reading(Relation.NOVEL, 0.5, reason, details)
    if _conditional_alone(new.text, cand.text):
        reason = "perhaps contradicting, not surely (done only on a condition in one lesson)"
        return Reading(Relation.NOVEL, 0.5, reason, details)
    negated = _negated_alone(new, cand, lemmas_c) or _negated_alone(cand, new, lemmas_n)
    if negated is not None and (coverage >= MIN_COVERAGE_DUPLICATE or sim >= 0.85):
        # "Don't clear the Gradle cache" against "Always wipe it": one lesson
        # forbids what the other never names, in words of its own — no
        # restatement to fold, perhaps the opposite order
        reason = f"perhaps contradicting, not surely (not {negated})"
        return Reading(Relation.NOVEL, 0.5, reason, details)
    if facts.new_only and not cand.facts and sim < 0.7:
        # "inspections are done Tuesday through Thursday only" against "megger-test
        # the joints during each inspection": a schedule the other never gives,
        # about a subject it only names — no restatement
        reason = f"silent on the {facts.new_only[0][0]} this lesson states"
        return Reading(Relation.NOVEL, 0.6, reason, details)
    if coverage >= MIN_COVERAGE_DUPLICATE or sim >= 0.85:
        confidence = (
            0.5
            + 0.3 * coverage
            + 0.25 * sim_score
            + 0.05 * min(len(facts.agree), 2)
            - 0.1 * substitution
        )
        reason = "same subject and facts" + (f" ({'; '.join(facts.agree)})" if facts.agree else "")
        return Reading(Relation.DUPLICATE, _clip(confidence, 0.5, 0.97), reason, details)
    return Reading(Relation.NOVEL, 0.6, "too different to be a restatement", details)


# A negator in any language the lessons are written in (the screen's list,
# with English's and the Nordic and Dutch ones; Japanese and Korean negate
# after the verb).
_NEGATED_ANYWHERE = re.compile(
    negators(
        ("not", "never", "don't", "doesn't", "cannot", "can't", "without", "inte", "aldrig",
         "ikke", "aldri", "niet", "nooit", "geen"),
        look_alikes=False,
    )
    # Chinese "unable to", "there is no"
    + f"|{AFTER_THE_VERB}|无法|没有|不再",
    re.IGNORECASE,
)


# a bound is no negation ("no more than", "nicht mehr als", "no más de",
# "must not exceed", "non devono superare")
_BOUND_WORDS = re.compile(
    r"\b(?:no|not|nicht|não|nao|ne|non|nie|inte|niet) (?:more|less|fewer|later|earlier|longer"
    r"|sooner|mehr|weniger|später|más|mas|menos|mais|plus|moins|più|meno|więcej|mniej|mer|meer|minder)\b"
    r"|\b(?:not|never|no|non|nicht|nie|ne|não|nao|inte|niet)\b[^.;,]{0,20}?"
    r"(?:exceed|go (?:above|below|over|under)|drop below|fall below|rise above|superar|supera"
    r"|dépass|depass|überschreit|ueberschreit|ultrapass|przekracza|overschrijd|överstig)\w*",
    re.IGNORECASE,
)


def _negated_anywhere(text: str) -> bool:
    return bool(_NEGATED_ANYWHERE.search(_BOUND_WORDS.sub(" ", text)))


def _across_languages(new: Statement, cand: Statement, sim: float) -> Reading:
    """A pair written in two languages: the rules cannot compare their words
    (nor can the embedding model, which knows English), only their values.
    Every value stated by both and equal — a restatement, the likelier the
    more values agree ("Die Kühlkammer muss zwischen 2 und 4 °C …" and "Hold
    the body refrigeration room at 2–4 °C …"); anything else is novel (a
    contradiction needs the words that say two lessons share a subject).
    One value alone is too common ("30 days") to fold a lesson into one the
    vectors place far from it: it needs the similarity any pair needs."""
    facts = _compare_facts(new.facts, cand.facts)
    hard_new = [k for k in facts.new_only if k[0] not in SOFT_DIMENSIONS]
    hard_cand = [k for k in facts.cand_only if k[0] not in SOFT_DIMENSIONS]
    if facts.conflicts or facts.ranges or hard_new or hard_cand or not facts.agree_hard:
        return Reading(Relation.NOVEL, 0.6, "written in another language, with other values")
    if _negated_anywhere(new.text) != _negated_anywhere(cand.text):
        # "Jogadores com menos de 16 anos não precisam de autorização" against
        # "Players under 16 need a signed consent form": the same value, one
        # side negated — the opposite rule, perhaps
        return Reading(Relation.NOVEL, 0.6, "written in another language, one side negated")
    agreeing = sum(
        len(found) for key, found in _group(new.facts).items() if key[0] not in SOFT_DIMENSIONS
    )
    if agreeing < 2 and sim < MIN_SIMILARITY:
        return Reading(Relation.NOVEL, 0.6, "written in another language, one common value")
    confidence = CROSS_LANGUAGE_DUPLICATE + 0.06 * min(agreeing - 1, 2)
    reason = f"written in another language, with the same values ({'; '.join(facts.agree)})"
    return Reading(Relation.DUPLICATE, confidence, reason)


# A second party one lesson requires for an act — a sign-off, a countersignature,
# someone present, a second person, a named role ("Topping up barrels requires
# the assistant winemaker's sign-off"; "Every dive in the shark tank needs a
# second diver as safety watch") — and the other lesson waives: done alone,
# by anyone, on someone's word, before the check ("Any cellar hand can top up
# barrels on their own; nobody needs to sign anything off").
_PARTY = (
    r"(?:sign-?offs?|signed off|signatures?|signed by|countersign\w*|co-?sign\w*|approv\w*"
    r"|authori[sz]\w*|review\w*|present|attend\w*|watch|supervis\w*"
    r"|second (?:person|diver|operator|nurse|pilot|signer|approver|technician|engineer"
    r"|pair of eyes)"
    r"|two (?:operators|people|persons|staff|nurses|divers|technicians|engineers|signatures)"
    r"|physicians?|doctors?|managers?|supervisors?|specialists?|officers?|marshals?|leads?)"
)
_PARTY_REQUIRED = re.compile(
    r"\b(?:requires?|required|needs?|must (?:have|get|be)|has to|have to"
    r"|only (?:with|after|once|when|if|by|from)|may only|can only|only (?:\w+ ){1,3}(?:may|can)"
    r"|(?:stays?|remains?|is kept|are kept) \w+(?: \w+)? until)\b"
    rf"[^.;]{{0,60}}?\b{_PARTY}\b"
    r"|\b(?:no exceptions|at every (?:performance|shift|session|time))\b",
    re.IGNORECASE,
)
_PARTY_WAIVED = re.compile(
    r"\bon (?:their|his|her|its|your) own\b|\balone\b|\bsolo\b"
    r"|\bby (?:themselves|himself|herself|yourself)\b|\bsingle (?:\w+ ){0,2}(?:may|can)\b"
    r"|\bnobody (?:needs?|has) to\b|\bno (?:one|body) (?:needs?|has) to (?:sign|approve|review)"
    r"|\bno (?:sign-?off|approval|review|countersignature|signature|second \w+) (?:is )?"
    r"(?:needed|required|necessary)\b"
    r"|\bwithout (?:a |any )?(?:sign-?off|approval|review|countersignature|signature|second \w+)\b"
    r"|\b(?:any|every) (?:\w+ ){0,3}(?:can|may)\b"
    r"|\bon the (?:verbal )?(?:order|word|say-?so) of (?:any|a|an)\b"
    r"|\bonly needs? to (?:attend|be present)\b|\bcan (?:\w+ ){1,6}as soon as\b",
    re.IGNORECASE,
)
# words that say who and how, not what is done
_PARTY_WORDS = frozenset(
    lemma(w)
    for w in (  # noqa: SIM905
        "sign sign-off signature approval review present attend watch supervisor second two"
        " single alone own any every nobody anyone need require only can may must order"
    ).split()
)


_NEGATED_CLAUSE = re.compile(
    r"\b(?:not|never|no|can't|cannot|mustn't|won't)\b[^.;,]*$", re.IGNORECASE
)


def _waived(text: str) -> re.Match[str] | None:
    """Where a second party is waived, not in a clause that forbids it
    ("can't land on main without sign-off from a pair of reviewers")."""
    for found in _PARTY_WAIVED.finditer(text):
        if not _NEGATED_CLAUSE.search(text, 0, found.start()):
            return found
    return None


def _check_waived(new: Statement, cand: Statement, sim: float) -> str | None:
    """One lesson requires a second party for an act the other lets be done
    without it: the reason, or None. The two must be close (similarity) and
    share a word of the act itself ("barrels", "pyro", "uplink")."""
    if sim < 0.5 or named_apart(new, cand) or _compare_facts(new.facts, cand.facts).thresholds:
        # (other environments or names; "above £500 require a signature" and
        # "£500 or less … without a signature" are two sides of one threshold)
        return None
    for a, b in ((new, cand), (cand, new)):
        required = _PARTY_REQUIRED.search(a.text)
        if not required or _waived(a.text):
            continue
        waived = _waived(b.text)
        if not waived or _PARTY_REQUIRED.search(b.text):
            continue
        act = (set(a.content) & set(b.content)) - _PARTY_WORDS
        if act:
            return f"{required.group(0)!r} vs {waived.group(0)!r}"
    return None


# what only a lesson that adds to another says, and what a lesson says it
# adds to another rule with
_ADDING = r"additionally|in addition to|on top of|as well as"
_ADDS_TO = re.compile(rf"\b(?:{_ADDING})\b", re.I)
_ADDED = re.compile(rf"\b(?:{_ADDING}|in addition|also|too|further|extra)\b", re.I)


def _another_tier(new: Statement, cand: Statement) -> bool:
    """Each lesson's values bounded the same way ("over $5,000", "above
    $500"), and one says it adds to the other's rule."""
    bounds = {f.bound for f in (*new.facts, *cand.facts)}
    return (
        len(bounds) == 1
        and 0 not in bounds
        and bool(_ADDED.search(new.text) or _ADDED.search(cand.text))
    )


# A lesson's heading: a few words before a colon ("Gold tooling: heat the
# finishing tools to about 110 °C"), an aside in brackets left out.
_HEADING = re.compile(r"\s*([^:.;!?]{1,60}?)\s*:\s+\S")
_ASIDE = re.compile(r"\s*\([^)]*\)")


def _headings_apart(new: str, cand: str) -> str | None:
    """Two headings naming kinds of one thing ("Blind tooling (no gold
    leaf): …" and "Gold tooling: …"): the same last word, other words
    before it. How they are said, or None."""
    found = []
    for text in (new, cand):
        heading = _HEADING.match(text)
        if heading is None:
            return None
        words = _ASIDE.sub("", heading.group(1)).lower().split()
        if not 2 <= len(words) <= 4:
            return None
        found.append(words)
    (*kind_n, head_n), (*kind_c, head_c) = found
    if head_n != head_c or set(kind_n) & set(kind_c):
        return None
    return f"{' '.join(found[0])} vs {' '.join(found[1])}"


def _heading_names_apart(new: str, cand: str) -> str | None:
    """Two headings naming one house's two places ("Relaks Kraków: …" and
    "Relaks Warszawa: …"): a capitalised name both share, and one each that
    the other lesson never names. Read where the words cannot be compared
    (two languages): names are the same in every language. How they are
    said, or None."""
    names = []
    for text in (new, cand):
        heading = _HEADING.match(text)
        if heading is None:
            return None
        names.append([w for w in _ASIDE.sub("", heading.group(1)).split()
                      if w[:1].isupper() and w.isalpha()])  # fmt: skip
    (names_n, names_c), (lower_n, lower_c) = names, (new.lower(), cand.lower())
    if not {w.lower() for w in names_n} & {w.lower() for w in names_c}:
        return None
    own_n = [w for w in names_n if not re.search(rf"\b{re.escape(w.lower())}\b", lower_c)]
    own_c = [w for w in names_c if not re.search(rf"\b{re.escape(w.lower())}\b", lower_n)]
    return f"{own_n[0]} vs {own_c[0]}" if own_n and own_c else None


# Words that turn a direction or a side round: said by one lesson only, the
# rest the same, they make it the other's opposite, not its restatement.
_TURNED_ROUND = re.compile(
    r"\b(?:away from|opposite(?: to)?|against the|backwards?|in reverse|reversed?|upside[- ]down"
    r"|inside[- ]out|counter-?clockwise|anti-?clockwise|upstream|downstream|inwards?|outwards?)\b",
    re.IGNORECASE,
)


def _reversed_alone(new: str, cand: str) -> str | None:
    """A direction or side turned round in one lesson and not the other."""
    turned_n = {m.group().lower() for m in _TURNED_ROUND.finditer(new)}
    turned_c = {m.group().lower() for m in _TURNED_ROUND.finditer(cand)}
    alone = sorted(turned_n ^ turned_c)
    return alone[0] if alone else None


# A step done only on a condition ("only done if the patient reports
# problems") against the same step done always ("every fitting includes
# it; it is mandatory"): the same words, one of them a requirement.
_ONLY_ON_CONDITION = re.compile(
    r"\bonly (?:(?:be |is |are |gets? |)(?:done|needed|required|performed|carried out|used|run"
    r"|made|given|checked|tested|measured)\s+)?(?:if|when|where|on request|upon request)\b",
    re.IGNORECASE,
)
_ALWAYS = re.compile(
    r"\b(?:mandatory|compulsory|always|no exceptions?|without exception"
    r"|every (?:new |single )?\w+ includes?)\b",
    re.IGNORECASE,
)


def _conditional_alone(new: str, cand: str) -> bool:
    """One lesson does a step only on a condition, the other always."""
    return any(
        _ONLY_ON_CONDITION.search(a)
        and not _ONLY_ON_CONDITION.search(b)
        and _ALWAYS.search(b)
        and not _ALWAYS.search(a)
        for a, b in ((new, cand), (cand, new))
    )


def _negated_alone(st: Statement, other: Statement, other_lemmas: set[str]) -> str | None:
    """A word ``st`` negates ("don't *clear*", "never *vent*") that the other
    lesson never uses, where the other negates nothing: how it is said, or
    None."""
    if any(-1 in signs for signs in other.signs.values()):
        return None
    bounded = any(f.bound for f in st.facts)
    for lem, signs in st.signs.items():
        if bounded and lem in MOVES_PAST:
            continue  # "must never drop below 7": the bound's own verb, read with the value
        if signs == {-1} and lem not in other_lemmas and lem not in st.entities:
            return st.say(lem)
    return None


def pair_evidence(
    new: Statement,
    cand: Statement,
    new_sit: Statement | None = None,
    cand_sit: Statement | None = None,
) -> dict[str, float]:
    """Every signal :func:`read_pair` weighs, each computed on its own (not
    cut short by the first rule that decides): what the judge's learned
    layer (:mod:`memory.judge.learned`) reads beside the rules' verdict."""
    lemmas_n, lemmas_c = _all_lemmas(new, new_sit), _all_lemmas(cand, cand_sit)
    facts = _compare_facts(new.facts, cand.facts)
    qualifiers = _qualifier_differences(new, cand, lemmas_n, lemmas_c)
    order = _order_relation(new, cand)
    locs_n, locs_c = _locations(new), _locations(cand)
    words_n, words_c = set(new.content), set(cand.content)
    return {
        "subject_differs": float(_subject_conflict(new, cand, new_sit, cand_sit) is not None),
        "situation_differs": float(_situation_conflict(new, cand, new_sit, cand_sit) is not None),
        "same_situation": float(_same_situation(new_sit, cand_sit)),
        "facts_agree": float(len(facts.agree)),
        "facts_agree_hard": float(facts.agree_hard),
        "facts_conflict": float(len(facts.conflicts)),
        "facts_ranges": float(len(facts.ranges)),
        "facts_new_only": float(len(facts.new_only)),
        "facts_cand_only": float(len(facts.cand_only)),
        "facts_new_only_hard": float(sum(k[0] not in SOFT_DIMENSIONS for k in facts.new_only)),
        "facts_cand_only_hard": float(sum(k[0] not in SOFT_DIMENSIONS for k in facts.cand_only)),
        "polarity_conflicts": float(len(_polarity_conflicts(new, cand))),
        "order_reversed": float(order == "conflict"),
        "order_same": float(order == "agree"),
        "qualifiers_differ": float(len(qualifiers)),
        "single_valued_differ": float(
            sum(
                q_n.phrase_head in _SINGLE_VALUED and q_c.phrase_head in _SINGLE_VALUED
                for q_n, q_c in qualifiers
            )
        ),
        "own_subject_words": float(
            bool(_own_subject_words(new, lemmas_c)) and bool(_own_subject_words(cand, lemmas_n))
        ),
        "locations_differ": float(bool(locs_n) and bool(locs_c) and not locs_n & locs_c),
        "locations_agree": float(bool(locs_n & locs_c)),
        # shares, not sizes: a long lesson is not more or less of a duplicate
        "share_new_only": _weight(new, words_n - lemmas_c) / max(_weight(new, words_n), 1e-9),
        "share_cand_only": _weight(cand, words_c - lemmas_n) / max(_weight(cand, words_c), 1e-9),
    }


def short_id(c: Candidate) -> str:
    return str(c.id)[:8]


class OfflineJudge:
    """The default judge: heuristic, deterministic, offline (see the module docstring)."""

    name = "offline-v1"

    def readings(
        self, *, content: str, situation: str, candidates: Sequence[Candidate]
    ) -> list[Reading]:
        """One :class:`Reading` per candidate, in the candidates' order (for reports)."""
        new_sit = analyse(situation) if situation.strip() else None
        return [
            read_pair(
                *analyse_pair(content, c.content),
                c.similarity,
                new_sit,
                analyse(c.situation) if c.situation.strip() else None,
            )
            for c in candidates
        ]

    def classify(self, *, content: str, situation: str, candidates: Sequence[Candidate]) -> Verdict:
        """Classify ``content`` against ``candidates`` (see :class:`memory.judge.Judge`)."""
        if not candidates:
            return Verdict(Relation.NOVEL, None, 0.95, "No similar lesson exists.", self.name)
        readings = self.readings(content=content, situation=situation, candidates=candidates)
        return self.decide(readings, candidates)

    def decide(self, readings: Sequence[Reading], candidates: Sequence[Candidate]) -> Verdict:
        """The verdict from each candidate's reading (see the module docstring)."""
        best: tuple[bool, float, int] | None = None
        for i, r in enumerate(readings):
            if r.relation is Relation.NOVEL:
                continue
            preferred = r.relation is Relation.DUPLICATE and r.confidence >= PREFERRED_DUPLICATE
            # ties go to the nearer candidate (they arrive sorted by similarity)
            key = (preferred, r.confidence, -i)
            if best is None or key > best:
                best = key
        if best is not None:
            r, c = readings[-best[2]], candidates[-best[2]]
            rivals = [
                other for i, other in enumerate(readings)
                if i != -best[2] and other.relation is not Relation.NOVEL
                and other.confidence >= r.confidence - AMBIGUOUS_MARGIN
            ]  # fmt: skip
            if rivals and not best[0]:
                # Two candidates fit about as well: a destructive verdict
                # needs one clear target, so when unsure, insert as novel.
                text = "Novel: it reads as contradicting or restating several lessons at once."
                return Verdict(Relation.NOVEL, None, 0.5, text, self.name)
            if r.relation is Relation.DUPLICATE:
                text = f"Restates lesson {short_id(c)}: {r.reason}."
            else:
                text = f"Contradicts lesson {short_id(c)}: {r.reason}."
            return Verdict(r.relation, c.id, round(r.confidence, 3), text, self.name)
        nearest = max(range(len(candidates)), key=lambda i: (candidates[i].similarity, -i))
        confidence = min(r.confidence for r in readings)
        text = f"Novel: the nearest lesson, {short_id(candidates[nearest])}, is "
        text += f"{readings[nearest].reason}."
        return Verdict(Relation.NOVEL, None, round(confidence, 3), text, self.name)
