"""Single-edit flips of the judge reader's training lessons: one value
changed (a contradiction) or the subject's name changed (another thing:
novel), so that the reader learns which one word apart is which.

    "Admin sessions expire after 900 seconds."  → "… after 1800 seconds."    contradicts
    "Orders placed by 3 pm ship the same day."  → "… by 3 am …"               contradicts
    "Guests at the Berlin site are escorted."   → "… the Chicago site …"      novel
    "The payments-a ledger reconciles daily."   → "The payments-c ledger …"   novel
    "Building 4 extinguishers: inspect monthly." → "Building 9 …"            novel
    "DNS changes need a ticket."  → "… are blocked until there is a ticket."  duplicate
    "Refunds need a sign-off."    → "… are allowed without a sign-off."       contradicts

Value flips alone (a fit of 2026-12-05) taught the reader that any one word
apart contradicts: it read "… at the Lisbon store" against "… at the Porto
store" as a contradiction. Flips are made by patterns, not read: a few are
odd sentences ("the Acme Okta account"), still two different subjects or
two different values. Every flip is deterministic (seeded): the same
training lessons give the same pairs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable

_UNITS = (
    r"ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|"
    r"%|percent|per ?cent|GB|MB|KB|TB|GiB|MiB|kg|g|mg|ml|mL|l|L|km|m|cm|mm|miles?|euros?|dollars?|"
    r"USD|EUR|GBP|pounds?|requests?|retries|times|attempts|lux|lx|°C|°F|degrees|items?|users?|"
    r"connections?|rows|records|files|pages|characters|chars|words|people|guests|patients|shifts|"
    r"units|boxes|pallets|tickets|calls|messages|members|seats|nights|steps|reps|sets|cycles|runs"
)
_NUMBER_UNIT = re.compile(rf"(?<![\w.-])(\d+(?:\.\d+)?)(\s?)({_UNITS})\b")
_MONEY = re.compile(r"([$€£])(\d+(?:\.\d+)?)\b")
_SETTING = re.compile(r"\b(port|ports|timeout|limit|TTL|ttl|version)\s(\d+)\b")
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
# Words swapped for their opposite, either way round.
_OPPOSITES = (
    ("required", "optional"), ("mandatory", "optional"), ("always", "never"),
    ("enabled", "disabled"), ("enable", "disable"), ("allowed", "forbidden"),
    ("permitted", "prohibited"), ("true", "false"), ("weekdays", "weekends"),
    ("at least", "at most"), ("minimum", "maximum"), ("before", "after"),
    ("increase", "decrease"), ("accepted", "rejected"), ("must", "must not"),
    ("should", "should not"), ("can", "cannot"), ("is", "is not"), ("are", "are not"),
    ("daily", "weekly"), ("hourly", "daily"), ("monthly", "quarterly"), ("morning", "evening"),
    ("am", "pm"), ("AM", "PM"), ("higher", "lower"), ("more", "fewer"), ("first", "last"),
)  # fmt: skip
# Nouns a number, a letter or a place name names an instance of.
_NAMING_NOUNS = (
    "service", "cluster", "node", "shard", "ward", "room", "gate", "building", "floor",
    "line", "lane", "store", "site", "zone", "grade", "team", "bay", "dock", "terminal",
    "platform", "warehouse", "plant", "unit", "station", "server", "rack", "clinic",
    "branch", "office", "studio", "court", "field", "pool", "hall", "wing", "lab",
    "kitchen", "route", "depot", "desk", "tier", "queue", "bucket", "table", "region",
    "aisle", "truck", "van", "tank", "pump", "class", "cohort", "squad", "group",
)  # fmt: skip
_LETTERED = re.compile(r"\b([A-Za-z][A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)-([a-z])\b")  # payments-a
_NUMBERED = re.compile(rf"\b({'|'.join(_NAMING_NOUNS)})\s([A-Z]?\d+[A-Z]?|[A-Z])\b", re.I)
# A capitalised word inside a sentence, before a naming noun: "the *Reno* warehouse"
_PLACE = re.compile(
    r"(?<=[a-z,] )([A-Z][a-z]{2,})(?= (?:[a-z]+ )?(?:"
    + "|".join(_NAMING_NOUNS)
    + r"|team|office|account|customer|project|app|API|database|DB|pipeline|job|"
    r"site|store|plant|campus|hospital|school|client|contract|fleet)s?\b)"
)
_NOT_NAMES = frozenset(
    {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
     "January", "February", "March", "April", "May", "June", "July", "August",
     "September", "October", "November", "December", "The", "This", "That", "Each", "Every"}
)  # fmt: skip

Lesson = tuple[str, str]  # content, situation
Flip = tuple[str, str, str]  # content, situation, the flipped content
Edit = tuple[int, int, str]  # start, end, the text put there


def _other_number(text: str, rng: random.Random) -> str:
    value = float(text)
    choices = [value * 2, value / 2, value + 1, value * 3, value + 5, value * 10]
    new = rng.choice([c for c in choices if c != value and c > 0] or [value + 1])
    if "." in text:
        return f"{new:.{len(text.split('.')[1])}f}"
    return str(max(1, round(new))) if round(new) != value else str(int(value) + 1)


def _applied(text: str, edits: list[Edit], rng: random.Random) -> str | None:
    if not edits:
        return None
    start, end, new = rng.choice(edits)
    flipped = text[:start] + new + text[end:]
    return flipped if flipped != text else None


def value_flip(text: str, rng: random.Random) -> str | None:
    """``text`` with one value changed: a number with its unit, an amount,
    a port or a limit, a time of day, or a word for its opposite."""
    edits: list[Edit] = []
    for m in _NUMBER_UNIT.finditer(text):
        edits.append((m.start(1), m.end(1), _other_number(m.group(1), rng)))
    for m in _MONEY.finditer(text):
        edits.append((m.start(2), m.end(2), _other_number(m.group(2), rng)))
    for m in _SETTING.finditer(text):
        edits.append((m.start(2), m.end(2), str(int(m.group(2)) + rng.choice([1, 10, 1000, 2]))))
    for m in _CLOCK.finditer(text):
        hour = (int(m.group(1)) + rng.choice([1, 2, 3, 6, 12])) % 24
        edits.append((m.start(), m.end(), f"{hour:02d}:{m.group(2)}"))
    for a, b in _OPPOSITES:
        for x, y in ((a, b), (b, a)):
            for m in re.finditer(rf"\b{re.escape(x)}\b", text):
                # "must" → "must not", not where "not" follows already
                if y.startswith(x) and text[m.end() :].startswith(" not"):
                    continue
                edits.append((m.start(), m.end(), y))
    return _applied(text, edits, rng)


_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve")  # fmt: skip
# (unit, its size in the next unit up, that unit): "120 minutes" is "2 hours"
_UP = {
    "ms": (1000, "seconds"), "milliseconds": (1000, "seconds"), "seconds": (60, "minutes"),
    "secs": (60, "minutes"), "minutes": (60, "hours"), "mins": (60, "hours"),
    "hours": (24, "days"), "hrs": (24, "days"), "days": (7, "weeks"), "months": (12, "years"),
    "g": (1000, "kg"), "mg": (1000, "g"), "ml": (1000, "litres"), "mL": (1000, "litres"),
    "m": (1000, "km"), "MB": (1024, "GB"), "MiB": (1024, "GiB"),
}  # fmt: skip
_SAME_WORDS = (
    ("daily", "every day"), ("weekly", "every week"), ("monthly", "every month"),
    ("hourly", "every hour"), ("yearly", "every year"), ("annually", "once a year"),
    ("percent", "%"), ("at least", "no less than"), ("at most", "no more than"),
    ("must not", "may not"), ("cannot", "can't"), ("is not", "isn't"), ("are not", "aren't"),
    ("twice", "two times"), ("before", "prior to"), ("immediately", "right away"),
)  # fmt: skip


def _spoken_clock(hour: int, minute: int) -> str:
    if (hour, minute) == (12, 0):
        return "noon"
    if (hour, minute) == (0, 0):
        return "midnight"
    twelve = hour % 12 or 12
    suffix = "am" if hour < 12 else "pm"
    return f"{twelve}{suffix}" if minute == 0 else f"{twelve}:{minute:02d} {suffix}"


def value_keep(text: str, rng: random.Random) -> str | None:
    """``text`` with one value written another way and meaning the same: a
    quantity in the next unit up, a small number in words, a time of day on
    the 12-hour clock, a frequency or a negation in other words ("120
    minutes" is "2 hours", "3 retries" "three retries", "14:00" "2pm",
    "daily" "every day")."""
    edits: list[Edit] = []
    for m in _NUMBER_UNIT.finditer(text):
        number, _space, unit = m.groups()
        if "." not in number:
            value = int(number)
            up = _UP.get(unit if unit in _UP else unit + "s")
            if up and value >= up[0] and value % up[0] == 0:
                n, bigger = value // up[0], up[1]
                said = f"one {bigger[:-1]}" if n == 1 and bigger.endswith("s") else f"{n} {bigger}"
                edits.append((m.start(), m.end(), said))
            if 1 <= value <= 12 and len(unit) > 2:
                edits.append((m.start(1), m.end(2), _WORDS[value - 1] + " "))
        if unit == "%" and number == "50":
            edits.append((m.start(), m.end(), "half"))
    for m in _CLOCK.finditer(text):
        if re.match(r"\s?(?:[ap]\.?m\b|[AP]\.?M\b)|\s?[-–]", text[m.end() :]) or re.search(
            r"[-–]\s?$", text[: m.start()]
        ):
            continue  # "9:00 a.m." is spoken already; a range keeps one form
        spoken = _spoken_clock(int(m.group(1)), int(m.group(2)))
        edits.append((m.start(), m.end(), spoken))
    for a, b in _SAME_WORDS:
        for x, y in ((a, b), (b, a)):
            for m in re.finditer(rf"(?<!\w){re.escape(x)}(?!\w)", text):
                edits.append((m.start(), m.end(), y))
    return _applied(text, edits, rng)


# "<things> require(s)|need(s) <what>.": one sentence, a plain subject (no
# clause, no leading phrase) and a plain requirement (no condition, no time)
_REQUIREMENT = re.compile(
    r"^(?P<s>[A-Z][^.,;:!?]{3,90}?)\s(?P<v>requires|require|needs|need)\s"
    r"(?P<o>(?:a|an|the|two|three|written|explicit|prior|[A-Z][\w-]*'s?)\b[^.;:!?]{2,80}?)\.$"
)
_NOT_PLAIN_SUBJECT = re.compile(
    r"\b(?:is|are|was|were|be|must|should|will|can|may|do|does|if|when|that|which|who|"
    r"also|additionally|always|only|now)\b",
    re.I,
)
_NOT_PLAIN_REQUIREMENT = re.compile(
    r"\b(?:before|only|when|if|unless|to|days?|hours?|minutes?|weeks?)\b", re.I
)


def _lower_first(text: str) -> str:
    """A sentence's opening word as it reads inside another ("Refunds" →
    "refunds"; "DNS", "PRs" and "Kingsgate Pharmacy" kept)."""
    if re.match(r"[A-Z]{2}|[A-Z][a-z]*[A-Z\d]|[A-Z]\w*\s[A-Z]", text):
        return text
    return text[0].lower() + text[1:]


def requirement_rewrite(text: str, rng: random.Random, *, keep: bool) -> str | None:
    """A requirement ("Refunds above $500 need a supervisor's sign-off.")
    written the other way round: as a permission withheld until it is met
    (``keep``: "Refunds above $500 are blocked until there is a
    supervisor's sign-off.", a restatement), or as lifted ("… do not need
    …", "… are allowed without …": a contradiction). None unless ``text``
    is one plain requirement."""
    m = _REQUIREMENT.match(text.strip())
    if not m or _NOT_PLAIN_SUBJECT.search(m["s"]) or _NOT_PLAIN_REQUIREMENT.search(m["o"]):
        return None
    s, verb, o = m["s"], m["v"], m["o"]
    be, do = ("are", "do") if verb in ("require", "need") else ("is", "does")
    base = "require" if verb.startswith("req") else "need"
    lower = _lower_first(s)
    single = bool(re.match(r"(?:a|an|the)\s|[A-Z][\w-]*'s?\s", o))  # "O is …" reads right
    upper = o[0].upper() + o[1:]
    if keep:
        forms = [f"{s} {be} not allowed without {o}.", f"Without {o}, {lower} {be} blocked."]
        if o.startswith(("a ", "an ")):
            forms.append(f"{s} {be} blocked until there is {o}.")
        if single:
            forms.append(f"{upper} is mandatory for {lower}.")
    else:
        forms = [f"{s} {do} not {base} {o}.", f"{s} no longer {verb} {o}.",
                 f"{s} {be} allowed without {o}."]  # fmt: skip
        if single:
            forms.append(f"{upper} is optional for {lower}.")
    return rng.choice(forms)


def subject_flip(text: str, rng: random.Random, places: dict[str, list[str]]) -> str | None:
    """``text`` naming another thing: a letter or a number of its name
    changed ("payments-a", "room 214", "Line 3"), or a place for another
    written before the same noun elsewhere (``places``: noun → names)."""
    edits: list[Edit] = []
    for m in _LETTERED.finditer(text):
        suffix = m.group(2)
        letter = chr((ord(suffix) - ord("a") + rng.choice([1, 2])) % 26 + ord("a"))
        edits.append((m.start(2), m.end(2), letter))
    valued = [(m.start(), m.end()) for m in _NUMBER_UNIT.finditer(text)]
    for m in _NUMBERED.finditer(text):
        name = m.group(2)
        if any(a <= m.start(2) < b for a, b in valued):  # "node 10 GiB": a value
            continue
        digits = re.sub(r"\D", "", name)
        if digits:
            new = name.replace(digits, str(int(digits) + rng.choice([1, 2, 5])))
        else:
            new = chr((ord(name) - ord("A") + 1) % 26 + ord("A"))
        edits.append((m.start(2), m.end(2), new))
    for m in _PLACE.finditer(text):
        rest = text[m.end(1) :].split()
        noun = rest[0] if rest else ""
        others = [n for n in places.get(noun, []) if n != m.group(1)]
        if others:
            edits.append((m.start(1), m.end(1), rng.choice(others)))
    return _applied(text, edits, rng)


def _distinct(lessons: Iterable[Lesson]) -> list[Lesson]:
    seen: set[str] = set()
    out = []
    for content, situation in lessons:
        if content not in seen:
            seen.add(content)
            out.append((content, situation))
    return out


Editor = Callable[[str, random.Random], str | None]


def _edited(lessons: Iterable[Lesson], limit: int, seed: int, edit: Editor) -> list[Flip]:
    """Up to ``limit`` lessons, each with one ``edit`` made, in a seeded order."""
    rng = random.Random(seed)  # noqa: S311 (reproducible training pairs, not secrets)
    out = []
    for content, situation in _distinct(lessons):
        edited = edit(content, rng)
        if edited:
            out.append((content, situation, edited))
    rng.shuffle(out)
    return out[:limit]


def value_flips(lessons: Iterable[Lesson], limit: int, seed: int = 0) -> list[Flip]:
    """Up to ``limit`` lessons, each with one value flipped (contradictions)."""
    return _edited(lessons, limit, seed, value_flip)


def value_keeps(lessons: Iterable[Lesson], limit: int, seed: int = 4) -> list[Flip]:
    """Up to ``limit`` lessons, each with one value written another way
    (restatements: duplicates)."""
    return _edited(lessons, limit, seed, value_keep)


def requirement_rewrites(
    lessons: Iterable[Lesson], limit: int, *, keep: bool, seed: int = 5
) -> list[Flip]:
    """Up to ``limit`` plain requirements written the other way round
    (``requirement_rewrite``): withheld until met (``keep``: duplicates) or
    lifted (contradictions)."""
    return _edited(lessons, limit, seed + keep,
                   lambda text, rng: requirement_rewrite(text, rng, keep=keep))  # fmt: skip


def subject_flips(lessons: Iterable[Lesson], seeds: Iterable[int] = (1, 2, 3)) -> list[Flip]:
    """Every lesson whose subject can be renamed, once a seed (a pair made
    twice counted once): two things, told apart by one word (novel)."""
    distinct = _distinct(lessons)
    places: dict[str, set[str]] = {}
    for content, _ in distinct:
        for m in _PLACE.finditer(content):
            # the word after the name, as written: "store." at a sentence's
            # end is a noun of its own (kept: the landed weights were fit so)
            rest = content[m.end(1) :].split()
            if m.group(1) not in _NOT_NAMES and rest:
                places.setdefault(rest[0], set()).add(m.group(1))
    ordered = {noun: sorted(names) for noun, names in places.items()}
    found: dict[tuple[str, str], str] = {}
    for seed in seeds:
        rng = random.Random(seed)  # noqa: S311 (as above)
        made = []
        for content, situation in distinct:
            flipped = subject_flip(content, rng, ordered)
            if flipped:
                made.append((content, situation, flipped))
        rng.shuffle(made)
        for content, situation, flipped in made:
            found[(content, flipped)] = situation
    return [(content, situation, flipped) for (content, flipped), situation in found.items()]
