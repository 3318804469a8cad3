"""The analysis of one lesson: what it is about and what it claims.

:func:`analyse` turns a text into a :class:`Statement`: its facts (see
:mod:`memory.judge.facts`), its content words with weights and polarities,
the qualifiers in front of each word ("*staging* DB", "*export* job"), its
named entities, the words of its grammatical subject, and the order it
prescribes, if any ("X before Y").

The analysis is a heuristic reading of English, not a parser; it is tuned for
short, declarative or imperative ops lessons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from memory.judge import lexicon as lx
from memory.judge.facts import SOFT_DIMENSIONS, Fact, extract_facts
from memory.judge.text import Kind, Role, Token, is_light, is_verb, tokenize
from memory.language import little_word, other_language

# Entity types that name *where* something is; two lessons that agree on the
# subject but name different ones of these disagree ("config lives in A" vs
# "... in B"). Other entity types (hosts, tools, environments) qualify the
# subject, and a difference there means a different subject.
LOCATION_TYPES: frozenset[str] = frozenset({"path", "url", "file"})
# Entity types that qualify a lesson wherever they appear in it.
CONTEXT_TYPES: frozenset[str] = frozenset({"tech", "environment", "host", "name", "code"})

WEIGHT_ENTITY = 1.5
WEIGHT_CONTENT = 1.0
WEIGHT_POLARITY = 0.5
WEIGHT_LIGHT = 0.3

# Words whose polarity is noise when they open an imperative ("Pass --x").
_IMPERATIVE_NO_POLARITY: frozenset[str] = frozenset({"pass", "work", "break", "block"})
# "merging stays blocked *until* a platform engineer approves", "not
# allowed *unless* …": a permission withheld until a condition is that
# condition required, not a prohibition ("requires an approval before any
# PR can merge" says the same); its sign is not read.
_CONDITIONS = frozenset({"until", "unless", "till"})
# Words of polarity that also name things, before a noun after a determiner.
_NOUN_USE = frozenset({"support"})
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "our", "their", "its", "your", "each"}
)


@dataclass(frozen=True)
class Qualifier:
    """A word in front of another: "*staging* DB", "*allkeys* lru policy".

    ``phrase_head`` is the last word of the noun phrase ("policy");
    ``in_subject`` whether it sits in the lesson's subject (or the lesson has
    no explicit subject, which makes everything part of what it is about).
    """

    modifier: str
    head: str
    phrase_head: str
    in_subject: bool


@dataclass
class Statement:
    """One analysed lesson text. Build it with :func:`analyse`; treat it as read-only
    (:func:`analyse` caches and shares instances)."""

    text: str
    tokens: list[Token]
    facts: list[Fact]
    content: dict[str, float] = field(default_factory=dict)
    signs: dict[str, set[int]] = field(default_factory=dict)
    qualifiers: list[Qualifier] = field(default_factory=list)
    entities: dict[str, str] = field(default_factory=dict)
    subject_entities: frozenset[str] = frozenset()
    subject_words: frozenset[str] = frozenset()  # empty for imperatives and verbless text
    order: tuple[frozenset[str], frozenset[str]] | None = None
    imperative: bool = False
    surface: dict[str, str] = field(default_factory=dict)
    sentence_signs: list[dict[str, set[int]]] = field(default_factory=list)
    subject_facts: list[Fact] = field(default_factory=list)

    def say(self, lemma: str) -> str:
        """How the lesson wrote a lemma (for rationales)."""
        return self.surface.get(lemma, lemma)

    @property
    def empty(self) -> bool:
        return not self.content and not self.facts


def _is_content(tok: Token) -> bool:
    return tok.role is Role.CONTENT and tok.kind in (Kind.WORD, Kind.ENTITY, Kind.CODE)


def _negation_signs(tokens: list[Token]) -> list[int]:
    """+1/-1 per token: -1 for the first content word after a negator.

    "is not required", "no longer supports", "must not be cached", "never
    run": the negator skips auxiliaries and articles and flips the next word.
    """
    signs = [1] * len(tokens)
    pending = False
    for i, tok in enumerate(tokens):
        if tok.kind is Kind.PUNCT:
            pending = False
        elif tok.role is Role.NEG:
            pending = not pending
        elif pending:
            low = tok.raw.lower()
            if low in lx.NEGATION_SKIP or tok.role in (Role.STOP, Role.BOUND, Role.OP):
                continue
            if _is_content(tok):
                signs[i] = -1
            pending = False
    return signs


def _phrase_head(tokens: list[Token], i: int, used: set[int]) -> str:
    """The last word of the noun phrase that token ``i`` belongs to."""
    k = i
    while (
        k + 1 < len(tokens)
        and k + 1 not in used
        and _is_content(tokens[k + 1])
        and tokens[k + 1].polarity is None
        and not tokens[k + 1].verb
        and not tokens[k + 1].aux
        and not is_verb(tokens[k + 1].lemma)
    ):
        k += 1
    return tokens[k].lemma


def _sentence_bounds(tokens: list[Token]) -> tuple[int, int]:
    """Start and end (exclusive) of the first sentence."""
    for i, tok in enumerate(tokens):
        if tok.kind is Kind.PUNCT and tok.raw in ".;!?" and i > 0:
            return 0, i
    return 0, len(tokens)


def _first_word(tokens: list[Token], start: int, end: int) -> int:
    i = start
    while i < end and tokens[i].kind in (Kind.PUNCT, Kind.OP):
        i += 1
    return i


def _subject_region(tokens: list[Token]) -> tuple[range, bool, bool]:
    """The token range of the grammatical subject, whether the sentence is an
    imperative, and whether a main verb was found at all.

    A leading context clause ("When calling the deploy API, ...") counts as
    part of the subject. The main verb is the first auxiliary, modal,
    phrasal verb or unambiguous verb after the first word. An imperative
    ("Run migrations...", "Never run ...") has no subject of its own: the
    range is just the context clause. Without a main verb the whole sentence
    is the range.
    """
    start, end = _sentence_bounds(tokens)
    first = _first_word(tokens, start, end)
    context_end = first
    if first < end and tokens[first].raw.lower() in lx.SUBORDINATORS:
        for j in range(first, end):
            if tokens[j].kind is Kind.PUNCT and tokens[j].raw == ",":
                context_end = j
                first = _first_word(tokens, j + 1, end)
                break
    if first >= end:
        return range(start, end), False, False
    head = tokens[first]
    low = head.raw.lower()
    if head.role is Role.NEG or low in lx.IMPERATIVE_VERBS or low in ("please", "always"):
        return range(start, context_end), True, True
    for k in range(first + 1, end):
        tok = tokens[k]
        if tok.kind is Kind.PUNCT:
            break
        if tok.aux or tok.verb or tok.role is Role.NEG:
            return range(start, k), False, True
        if tok.kind is Kind.WORD and tok.role is Role.CONTENT and is_verb(tok.lemma):
            return range(start, k), False, True
        if tok.polarity is not None and tok.polarity[0] in ("require", "support", "allow"):
            return range(start, k), False, True
    return range(start, end), False, False


def _order(tokens: list[Token], used: set[int]) -> tuple[frozenset[str], frozenset[str]] | None:
    """``(first, second)`` word sets for "X before Y", "Y after X", "Before Y, X"."""

    def words(lo: int, hi: int) -> frozenset[str]:
        return frozenset(
            t.lemma
            for i, t in enumerate(tokens[lo:hi], start=lo)
            if _is_content(t) and i not in used and not is_light(t.lemma)
        )

    for m, tok in enumerate(tokens):
        if tok.role is not Role.ORDER:
            continue
        direction = lx.ORDER_MARKERS[tok.lemma]
        lo = m
        while lo > 0 and tokens[lo - 1].kind is not Kind.PUNCT:
            lo -= 1
        hi = m + 1
        while hi < len(tokens) and tokens[hi].kind is not Kind.PUNCT:
            hi += 1
        if _first_word(tokens, lo, m) == m and lo > 0 and tokens[lo - 1].raw == ",":
            # "Drain the node first, then cordon it": the marker opens a later
            # clause; the clause before the comma is the other side
            start = lo - 1
            while start > 0 and tokens[start - 1].raw not in ".;!?":
                start -= 1
            before, after = words(start, lo - 1), words(m + 1, hi)
            first, second = (before, after) if direction == "first" else (after, before)
        elif _first_word(tokens, lo, m) == m:
            # "Before deploying, run migrations": the marker opens the sentence
            if hi >= len(tokens) or tokens[hi].raw != ",":
                continue
            marked = words(m + 1, hi)
            end = hi + 1
            while end < len(tokens) and tokens[end].kind is not Kind.PUNCT:
                end += 1
            other = words(hi + 1, end)
            first, second = (other, marked) if direction == "first" else (marked, other)
        else:
            before, after = words(lo, m), words(m + 1, hi)
            first, second = (before, after) if direction == "first" else (after, before)
        if first and second:
            return first, second
    return None


# A dateline: the day (and time) a note was written, stamped in front of it
# ("2024-03-12: INC-2079 …", "[2024-03-12 09:42] …"). It says when the
# lesson was recorded, not a value of what it claims: two lessons stamped
# on different days do not disagree about a date.
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_CLOCK = r"\d{1,2}[:.]\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?"
_STAMP = (
    r"(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?"
    # "12 March 2024", "March 12, 2024", "1:56 pm on 8 May, 2023", "Tue 12 Mar 2024 09:42"
    rf"|(?:{_CLOCK}\s+on\s+)?(?:[a-z]{{3,9}},?\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS},?"
    rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,)\s+\d{{4}}(?:,?\s+{_CLOCK})?)"
)
_DATELINE = re.compile(
    rf"^\s*(?:\[{_STAMP}\]\s*[:\-–—|]?|{_STAMP}\s*[:\-–—|])\s+(?=\S)", re.IGNORECASE
)


def undated(text: str) -> str:
    """The lesson without a leading dateline."""
    return _DATELINE.sub("", text, count=1)


# The value a lesson says it replaces ("from September the early class
# starts at 06:30 *instead of 07:00*"): what was, not what the lesson
# states — against a lesson that says 07:00 it is a change, no restatement.
_REPLACED_VALUE = re.compile(
    r",?\s*\(?\b(?:instead of|rather than|in place of|up from|down from|au lieu de|statt|anstatt"
    r"|invece (?:di|del|della|dei|delle)|en (?:lugar|vez) de|em vez de|in plaats van|zamiast)"
    r"\s+(?:the |l[ae]s? |l'|die |der |den |das |de |het |il |la |o |a |os |as )?"
    r"(?:(?:old|previous|current|usual|former) )?"
    r"\d(?:[\d:.,]*\d)?(?:\s?(?:am|pm|a\.m\.|p\.m\.|h|%|°\s?[CF]|[^\W\d_]+))?\)?",
    re.IGNORECASE,
)


def stated(text: str) -> str:
    """The lesson as it states things: without a leading dateline, nor a
    value it says it replaces."""
    return _REPLACED_VALUE.sub("", undated(text))


@lru_cache(maxsize=4096)
def analyse(text: str) -> Statement:
    """Analyse one lesson text (a leading dateline and a value it replaces
    set aside: ``stated``).
    Pure; cached because candidates recur."""
    text = stated(text)
    tokens = tokenize(text)
    for det, word, noun in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if (
            word.polarity is not None
            and word.raw.lower() in _NOUN_USE
            and det.raw.lower() in _DETERMINERS
            and _is_content(noun)
            and noun.polarity is None
            and not (noun.verb or noun.aux or is_verb(noun.lemma))
        ):  # "the *support* portal" names a portal; it supports nothing
            word.polarity = None
    facts, used = extract_facts(tokens)
    negations = _negation_signs(tokens)
    region, imperative, has_verb = _subject_region(tokens)
    st = Statement(text=text, tokens=tokens, facts=facts, imperative=imperative)
    # another language's little words qualify nothing and are qualified by
    # nothing: "desinfectar *un* pozo" and "clorar *un* pozo" name one well
    foreign = other_language(text)
    subject_entities: set[str] = set()
    subject_words: set[str] = set()
    sentence = 0
    st.sentence_signs.append({})
    for i, tok in enumerate(tokens):
        if tok.kind is Kind.PUNCT and tok.raw in ".;!?" and i + 1 < len(tokens):
            sentence += 1
            st.sentence_signs.append({})
        if i in used or not _is_content(tok):
            continue
        lem = tok.lemma
        polarity = tok.polarity
        if (
            polarity is not None
            and tok.sentence_start
            and imperative
            and tok.raw.lower() in _IMPERATIVE_NO_POLARITY
        ):
            polarity = None
            lem = tok.raw.lower()
        if tok.etype:
            weight = WEIGHT_ENTITY
            st.entities[lem] = tok.etype
        elif polarity is not None:
            weight = WEIGHT_POLARITY
        elif is_light(lem):
            weight = WEIGHT_LIGHT
        else:
            weight = WEIGHT_CONTENT
        st.content[lem] = max(st.content.get(lem, 0.0), weight)
        st.surface.setdefault(lem, tok.raw)
        sign = (polarity[1] if polarity else 1) * negations[i]
        if not (
            polarity is not None
            and polarity[0] == "allow"
            and sign < 0
            and i + 1 < len(tokens)
            and tokens[i + 1].raw.lower() in _CONDITIONS
        ):
            st.signs.setdefault(lem, set()).add(sign)
            st.sentence_signs[sentence].setdefault(lem, set()).add(sign)
        if tok.etype == "tech" and lem in lx.DB_ENGINES and "db" not in st.content:
            # "the staging Postgres" is also "the staging database"
            st.content["db"] = WEIGHT_LIGHT
        if i in region and tok.etype:
            subject_entities.add(lem)
        if i in region and has_verb and not imperative:
            subject_words.add(lem)
        # the word just before, if it can qualify this one ("staging" DB)
        left = tokens[i - 1] if i > 0 else None
        if (
            left is not None
            and polarity is None
            and not tok.verb
            and not tok.aux
            and not (is_verb(lem) and i not in region)
            and i - 1 not in used
            and _is_content(left)
            and left.polarity is None
            and not left.verb
            and not left.aux
            # a verb-like word qualifies only inside the subject ("*Write* timeouts")
            and (not is_verb(left.lemma) or (i - 1 in region and not imperative))
            and not (left.sentence_start and imperative)
            and not (foreign and (little_word(left.raw) or little_word(tok.raw)))
        ):
            st.qualifiers.append(
                Qualifier(
                    modifier=left.lemma,
                    head=lem,
                    phrase_head=_phrase_head(tokens, i, used),
                    in_subject=imperative or not has_verb or i in region,
                )
            )
    # "the *nightly* ETL job": a frequency inside the subject names the subject
    if has_verb:
        st.subject_facts = [f for f in facts if f.pos in region and f.dim in SOFT_DIMENSIONS]
    st.subject_entities = frozenset(subject_entities)
    st.subject_words = frozenset(subject_words)
    st.order = _order(tokens, used)
    return st


# --- a name and its initials --------------------------------------------------

# An initialism of three to six capitals ("MTTR", "SLOs") and the words that
# may sit between the ones it takes its letters from ("mean time *to* restore").
_INITIALISM = re.compile(r"\b([A-Z]{3,6})s?\b")
_LETTERED_WORD = re.compile(r"[A-Za-z]+")
_UNLETTERED = frozenset({"of", "to", "and", "for", "the", "a", "an", "in", "on", "&"})


def _spelled_out(initials: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` writes out ``initials`` word by word ("Mean time to
    restore" for MTTR), as a character span, or None."""
    letters = initials.lower()
    words = list(_LETTERED_WORD.finditer(text))
    for i, first in enumerate(words):
        if first.group()[0].lower() != letters[0]:
            continue
        k, j = 0, i
        while k < len(letters) and j < len(words):
            word = words[j].group().lower()
            if word[0] == letters[k] and (k > 0 or j == i):
                k, j = k + 1, j + 1
            elif word in _UNLETTERED and j > i:
                j += 1
            else:
                break
        run = [m.group().lower() for m in words[i:j]]
        # a name's words, not a phrase that happens to share the letters
        # ("during rollouts safely" is no DRS)
        if k == len(letters) and not any(
            (word in lx.STOPWORDS and word not in _UNLETTERED) or word.endswith("ly")
            for word in run
        ):
            return first.start(), words[j - 1].end()
    return None


# a rank's shorthand ("P1", "Sev2") and the rank written out ("priority one")
_RANK_SHORT = re.compile(r"\b(P|Sev|SEV)-?([0-4])\b")
_RANK_WORDS = {"p": "priority", "sev": "severity"}
_NUMBER_NAMES = ("zero", "one", "two", "three", "four")


def initials_shared(new: str, cand: str) -> tuple[str, str]:
    """The two lessons with a name one of them writes out and the other
    abbreviates written the same way, as the initialism ("MTTR for P1
    outages" beside "Mean time to restore for priority-one outages")."""
    texts = [new, cand]
    for side in (0, 1):
        other = 1 - side
        for found in _INITIALISM.finditer(texts[side]):
            initials = found.group(1)
            if re.search(rf"\b{initials}s?\b", texts[other]):
                continue
            span = _spelled_out(initials, texts[other])
            if span is not None:
                start, end = span
                plural = "s" if texts[other][end - 1] == "s" else ""
                texts[other] = texts[other][:start] + initials + plural + texts[other][end:]
        # a rank's shorthand ("P1", "Sev2") beside the rank written out
        for found in _RANK_SHORT.finditer(texts[side]):
            short, number = found.group(1).lower(), found.group(2)
            said = _RANK_WORDS[short]
            spelled = rf"\b{said}[- ](?:{number}|{_NUMBER_NAMES[int(number)]})\b"
            texts[other] = re.sub(spelled, found.group(0), texts[other], flags=re.IGNORECASE)
    return texts[0], texts[1]


def analyse_pair(new: str, cand: str) -> tuple[Statement, Statement]:
    """Both lessons of a pair analysed, a name spelled out in one and
    abbreviated in the other read as one (``initials_shared``)."""
    a, b = initials_shared(new, cand)
    return analyse(a), analyse(b)
