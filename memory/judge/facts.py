"""Facts: the checkable values a lesson states, normalised for comparison.

A :class:`Fact` is one value in one *dimension* (a duration, a port, a time
of day...), optionally tied to a *key* (the version of *which* tool, the
count of *what*, the value of *which* setting). Values are normalised so
that "30 seconds", "30000 ms" and "half a minute" are the same duration,
"02:00 UTC", "2am UTC" and "03:00 CET" the same time, "1 GiB" and
"1024 MiB" the same size.

:func:`extract_facts` reads a token list and also reports which tokens it
used, so that those tokens are not compared a second time as plain words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, TypeGuard

from memory.judge import lexicon as lx
from memory.judge.text import Kind, Role, Token, is_verb, stem

# Dimensions a fact can have.
DURATION = "duration"
INTERVAL = "interval"
SIZE = "size"
PERCENT = "percent"
RATE = "rate"
PORT = "port"
STATUS = "status"
VERSION = "version"
TIME = "time"
WEEKDAY = "weekday"
COUNT = "count"
SETTING = "setting"
LOCATION = "location"
MONEY = "money"  # key: the currency code
ORDINAL_DAY = "dayofmonth"  # "on the 25th"
QUANTITY = "quantity"  # any other physical unit, through pint; key: its dimensionality
HOLDER = "holder"  # who approves, owns or decides ("approved by the fleet manager")

# Dimensions that only qualify a statement ("nightly", "on Mondays"): a lesson
# that adds one of them still restates a lesson that lacks it.
# A holder is one too: "refunds need team-lead approval" restates "refunds
# are approved by the team lead"; two holders of one approval conflict.
SOFT_DIMENSIONS: frozenset[str] = frozenset({INTERVAL, WEEKDAY, HOLDER})

_WEEKDAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


# Capitals that, written against a number, are its unit or dimension:
# degrees Celsius, Fahrenheit, Kelvin; "3D"; volts, watts, giga-, mega-, tera-.
_UNIT_LETTERS = frozenset("CFKDVWGMT")


def _naming_noun(tok: Token | None) -> TypeGuard[Token]:
    """Whether a number right after ``tok`` may name one of it: a noun
    ("cluster 3", "Route 14A"), not a verb, an auxiliary or a negation."""
    return (
        tok is not None
        and tok.kind is Kind.WORD
        and tok.role is Role.CONTENT
        and tok.polarity is None
        and not tok.aux
        and not is_verb(tok.lemma)
    )


@dataclass(frozen=True)
class Fact:
    """One normalised value.

    ``value`` holds numbers whose meaning depends on ``dim``: seconds for
    durations and intervals, ``(SI bytes, binary bytes)`` for sizes, events
    per second for rates, minutes after local midnight for times (``tz`` is
    the UTC offset in minutes when the lesson named a zone), version parts,
    weekday indexes (Monday is 0). ``label`` holds text values (settings,
    locations). ``text`` is how the lesson wrote it, for rationales.
    """

    dim: str
    key: str
    value: tuple[float, ...]
    text: str
    tz: int | None = None
    label: str = ""
    pos: int = -1  # index of the fact's first token
    bound: int = 0  # -1 "under 25", +1 "over 25", 0 a plain value


def _unit_of(f: Fact) -> str:
    """The unit a measure was written in ("1.8 m" -> "m")."""
    return f.text.rsplit(" ", 1)[-1].lower()


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _version_equal(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Equal after padding with zeros; "3" is compatible with "3.11" (a prefix)."""
    n = max(len(a), len(b))
    pa = a + (0.0,) * (n - len(a))
    pb = b + (0.0,) * (n - len(b))
    if pa == pb:
        return True
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) < len(long_) and long_[: len(short)] == short


def same_value(a: Fact, b: Fact) -> bool:
    """Whether two facts of the same dimension state the same value."""
    if a.dim != b.dim:
        return False
    if a.dim == SIZE:
        return _close(a.value[0], b.value[0]) or _close(a.value[1], b.value[1])
    if a.dim == TIME:
        if a.tz is not None and b.tz is not None:
            return (a.value[0] - a.tz) % 1440 == (b.value[0] - b.tz) % 1440
        return a.value[0] == b.value[0]
    if a.dim == VERSION:
        return _version_equal(a.value, b.value)
    if a.dim in (SETTING, LOCATION):
        return a.label == b.label
    if a.dim == HOLDER:
        # "the regional fleet manager" is a fleet manager
        short, long_ = sorted((a.label.split(), b.label.split()), key=len)
        return long_[len(long_) - len(short) :] == short
    if a.dim == WEEKDAY:
        return a.value == b.value
    if a.dim == QUANTITY and a.key == b.key == "[temperature]" and len(a.value) == len(b.value):
        # one scale converted to the other is rounded to whole degrees
        # ("36-46 °F" is "2-8 °C"): within half a degree Celsius
        return all(abs(x - y) <= 0.5 for x, y in zip(a.value, b.value, strict=True))
    if a.dim == QUANTITY and _unit_of(a) != _unit_of(b) and len(a.value) == len(b.value):
        # so is a measure converted to other units ("88.5 ft-lb" for "120 N·m",
        # "6 ft" for "1.8 m"): within 2 %
        return all(math.isclose(x, y, rel_tol=0.02) for x, y in zip(a.value, b.value, strict=True))
    if (
        a.dim in (DURATION, INTERVAL)
        and _unit_of(a) != _unit_of(b)
        and len(a.value) == len(b.value)
        and min(a.value + b.value) >= _MONTHS_FROM
    ):
        # a month is 30 days, a year 365: "every 36 months" is "every three
        # years", "12 months" a year, written in other calendar units (within 2 %)
        return all(math.isclose(x, y, rel_tol=0.02) for x, y in zip(a.value, b.value, strict=True))
    return len(a.value) == len(b.value) and all(
        _close(x, y) for x, y in zip(a.value, b.value, strict=True)
    )


_MONTHS_FROM = 28 * 86400.0  # lengths from four weeks up are read in calendar units


def _key_parts(key: str) -> set[str]:
    return {stem(p) for p in re.split(r"[_.\-]+", key.lower().lstrip("-")) if p}


def keys_match(a: str, b: str) -> bool:
    """Whether two fact keys name the same thing: equal, or one is a part of the
    other's identifier ("connection" and "max_connections")."""
    if a == b:
        return True
    if not a or not b:
        return False
    return a in _key_parts(b) or b in _key_parts(a)


def describe(f: Fact) -> str:
    """A short human-readable rendering of a fact for rationales."""
    if f.dim == PORT:
        return f"port {int(f.value[0])}"
    if f.dim == VERSION:
        version = ".".join(str(int(p)) for p in f.value)
        return f"{f.key} {version}".strip()
    if f.dim == WEEKDAY:
        return "/".join(_WEEKDAY_NAMES[int(d)] for d in f.value)
    if f.dim == SETTING:
        return f"{f.key}={f.label}"
    return f.text


# --- the scanner -------------------------------------------------------------

_UNIT_WORDS = {
    *lx.DURATION_UNITS, *lx.SIZE_UNITS, *lx.PERCENT_WORDS, *lx.RATE_UNITS, *lx.CURRENCY_CODES,
    *lx.PINT_UNITS,
}  # fmt: skip


@cache
def _units() -> Any:
    import pint

    return pint.UnitRegistry()


def _quantity(value: float, unit: str) -> tuple[str, float] | None:
    """A value in base units and its dimensionality ("[mass]"), or None."""
    try:
        q = _units().Quantity(value, lx.PINT_UNITS.get(unit, unit)).to_base_units()
    except Exception:  # pint raises many kinds; an odd unit is just not a fact
        return None
    return str(q.dimensionality), float(q.magnitude)


_BARE_LETTER_UNITS = {"m", "s", "h", "d", "b"}
_UPPER_BOUND = frozenset(
    {"under", "below", "less", "fewer", "smaller", "lower", "upto", "most", "within", "max"}
)
_LOWER_BOUND = frozenset(
    {"over", "above", "exceed", "exceeds", "exceeding", "more", "greater", "larger", "bigger",
     "higher", "least", "min", "beyond"}
)  # fmt: skip
_INTERVAL_NOUNS = {"interval", "intervals", "frequency", "cadence", "period"}
# the verbs a value goes past a bound by ("never *drop* below 7")
MOVES_PAST = frozenset(
    {"drop", "fall", "go", "dip", "sink", "rise", "climb", "get", "be", "run", "exceed", "pass"}
)


def _low(tok: Token) -> str:
    return tok.raw.lower()


class _Scanner:
    """Left-to-right scan of one token list; collects facts and used indexes."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.t = tokens
        self.n = len(tokens)
        self.facts: list[Fact] = []
        self.used: set[int] = set()
        self.lemmas = {tok.lemma for tok in tokens}
        self.words = {_low(tok) for tok in tokens}

    # helpers ---------------------------------------------------------------

    def low(self, i: int) -> str:
        return _low(self.t[i]) if 0 <= i < self.n else ""

    def add(self, fact: Fact, *indexes: int) -> None:
        if indexes:
            bound = self.bound_before(min(indexes)) or self.bound_after(max(indexes))
            fact = replace(fact, pos=min(indexes), bound=bound)
        self.facts.append(fact)
        self.used.update(indexes)

    def bound_before(self, i: int) -> int:
        """Whether the value at ``i`` is a lower or an upper bound ("over 25",
        "less than 25"), from the words just before it in its sentence."""
        j = i - 1
        while j >= 0 and i - j <= 3 and self.t[j].kind is not Kind.PUNCT:
            words = {self.low(j), self.t[j].lemma}  # "at least" is read as "least"
            # "no less than ten days" is a floor, "not more than" a ceiling,
            # "must never drop below 7 mg/L" a floor
            negated = self.low(j - 1) in ("no", "not") or (
                self.low(j - 1) in MOVES_PAST and self.low(j - 2) in ("not", "never", "n't")
            )
            sign = -1 if negated else 1
            if words & _UPPER_BOUND:
                return -sign
            if words & _LOWER_BOUND:
                return sign
            j -= 1
        return 0

    def bound_after(self, i: int) -> int:
        """A bound written after the value: "$50 or more", "5 or fewer"."""
        word = self.low(i + 1)
        if word.startswith(("or ", "and ")):  # a phrase the tokenizer merged ("or more")
            return _BOUND_AFTER.get(word.split()[-1], 0)
        if word not in ("or", "and"):
            return 0
        return _BOUND_AFTER.get(self.low(i + 2), 0)

    def text(self, start: int, end: int) -> str:
        return " ".join(tok.raw for tok in self.t[start:end])

    def prev_content(self, i: int, reach: int = 4) -> int | None:
        """Index of the nearest content word before ``i`` within ``reach`` tokens."""
        j = i - 1
        while j >= 0 and i - j <= reach:
            tok = self.t[j]
            if tok.kind is Kind.PUNCT:
                return None
            if tok.role is Role.CONTENT and tok.kind in (Kind.WORD, Kind.ENTITY):
                return j
            j -= 1
        return None

    def is_interval_start(self, i: int) -> bool:
        """ "every 15 minutes", "the checkpoint interval for jobs is 15 minutes"."""
        if self.low(i - 1) in ("every", "each"):
            return True
        j = i - 1
        while j >= 0 and self.t[j].kind is not Kind.PUNCT:
            if self.low(j) in _INTERVAL_NOUNS:
                return True
            j -= 1
        return False

    # value kinds -------------------------------------------------------------

    def time_token(self, i: int) -> None:
        raw = self.low(i)
        m = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?(?::\d{2})?([ap]m)?", raw)
        if m is None:
            return
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        if m.group(3) == "pm" and hour < 12:
            hour += 12
        if m.group(3) == "am" and hour == 12:
            hour = 0
        if hour > 24 or minute > 59:
            return
        end = i + 1
        tz = lx.TIMEZONES.get(self.low(i + 1))
        if tz is not None:
            end = i + 2
        self.add(
            Fact(TIME, "", (float(hour * 60 + minute),), self.text(i, end), tz=tz),
            *range(i, end),
        )

    def shared_meridiem(self, i: int, value: float) -> bool:
        """ "between 1 and 3 a.m.", "from 10 to 11 pm": the range's first
        hour takes the am / pm written after the second."""
        end = self.t[i + 2] if i + 2 < self.n else None
        if not (
            end is not None
            and end.kind is Kind.TIME
            and self.low(i + 1) in ("and", "to", "-", "–", "through", "until", "till")
            and float(value).is_integer()
            and 1 <= value <= 12
        ):
            return False
        meridiem = re.search(r"([ap])\.?m\.?$", end.raw.lower())
        if meridiem is None:
            return False
        afternoon = meridiem.group(1) == "p"
        last = re.match(r"\d{1,2}", end.raw)
        if last is not None and int(value) % 12 > int(last.group(0)) % 12:
            afternoon = not afternoon  # "11 to 1 pm" starts in the morning
        hour = int(value) % 12 + (12 if afternoon else 0)
        said = self.t[i].raw + ("pm" if afternoon else "am")
        self.add(Fact(TIME, "", (float(hour * 60),), said), i)
        return True

    def cron(self, i: int) -> None:
        fields = self.t[i].raw.split()
        if len(fields) != 5 or not all(re.fullmatch(r"[\d*/,\-A-Za-z?#L]+", f) for f in fields):
            return
        minute, hour, dom, month, dow = fields
        text = self.t[i].raw
        if minute.isdigit() and hour.isdigit():
            self.add(Fact(TIME, "", (float(int(hour) * 60 + int(minute)),), text), i)
            if dom == "*" and month == "*" and dow == "*":
                self.add(Fact(INTERVAL, "", (86400.0,), text), i)
            elif dow.isdigit() and dom == "*":
                self.add(Fact(WEEKDAY, "", (float((int(dow) - 1) % 7),), text), i)
        elif minute.isdigit() and hour == "*":
            self.add(Fact(INTERVAL, "", (3600.0,), text), i)
        elif (m := re.fullmatch(r"\*/(\d+)", minute)) and hour == "*":
            self.add(Fact(INTERVAL, "", (int(m.group(1)) * 60.0,), text), i)

    def version_anchor(self, i: int) -> str | None:
        """The tool a version belongs to: a technology name just before it."""
        j = i - 1
        while j >= 0 and i - j <= 3:
            tok = self.t[j]
            if tok.etype == "tech":
                return tok.lemma
            if tok.kind is Kind.OP or _low(tok) in ("version", "v", "at", "is", "be"):
                j -= 1
                continue
            return None
        return None

    def name_before(self, i: int) -> str | None:
        """The plain name right before ``i`` ("Gradle" in "Gradle 8.5"), if any."""
        if i == 0:
            return None
        tok = self.t[i - 1]
        if (
            tok.kind in (Kind.WORD, Kind.ENTITY)
            and tok.role is Role.CONTENT
            and tok.polarity is None
            and not tok.aux
            and not tok.verb
            and not is_verb(tok.lemma)
        ):
            return tok.lemma
        return None

    def version(self, i: int, raw: str, anchor: str) -> None:
        parts = tuple(float(p) for p in re.findall(r"\d+", raw))
        self.add(Fact(VERSION, anchor, parts, self.t[i].raw), i)

    def word_number(self, i: int) -> tuple[float, int] | None:
        """Parse number words at ``i`` ("half a", "a quarter of an", "twenty five").

        Returns the value and the index of the first token after them. "a"/"an"
        alone count as one only when a duration or size unit follows.
        """
        w = self.low
        if w(i) == "half" and w(i + 1) in ("a", "an"):
            return 0.5, i + 2
        if w(i) == "half":
            return 0.5, i + 1
        j = i + 1 if w(i) in ("a", "an", "one") else i
        if w(j) == "quarter":
            j += 1
            if w(j) == "of":
                j += 1
            if w(j) in ("a", "an"):
                j += 1
            return 0.25, j
        if w(i) in ("a", "an"):
            nxt = self.t[i + 2] if i + 2 < self.n else None
            if (
                w(i + 1) == "second"
                and nxt is not None
                and nxt.kind is Kind.WORD
                and nxt.role is Role.CONTENT
                and not is_verb(nxt.lemma)
            ):
                return None  # "a second registered nurse" is the ordinal
            if w(i + 1) in lx.DURATION_UNITS or w(i + 1) in lx.SIZE_UNITS:
                return 1.0, i + 1
            return None
        total, current, j = 0.0, 0.0, i
        while w(j) in lx.NUMBER_WORDS or (w(j) == "and" and w(j + 1) in lx.NUMBER_WORDS):
            word = w(j)
            if word == "and":
                j += 1
                continue
            value = lx.NUMBER_WORDS[word]
            if word in ("hundred", "thousand"):
                current = max(current, 1.0) * value
                if word == "thousand":
                    total, current = total + current, 0.0
            else:
                current += value
            j += 1
        if j == i:
            return None
        return total + current, j

    def quantity(self, start: int, value: float, j: int) -> None:
        """A number (digits or words) spanning ``start``..``j-1``; read what follows."""
        w = self.low
        raw_start = self.t[start]
        if w(j) in lx.SCALE_WORDS:
            value *= lx.SCALE_WORDS[w(j)]
            j += 1
        if w(j) == "and" and w(j + 1) == "a" and w(j + 2) == "half":
            value += 0.5
            j += 3
        unit = w(j)
        is_digit = raw_start.kind is Kind.NUMBER
        integral = float(value).is_integer()
        # "Route 14A", "Substation 12B": a number written against one capital
        # right after a noun names a thing (not "14 a", not 12 bytes); after
        # a noun not capitalised, "85F" and "3D" are a unit and a dimension
        prev = self.t[start - 1] if start > 0 else None
        letter = self.t[j] if j == start + 1 and j < self.n else None
        if (
            is_digit
            and integral
            and letter is not None
            and letter.glued
            and letter.kind is Kind.WORD
            and _naming_noun(prev)
            and (prev.raw[:1].isupper() or letter.raw not in _UNIT_LETTERS)
        ):
            self.name_after_noun(start, raw_start.raw + letter.raw, [j])
            return
        # ports first: "port 5432", "localhost:5432", "listens on 6379"
        if is_digit and integral and 0 < value < 65536 and unit not in _UNIT_WORDS:
            p = self.prev_content(start, reach=2)
            if raw_start.port_hint:
                self.add(Fact(PORT, "", (value,), raw_start.raw), start)
                return
            if p is not None and self.t[p].lemma == "port":
                # the word "port" is part of the fact, not content of its own
                self.add(Fact(PORT, "", (value,), raw_start.raw), start, p)
                return
            if w(start - 1) in ("on", "at") and self.lemmas & lx.PORT_CONTEXT and value >= 80:
                self.add(Fact(PORT, "", (value,), raw_start.raw), start)
                return
        # versions: "Python 3.11", "Node 20", "version 2.3"
        if is_digit and unit not in _UNIT_WORDS:
            anchor = self.version_anchor(start)
            if anchor is not None:
                self.version(start, raw_start.raw, anchor)
                return
            if "." in raw_start.raw and w(start - 1) in ("version", "v"):
                self.version(start, raw_start.raw, "")
                return
            # "Gradle 8.5": a dotted number right after a name is that name's version
            name = self.name_before(start)
            if "." in raw_start.raw and name is not None and name not in lx.MEASURED_BY_NAME:
                self.version(start, raw_start.raw, name)
                return
        # a speed: "1.0 m/s" (read "m per s"), "10 ft/s", "30 km per hour"
        per = _SPEED_TIME.get(w(j + 2)) if w(j + 1) in ("per", "/") else None
        if per is not None and unit in _SPEED_LENGTH:
            measured = _quantity(value, f"{_SPEED_LENGTH[unit]}/{per}")
            if measured is not None:
                text = self.text(start, j + 3)
                self.add(Fact(QUANTITY, measured[0], (measured[1],), text), *range(start, j + 3))
                return
        if unit == "m" and self.words & lx.LENGTH_CUES:
            unit = "metre"  # "pallets no higher than 1.8 m"
        if unit in lx.DURATION_UNITS and (unit not in _BARE_LETTER_UNITS or is_digit):
            seconds = value * lx.DURATION_UNITS[unit]
            j += 1
            if w(j) == "and" and w(j + 1) == "a" and w(j + 2) == "half":
                seconds += 0.5 * lx.DURATION_UNITS[unit]
                j += 3
            # "1 hour 30 minutes", "1h30m"
            while (
                j + 1 < self.n and self.t[j].kind is Kind.NUMBER and w(j + 1) in lx.DURATION_UNITS
            ):
                seconds += (self.t[j].value or 0.0) * lx.DURATION_UNITS[w(j + 1)]
                j += 2
            dim = INTERVAL if self.is_interval_start(start) else DURATION
            self.add(Fact(dim, "", (seconds,), self.text(start, j)), *range(start, j))
            if dim == INTERVAL:
                self.used.add(start - 1)
            return
        if unit in lx.SIZE_UNITS:
            si, binary = lx.SIZE_UNITS[unit]
            self.add(
                Fact(SIZE, "", (value * si, value * binary), self.text(start, j + 1)),
                *range(start, j + 1),
            )
            return
        # "425 bps APY", "50 basis points": hundredths of a percent, beside a rate
        if (unit in ("bps", "bp") and self.words & _RATE_CUES) or (
            unit == "basis" and w(j + 1) in ("point", "points")
        ):
            end = j + 2 if unit == "basis" else j + 1
            self.add(Fact(PERCENT, "", (value / 100,), self.text(start, end)), *range(start, end))
            return
        # "one user in twenty", "1 in 20 requests", "three out of four": a share
        share = self.share(j)
        if share is not None and share[0] > 0 and value <= share[0]:
            self.add(
                Fact(PERCENT, "", (100 * value / share[0],), self.text(start, share[1])),
                *range(start, share[1]),
            )
            return
        if unit in lx.PERCENT_WORDS:
            if self.low(j + 1) not in _LEFT_FREE:
                self.add(Fact(PERCENT, "", (value,), self.text(start, j + 1)), *range(start, j + 1))
                return
            # "less than 15% free" is "more than 85% used": the share in use,
            # bounded the other way
            self.add(
                Fact(PERCENT, "", (100.0 - value,), self.text(start, j + 2)), *range(start, j + 2)
            )
            self.facts[-1] = replace(self.facts[-1], bound=-self.facts[-1].bound)
            return
        if unit in lx.PINT_UNITS and unit not in lx.DURATION_UNITS:
            measured = _quantity(value, unit)
            if measured is not None:
                text = self.text(start, j + 1)
                self.add(Fact(QUANTITY, measured[0], (measured[1],), text), *range(start, j + 1))
                return
        if unit in lx.CURRENCY_CODES:
            self.add(Fact(MONEY, unit, (value,), self.text(start, j + 1)), *range(start, j + 1))
            return
        # "4 times an hour" is every 15 minutes
        if (
            w(j) in ("times", "time", "x")
            and w(j + 1) in lx.RATE_JOINERS
            and w(j + 2) in lx.DURATION_UNITS
            and value > 0
        ):
            seconds = lx.DURATION_UNITS[w(j + 2)] / value
            self.add(Fact(INTERVAL, "", (seconds,), self.text(start, j + 3)), *range(start, j + 3))
            return
        if unit in lx.RATE_UNITS:
            rate = value * lx.RATE_UNITS[unit]
            self.add(Fact(RATE, "", (rate,), self.text(start, j + 1)), *range(start, j + 1))
            return
        # "100 per minute", "100 requests per minute", "5000 requests an hour"
        if w(j) in lx.RATE_JOINERS and w(j + 1) in lx.DURATION_UNITS:
            rate = value / lx.DURATION_UNITS[w(j + 1)]
            self.add(Fact(RATE, "", (rate,), self.text(start, j + 2)), *range(start, j + 2))
            return
        if (
            j < self.n
            and self.t[j].role is Role.CONTENT
            and self.t[j].kind is Kind.WORD
            and w(j + 1) in lx.RATE_JOINERS
            and w(j + 2) in lx.DURATION_UNITS
        ):
            rate = value / lx.DURATION_UNITS[w(j + 2)]
            # the noun ("requests") stays content; the number and its unit are used
            self.add(Fact(RATE, "", (rate,), self.text(start, j + 3)), start, j + 1, j + 2)
            return
        # HTTP status codes: "answers 429", "returns HTTP 503"
        if is_digit and integral and 100 <= value <= 599:
            p = self.prev_content(start, reach=2)
            after = self.t[j].lemma if j < self.n else ""
            if (p is not None and self.t[p].lemma in lx.STATUS_CONTEXT) or after in (
                "status",
                "error",
                "code",
                "respons",
            ):
                self.add(Fact(STATUS, "", (value,), raw_start.raw), start)
                return
        # "service number 3", "shard 12", "cluster 3-18": a number right after
        # a noun, with no noun after it — or hyphenated numbers, whatever
        # follows ("cluster 3-18 logs …") — names something; it becomes part
        # of the subject (with the numbers hyphenated to it)
        prev = self.t[start - 1] if start > 0 else None
        end = j
        while end < self.n and self.t[end].glued and self.t[end].kind is Kind.NUMBER:
            end += 1
        next_tok = self.t[end] if end < self.n else None
        follows_noun = (
            next_tok is not None
            and next_tok.role is Role.CONTENT
            and not (next_tok.verb or next_tok.aux or is_verb(next_tok.lemma))
        )
        # or the heading a lesson opens on ("Hole 7 green: …", "Kiln 3 glaze: …")
        heading = (
            start == 1
            and prev is not None
            and prev.raw[:1].isupper()
            and any(self.t[k].raw == ":" for k in range(end, min(end + 3, self.n)))
        )
        if (
            is_digit
            and integral
            and _naming_noun(prev)
            and (not follows_noun or end > j or heading)
        ):
            written = raw_start.raw + "".join(f"-{self.t[k].raw}" for k in range(j, end))
            self.name_after_noun(start, written, range(j, end))
            return
        # a count of something: "8 uvicorn workers", "concurrency of 8"
        key = ""
        if j < self.n and self.t[j].role is Role.CONTENT and self.t[j].kind is Kind.WORD:
            # the head of the noun phrase: "4 parallel Playwright *workers*"
            k = j
            while (
                k + 1 < self.n
                and self.t[k + 1].role is Role.CONTENT
                and self.t[k + 1].kind in (Kind.WORD, Kind.ENTITY)
                and self.t[k + 1].polarity is None
                and not is_verb(self.t[k + 1].lemma)
            ):
                k += 1
            key = self.t[k].lemma
        else:
            key = self.count_subject(start)
            # a setting whose name carries its unit: "terminationGracePeriodSeconds: 90",
            # "timeout_ms = 500", "max_body_mb: 10"
            named = self.setting_before(start)
            fact = _measured_by_name(named.raw, value, self.text(start, j)) if named else None
            if fact is not None:
                self.add(fact, *range(start, j))
                return
        self.add(Fact(COUNT, key, (value,), self.text(start, j)), *range(start, j))

    def ranked(self, i: int) -> bool:
        """A number word that names a rank ("priority-one outages", "tier
        two support", "severity one"), not a count."""
        j = i - 2 if i >= 2 and self.t[i - 1].raw in ("-", "–") else i - 1
        return j >= 0 and self.low(j) in _RANK_NOUNS

    def setting_before(self, i: int) -> Token | None:
        """The setting name a trailing number is the value of, if any: a
        name earlier in the sentence, or the name right before (across
        ":" or "=")."""
        j = i - 1
        while j >= 0 and self.t[j].kind is not Kind.PUNCT:
            if self.t[j].etype in ("envvar", "ident", "flag"):
                return self.t[j]
            j -= 1
        j = i - 2 if i >= 2 and self.t[i - 1].kind is Kind.OP else i - 1
        if j >= 0 and self.t[j].kind is Kind.ENTITY:
            return self.t[j]
        return None

    def share(self, j: int) -> tuple[float, int] | None:
        """ "in twenty" / "out of four" at ``j`` (after one counted noun at
        most): the whole a number before it is a share of, and the index
        after it — not "one in ten minutes"."""
        w = self.low
        counted = j < self.n and self.t[j].role is Role.CONTENT and w(j) not in ("in", "out")
        k = j + 1 if counted else j
        if w(k) == "in":
            k += 1
        elif w(k) == "out" and w(k + 1) == "of":
            k += 2
        else:
            return None
        number = self.t[k].value if k < self.n and self.t[k].kind is Kind.NUMBER else None
        if number is not None:
            whole, after = number, k + 1
        else:
            read = self.word_number(k)
            if read is None:
                return None
            whole, after = read
        if w(after) in lx.DURATION_UNITS or w(after) in lx.SIZE_UNITS:
            return None
        # "one service in two regions" counts two things, not a share
        noun_after = after < self.n and self.t[after].role is Role.CONTENT
        if counted and noun_after and self.t[after].lemma != self.t[j].lemma:
            return None
        return whole, after

    def name_after_noun(self, start: int, written: str, used: Iterable[int]) -> None:
        """The number at ``start`` (``written``: with what is joined to it)
        becomes a name with the noun before it: "cluster 3-18", "Route 14A"."""
        tok, noun = self.t[start], self.t[start - 1]
        tok.kind, tok.role, tok.etype = Kind.ENTITY, Role.CONTENT, "ident"
        tok.lemma = f"{noun.lemma} {written.lower()}"
        tok.raw = f"{noun.raw} {written}"
        self.used.update(used)

    def count_subject(self, i: int) -> str:
        """What a trailing number counts: "concurrency of 8", "max_connections ... is 500".

        A setting name earlier in the sentence wins; otherwise the nearest word
        before the number, looking through "count"/"number" to what is counted.
        """
        j = i - 1
        while j >= 0 and self.t[j].kind is not Kind.PUNCT:
            if self.t[j].etype in ("envvar", "ident", "flag"):
                return self.t[j].lemma
            j -= 1
        p = self.prev_content(i)
        if p is None:
            return ""
        if self.low(p) in lx.COUNT_NOUNS and p > 0 and self.t[p - 1].role is Role.CONTENT:
            return self.t[p - 1].lemma
        return self.t[p].lemma

    def weekdays(self, i: int) -> int:
        """Days named in a row: a list ("Monday and Thursday", "Sat, Sun")
        or a range ("Monday through Friday", "Mon–Fri", "Monday-Friday":
        two days with only a dash or "through"/"to" between them)."""
        days: set[int] = set()
        j = i
        last: int | None = None  # the day before, while a range may follow
        ranged = False
        while j < self.n:
            word = self.low(j)
            named = (
                day_range(word)
                or lx.WEEKDAYS.get(word)
                or (lx.WEEKDAY_SHORT.get(word) if _day_beside(self, j) else None)
            )
            if named:
                if ranged and last is not None and len(named) == 1:
                    named = _days_between(last, named[0])
                days.update(named)
                self.used.add(j)
                last, ranged = (named[-1], True) if len(named) == 1 else (None, False)
            elif word in _RANGE_WORDS and last is not None and _day_at(self, j + 1):
                ranged = True
            elif word in ("and", "or", ",") and _day_at(self, j + 1):
                last, ranged = None, False
            else:
                break
            j += 1
        self.facts.append(
            Fact(WEEKDAY, "", tuple(float(d) for d in sorted(days)), self.text(i, j), pos=i)
        )
        return j

    def assignment(self, i: int) -> None:
        """``KEY=value`` / ``Header: value`` -> a setting fact for KEY."""
        if i == 0 or i + 1 >= self.n:
            return
        key, value = self.t[i - 1], self.t[i + 1]
        if key.kind not in (Kind.ENTITY, Kind.WORD) or key.role is not Role.CONTENT:
            return
        if self.t[i].raw == ":" and key.kind is not Kind.ENTITY:
            return
        if value.kind is Kind.NUMBER and value.value is not None and i + 1 not in self.used:
            measured = _measured_by_name(key.raw, value.value, value.raw)
            if measured is not None:  # "timeout_ms = 500" is half a second
                self.add(measured, i + 1)
                return
            self.add(Fact(SETTING, key.lemma, (), value.raw, label=value.raw), i - 1, i + 1)
            self.used.discard(i - 1)
        elif value.kind in (Kind.WORD, Kind.ENTITY, Kind.CODE) and i + 1 not in self.used:
            if self.t[i].raw == ":" and self._opens_sentence(i + 1):
                return  # "Relaks Kraków: the sauna closes …" is a heading, no setting
            label = value.raw.lower().rstrip("/")
            if label in ("on", "yes"):
                value.role, value.lemma, value.polarity = Role.CONTENT, "true", ("true", 1)
            elif label in ("off", "no"):
                value.role, value.lemma, value.polarity = Role.CONTENT, "true", ("true", -1)
            self.facts.append(Fact(SETTING, key.lemma, (), value.raw, label=label, pos=i - 1))

    def _opens_sentence(self, i: int) -> bool:
        """Whether the word at ``i``, after a colon, opens a sentence rather
        than being a value: an article or another little word, or a
        capitalised word followed by more words ("Kraków: Die Sauna …")."""
        value = self.t[i]
        if value.kind is Kind.WORD and value.role is not Role.CONTENT:
            return True
        following = self.t[i + 1] if i + 1 < self.n else None
        return (
            value.raw[:1].isupper()
            and not value.raw.isupper()
            and following is not None
            and following.kind is Kind.WORD
        )

    def holders(self) -> None:
        """Who approves, owns or decides: "approved by the fleet manager",
        "sign-off sits with the Chief Claims Officer", "the Regional Claims
        Director is the approver". The holder's words are its value."""
        w = self.low
        for i in range(self.n):
            start = None
            held = range(max(0, i - 2), i)
            if w(i) == "by" and any(
                self.t[j].lemma in _HELD_VERBS or w(j) in _HELD_VERBS for j in held
            ):
                start = i + 1
            elif w(i) in ("sits", "rests", "lies", "sit", "rest", "lie") and w(i + 1) == "with":
                start = i + 2
            elif (
                w(i) in ("is", "are")
                and w(i + 1) in ("the", "an", "a")
                and (
                    w(i + 2) in _HOLDER_NOUNS
                    or (w(i + 2) in ("sole", "only", "final") and w(i + 3) in _HOLDER_NOUNS)
                )
            ):
                self.holder_before(i)
                continue
            elif self.t[i].lemma in _HOLDING_VERBS and i > 0:
                # "only the standards editor can approve corrections", "the
                # CFO approves exceptions": the holder is the verb's subject
                j = i - 1 if w(i - 1) in _MODALS else i
                if j < i or w(i).endswith("s"):
                    self.holder_before(j)
            if start is not None:
                self.holder_after(start)

    def holder_after(self, i: int) -> None:
        while i < self.n and self.low(i) in _HOLDER_DETERMINERS:
            i += 1
        end = i
        while end < self.n and end - i < 5 and self.holder_word(end):
            end += 1
        if end > i:
            self.holder(i, end)

    def holder_before(self, i: int) -> None:
        start = i
        while start > 0 and i - start < 5 and self.holder_word(start - 1):
            start -= 1
        if start < i:
            self.holder(start, i)

    def holder_word(self, i: int) -> bool:
        tok = self.t[i]
        return (
            tok.kind in (Kind.WORD, Kind.ENTITY)
            and tok.role is Role.CONTENT
            and i not in self.used
            and not tok.verb
            and self.low(i) not in _HOLDER_STOPS
        )

    def holder(self, start: int, end: int) -> None:
        label = " ".join(self.t[k].lemma for k in range(start, end))
        self.add(Fact(HOLDER, "", (), self.text(start, end), label=label), *range(start, end))

    # main loop -----------------------------------------------------------------

    def run(self) -> None:
        i = 0
        while i < self.n:
            if i in self.used:
                i += 1
                continue
            tok = self.t[i]
            word = _low(tok)
            if tok.kind is Kind.TIME:
                self.time_token(i)
            elif tok.kind is Kind.CODE:
                self.cron(i)
            elif tok.kind is Kind.VERSION:
                anchor = self.version_anchor(i) or self.name_before(i) or ""
                self.version(i, tok.lemma, anchor)
            elif tok.kind is Kind.NUMBER and tok.value is not None:
                # "KEY=4096" is a setting, read by the assignment pass below
                if self.shared_meridiem(i, tok.value):
                    pass
                elif not (i > 0 and self.t[i - 1].raw == "=") or self.low(i + 1) in _MEASURED:
                    # "statement_timeout=90s" is a duration, as "set to a minute and a half"
                    self.quantity(i, tok.value, i + 1)
            elif tok.kind is Kind.ENTITY and day_range(word) is not None:
                i = self.weekdays(i)  # "Mon-Fri" as one token
                continue
            elif tok.kind is Kind.WORD:
                if word in lx.FREQUENCY_WORDS and self.low(i + 1) not in _PAID_BY_THE:
                    self.add(Fact(INTERVAL, "", (lx.FREQUENCY_WORDS[word],), tok.raw), i)
                elif (
                    word in lx.WEEKDAYS
                    or day_range(word) is not None
                    or (word in lx.WEEKDAY_SHORT and _day_beside(self, i))
                ):
                    i = self.weekdays(i)
                    continue
                elif word in ("noon", "midday", "midnight"):
                    minutes = 720.0 if word != "midnight" else 0.0
                    self.add(Fact(TIME, "", (minutes,), tok.raw), i)
                elif word in ("every", "each") and (
                    self.low(i + 1) in lx.DURATION_UNITS
                    or (self.low(i + 1) == "single" and self.low(i + 2) in lx.DURATION_UNITS)
                ):
                    # "every day", "every single day"
                    said = 2 if self.low(i + 1) in lx.DURATION_UNITS else 3
                    seconds = lx.DURATION_UNITS[self.low(i + said - 1)]
                    self.add(
                        Fact(INTERVAL, "", (seconds,), self.text(i, i + said)), *range(i, i + said)
                    )
                else:
                    parsed = None if self.ranked(i) else self.word_number(i)
                    if parsed is not None:
                        value, j = parsed
                        if self.low(j) in _UNIT_WORDS or (
                            word not in ("a", "an")
                            and j < self.n
                            and self.t[j].role is Role.CONTENT
                        ):
                            self.quantity(i, value, j)
            i += 1
        for i, tok in enumerate(self.t):
            if tok.kind is Kind.OP and tok.raw in ("=", ":"):
                self.assignment(i)
        self.holders()


# what follows a share that is left rather than used ("15% free")
_LEFT_FREE = frozenset({"free", "left", "remaining", "available", "spare"})
# what a holder holds ("approved by", "owned by", "the approver")
_HELD_VERBS = frozenset(
    {"approv", "approved", "own", "owned", "decid", "decided", "made", "authoris", "authoriz",
     "authorised", "authorized", "sign", "signed", "off", "handl", "handled", "grant", "granted",
     "countersign", "countersigned"}
)  # fmt: skip
_HOLDING_VERBS = frozenset({"approv", "countersign", "authoris", "authoriz"})
_MODALS = frozenset({"can", "may", "must", "will", "shall", "should", "alone"})
_HOLDER_NOUNS = frozenset(
    {"approver", "owner", "decision-maker", "signatory", "authority", "approving", "sign-off"}
)
_HOLDER_DETERMINERS = frozenset({"the", "a", "an", "our", "their", "its", "your", "his", "her"})
_HOLDER_STOPS = frozenset(
    {"for", "before", "after", "within", "on", "in", "at", "when", "if", "unless", "without",
     "with", "and", "or", "only", "alone", "once", "who", "which", "that", "any", "all", "each",
     "every", "no", "not", "never", "default"}
)  # fmt: skip
# "hourly staff", "an hourly rate": how people are paid, not how often
_PAID_BY_THE = frozenset(
    {"staff", "employee", "employees", "worker", "workers", "associates", "personnel", "crew",
     "contractors", "rate", "rates", "wage", "wages", "pay", "paid", "payroll"}
)  # fmt: skip
_SPEED_LENGTH = {
    "m": "m", "metre": "m", "metres": "m", "meter": "m", "meters": "m", "km": "km",
    "ft": "ft", "feet": "ft", "mi": "mile", "mile": "mile", "miles": "mile",
}  # fmt: skip
_SPEED_TIME = {
    "s": "s", "sec": "s", "second": "s", "h": "h", "hr": "h", "hour": "h", "min": "min",
    "minute": "min",
}  # fmt: skip
_BOUND_AFTER = {
    "more": 1, "above": 1, "higher": 1, "greater": 1, "over": 1, "up": 1, "longer": 1,
    "less": -1, "fewer": -1, "below": -1, "under": -1, "lower": -1, "shorter": -1,
}  # fmt: skip
_RANK_NOUNS = frozenset(
    {"priority", "severity", "sev", "tier", "level", "phase", "stage", "grade", "class", "category"}
)
# what basis points are hundredths of a percent of ("bps" alone is bits per second)
_RATE_CUES = frozenset(
    {"apy", "apr", "rate", "rates", "yield", "spread", "interest", "margin", "coupon", "discount"}
)
# a setting's name that ends in its unit ("…Seconds", "_ms", "_mb")
_UNIT_IN_NAME = re.compile(
    r"(?<=[a-z])(Seconds|Secs|Sec|Millis|Ms|Minutes|Mins|Hours|Days|Bytes|KB|MB|GB|Kb|Mb|Gb)$"
    r"|[_.-](seconds|secs|sec|millis|ms|minutes|mins|hours|days|bytes|kb|mb|gb)$",
)


def _measured_by_name(name: str, value: float, said: str) -> Fact | None:
    """A length or a size whose unit is the end of its setting's name."""
    found = _UNIT_IN_NAME.search(name)
    if found is None:
        return None
    unit = (found.group(1) or found.group(2)).lower()
    unit = "ms" if unit == "millis" else unit
    text = f"{name} {said}"
    if unit in lx.DURATION_UNITS:
        return Fact(DURATION, "", (value * lx.DURATION_UNITS[unit],), text)
    si, binary = lx.SIZE_UNITS[unit]
    return Fact(SIZE, "", (value * si, value * binary), text)


# the units a setting's number may carry and still be read as a measure
_MEASURED = frozenset(lx.DURATION_UNITS) | frozenset(lx.SIZE_UNITS)
_RANGE_WORDS = frozenset({"through", "thru", "to", "till", "until", "-", "–", "—"})


def _days_between(first: int, last: int) -> tuple[int, ...]:
    """The days from ``first`` to ``last``, both in, round the week end."""
    return tuple((first + k) % 7 for k in range((last - first) % 7 + 1))


def day_range(word: str) -> tuple[int, ...] | None:
    """ "mon-fri", "monday-friday" written as one token."""
    first, dash, last = word.partition("-")
    a = lx.WEEKDAYS.get(first) or lx.WEEKDAY_SHORT.get(first)
    b = lx.WEEKDAYS.get(last) or lx.WEEKDAY_SHORT.get(last)
    if not dash or a is None or b is None or len(a) != 1 or len(b) != 1:
        return None
    return _days_between(a[0], b[0])


def _day_at(scanner: _Scanner, j: int) -> bool:
    word = scanner.low(j)
    return word in lx.WEEKDAYS or word in lx.WEEKDAY_SHORT or day_range(word) is not None


def _day_beside(scanner: _Scanner, j: int) -> bool:
    """A short day name ("Sat", "Sun") counts as a day only beside another
    day, so "the sun" or "sat down" is none; the unambiguous ones ("Mon",
    "Thu", "Fri") count anywhere."""
    word = scanner.low(j)
    if word in lx.WEEKDAY_SHORT_PLAIN:
        return True

    def day(k: int) -> bool:
        return scanner.low(k) in lx.WEEKDAYS or scanner.low(k) in lx.WEEKDAY_SHORT

    between = _RANGE_WORDS | {"and", "or", ","}
    return (
        day(j - 1)
        or day(j + 1)
        or (scanner.low(j - 1) in between and day(j - 2))
        or (scanner.low(j + 1) in between and day(j + 2))
    )


def extract_facts(tokens: Sequence[Token]) -> tuple[list[Fact], set[int]]:
    """The facts a token list states, and the indexes of the tokens they used."""
    scanner = _Scanner(tokens)
    scanner.run()
    return scanner.facts, scanner.used
