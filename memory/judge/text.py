"""Tokenising and normalising lesson text for the offline judge.

The output is a flat list of :class:`Token` objects. Each token has a
*kind* (what it looks like: a word, a number, a time, a version, an
identifier...) and a *role* (what the judge does with it: compare it as
content, drop it as a stopword, treat it as a negator...). Words get a
*lemma*: lower-cased, stemmed and mapped through the synonym table, so two
paraphrases meet on the same lemmas.

Nothing here knows about candidates or verdicts; it only reads one text.
"""

from __future__ import annotations

import decimal
import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from text_to_num import alpha2digit

from memory.judge import lexicon as lx
from memory.language import language_of, other_language


class Kind(StrEnum):
    """What a token looks like."""

    WORD = "word"
    NUMBER = "number"
    TIME = "time"
    VERSION = "version"
    ENTITY = "entity"
    CODE = "code"
    OP = "op"
    PUNCT = "punct"


class Role(StrEnum):
    """What the judge does with a token."""

    CONTENT = "content"  # compared between lessons
    STOP = "stop"  # ignored
    NEG = "neg"  # flips the polarity of the next content word
    BOUND = "bound"  # "at least", "larger than": ignored, the number is compared
    ORDER = "order"  # "before", "after", "then"
    VALUE = "value"  # numbers, times, versions: handled by the fact extractor
    OP = "op"  # "=", ">=", ":"
    PUNCT = "punct"  # clause boundaries


@dataclass(slots=True)
class Token:
    """One token of a lesson.

    ``lemma`` is the form compared between lessons. ``etype`` is set for
    identifiers and names (``host``, ``path``, ``url``, ``file``, ``envvar``,
    ``flag``, ``ident``, ``name``, ``code``, ``tech``, ``environment``).
    ``polarity`` is ``(concept, sign)`` for antonym words ("disabled" is
    ``("enable", -1)``); the lemma of such a token is the concept.
    """

    kind: Kind
    raw: str
    lemma: str
    role: Role = Role.CONTENT
    value: float | None = None
    etype: str = ""
    verb: bool = False
    aux: bool = False
    polarity: tuple[str, int] | None = None
    sentence_start: bool = False
    port_hint: bool = False  # a number that came from "host:port"
    bound: str = ""  # "+" for "3.11+"
    glued: bool = False  # joined to the token before by a hyphen ("3-18"), or one capital ("14A")


# --- stemming -------------------------------------------------------------

_SUFFIXES: tuple[tuple[str, str, int], ...] = (
    # "verification" meets "verify" and "verifying", "notification" "notify"
    ("ifications", "ify", 2),
    ("ification", "ify", 2),
    ("ations", "at", 3),
    ("ation", "at", 3),
    ("ments", "", 3),
    ("ment", "", 3),
    ("ings", "", 3),
    ("ing", "", 3),
    ("ies", "y", 2),
    ("ied", "y", 2),
    ("sses", "ss", 2),
    ("ed", "", 3),
    ("s", "", 3),
)


def stem(word: str) -> str:
    """A small, deterministic suffix stemmer.

    It only has to be *consistent*: "migrate", "migrations" and "migrated"
    must meet; the stems themselves need not be real words.
    """
    w = lx.IRREGULAR.get(word, word)
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix, replacement, min_len in _SUFFIXES:
        if w.endswith(suffix):
            # "status", "redis", "process": a final s after s/u/i is not a plural.
            if suffix == "s" and w[-2] in "sui":
                break
            base = w[: -len(suffix)] + replacement
            if len(base) >= min_len:
                w = base
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


_SYNONYMS: dict[str, str] = {stem(k): stem(v) for k, v in lx.SYNONYMS.items()}
_POLARITY: dict[str, tuple[str, int]] = {stem(k): v for k, v in lx.POLARITY.items()}
_LIGHT: frozenset[str] = frozenset(stem(w) for w in lx.LIGHT_WORDS)
_VERBS: frozenset[str] = frozenset(stem(w) for w in lx.VERBS)
_PHRASES: list[tuple[tuple[str, ...], str, bool]] = sorted(
    ((tuple(stem(w) for w in words), repl, verb) for words, repl, verb in lx.PHRASES),
    key=lambda p: -len(p[0]),
)


_PHRASES_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str, bool]]] = {}
for _phrase in _PHRASES:
    _PHRASES_BY_FIRST.setdefault(_phrase[0][0], []).append(_phrase)


def lemma(word: str) -> str:
    """Lower-case, stem and map through the synonym table."""
    s = stem(word.lower())
    return _SYNONYMS.get(s, s)


def is_light(lem: str) -> bool:
    """A lemma that says little about a lesson's subject ("use", "service")."""
    return lem in _LIGHT


def is_verb(lem: str) -> bool:
    """A lemma from the unambiguous-verb list."""
    return lem in _VERBS


# --- normalisation ----------------------------------------------------------

_CONTRACTIONS: tuple[tuple[str, str], ...] = (
    (r"\bcan't\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"),
    (r"\b(\w+)n't\b", r"\1 not"),
    (r"\b(it|that|what|there|here)'s\b", r"\1 is"),
    (r"\b(\w+)'re\b", r"\1 are"),
    (r"\b(\w+)'ll\b", r"\1 will"),
    (r"\b(\w+)'ve\b", r"\1 have"),
)


# Currencies by symbol, ISO code and word, to one code written after the
# amount ("€3,000", "EUR 3000", "3000 euros" -> "3000 eur").
_CURRENCY_SYMBOLS = {"€": "eur", "$": "usd", "£": "gbp", "¥": "jpy", "₹": "inr", "CHF": "chf"}
_CURRENCY_WORDS = {
    "euro": "eur", "euros": "eur", "eur": "eur", "dollar": "usd", "dollars": "usd", "usd": "usd",
    "pound": "gbp", "pounds": "gbp", "gbp": "gbp", "yen": "jpy", "jpy": "jpy", "rupees": "inr",
    "inr": "inr", "francs": "chf", "chf": "chf", "cad": "cad", "aud": "aud", "sek": "sek",
}  # fmt: skip
_AMOUNT = r"(\d[\d,]*(?:\.\d+)?)(?:\s?([kKmM])\b)?"
_FRACTIONS = {"half": 50, "third": 100 / 3, "quarter": 25, "fifth": 20, "tenth": 10}


def _amount(number: str, scale: str | None) -> str:
    value = float(number.replace(",", ""))
    value *= {"k": 1e3, "m": 1e6}.get((scale or "").lower(), 1.0)
    # (never an exponent: "1e+06 usd" is no amount the scanner reads)
    return f"{value:.15g}" if value < 1e15 else number


def _share(m: re.Match[str]) -> str:
    """ "one in ten" -> "10%", only for a part smaller than its whole."""
    part = 1 if m.group(1).lower() == "one" else int(m.group(1))
    whole = int(m.group(2))
    return f"{100 * part / whole:g}% of" if 0 < part < whole else m.group(0)


# Units a spoken fraction can be of ("half a gibibyte", "three quarters of
# an hour", "a day and a half").
_FRACTION_UNITS = (
    r"(seconds?|minutes?|hours?|days?|weeks?|months?|years?|gibibytes?|mebibytes?|gigabytes?"
    r"|megabytes?|kilobytes?|terabytes?|gib|mib|gb|mb|kb|tb|kilos?|kilograms?|grams?|litres?"
    r"|liters?|miles?|kilomet(?:re|er)s?|met(?:re|er)s?)"
)
_BYTE_UNITS = {
    "gibi": "GiB", "mebi": "MiB", "kibi": "KiB", "tebi": "TiB",
    "giga": "GB", "mega": "MB", "kilo": "KB", "tera": "TB",
}  # fmt: skip
_SPOKEN_FRACTIONS = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}
_HOUR_WORDS = {
    w: i + 1
    for i, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve"]
    )
}  # fmt: skip


def _count(word: str) -> int:
    """ "5" or "five" (up to twelve) as a number."""
    return int(word) if word.isdigit() else _HOUR_WORDS[word.lower()]


_HOUR = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_DAY_PART = r"(?:\s?o'clock)?(?: in the (morning|afternoon|evening)| at (night)|\s?([ap])\.?m\b\.?)"
_MONEY_CODES = (("£", "gbp"), ("pound", "gbp"), ("gbp", "gbp"), ("€", "eur"), ("euro", "eur"))


def _clock(hour: str, minute: int, part: str) -> str:
    """A spoken time of day ("half past five", "in the afternoon") as 24-hour
    "17:30"; ``part`` is morning/afternoon/evening/night/a/p."""
    h = _count(hour)
    if h > 12:
        return f"{h}:{minute:02d}"
    afternoon = part.lower() in ("afternoon", "evening", "p") or (
        part.lower() == "night" and h >= 6
    )
    h = h % 12 + (12 if afternoon else 0)
    return f"{h % 24}:{minute:02d}"


_ONCE_TWICE = {"once": "1", "twice": "2", "thrice": "3"}
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
def _days_named(text: str) -> set[int]:
    """The days of the week ``text`` names (``lexicon.WEEKDAYS``)."""
    return {day for word in text.lower().split() for day in lx.WEEKDAYS.get(word.strip(","), ())}


_RECURRING_DAYS = re.compile(
    rf"\bevery {_DAY}(?:(?:,| and|, and) (?:every )?{_DAY})*\b"
    # (a day alone after "on" is when, not how often: "No deploys on Fridays")
    rf"|\bon {_DAY}s(?:(?:,| and|, and) {_DAY}s)+\b"
    r"(?! (?:and|to|through|until|-))",
    re.IGNORECASE,
)
_PERIOD_OF = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week",
              "monthly": "month", "yearly": "year", "annually": "year"}  # fmt: skip


def _spoken_times(t: str) -> str:
    """ "half past five in the afternoon" -> "17:30", "quarter to nine in the
    morning" -> "8:45", "seven o'clock in the evening" -> "19:00"; without a
    part of the day the hour is ambiguous and left as written."""
    t = re.sub(
        rf"\b(?:(half|quarter) past) {_HOUR}{_DAY_PART}",
        lambda m: _clock(m.group(2), 30 if m.group(1).lower() == "half" else 15,
                         m.group(3) or m.group(4) or m.group(5)),
        t, flags=re.IGNORECASE,
    )  # fmt: skip
    t = re.sub(
        rf"\b(?:a )?quarter to {_HOUR}{_DAY_PART}",
        lambda m: _clock(
            str(_count(m.group(1)) - 1 or 12),
            45, m.group(2) or m.group(3) or m.group(4),
        ),
        t, flags=re.IGNORECASE,
    )  # fmt: skip
    return re.sub(
        rf"\b{_HOUR} o'clock(?: in the (morning|afternoon|evening)| at (night))",
        lambda m: _clock(m.group(1), 0, m.group(2) or m.group(3)),
        t, flags=re.IGNORECASE,
    )  # fmt: skip


# "two thirds", "three-quarters": a count of parts
_PARTS = r"(two|three|four|[234])[- ](thirds|quarters|fifths|tenths)"


def _parts(m: re.Match[str]) -> float:
    """The share ``_PARTS`` matched, in percent."""
    return _count(m.group(1)) * _FRACTIONS[m.group(2)[:-1].lower()]


def _spoken_fractions(t: str) -> str:
    """ "half a gibibyte" -> "0.5 gibibyte", "three quarters of an hour" ->
    "0.75 hour", "a day and a half" -> "1.5 day", "a fortnight" -> "14 days"."""
    t = re.sub(r"\b(?:a|one) fortnight\b", "14 days", t, flags=re.IGNORECASE)
    # "one fifth of it", "a quarter of the hammer": a share — read before
    # text2num, which reads "one fifth" as "1 5th"
    # (not the half that ends "an hour and a half of batching")
    t = re.sub(
        r"(?<!\band )\b(?:a|one)[- ](half|third|quarter|fifth|tenth) of\b"
        r"(?! (?:an? )?(?:second|minute|hour|day|week|month|year)s?\b)",
        lambda m: f"{_FRACTIONS[m.group(1).lower()]:g}% of",
        t,
        flags=re.IGNORECASE,
    )
    t = re.sub(
        rf"\b(\d+|{'|'.join(_HOUR_WORDS)}) and a half {_FRACTION_UNITS}\b",
        lambda m: f"{_count(m.group(1)) + 0.5:g} {m.group(2)}",
        t, flags=re.IGNORECASE,
    )  # fmt: skip
    t = re.sub(
        # (not the ordinal: "before the third day")
        rf"(?<!\band )(?<!\band a )(?<!\bthe )\b(?:(?:a|one) )?(half|quarter|third) "
        rf"(?:of )?(?:an? )?{_FRACTION_UNITS}\b",
        lambda m: f"{_SPOKEN_FRACTIONS[m.group(1).lower()]:g} {m.group(2)}",
        t, flags=re.IGNORECASE,
    )  # fmt: skip
    t = re.sub(
        rf"\b{_PARTS} of (?:an? )?{_FRACTION_UNITS}\b",
        lambda m: f"{_parts(m) / 100:.4g} {m.group(3)}",
        t, flags=re.IGNORECASE,
    )  # fmt: skip
    # "two thirds of the quota", "three quarters of its lifetime": a share
    t = re.sub(rf"\b{_PARTS} of\b", lambda m: f"{_parts(m):.4g}% of", t, flags=re.IGNORECASE)
    # and on its own ("scales out when CPU goes above two thirds")
    t = re.sub(rf"\b{_PARTS}\b", lambda m: f"{_parts(m):.4g}%", t, flags=re.IGNORECASE)
    return re.sub(
        rf"\b(?:an?|one) {_FRACTION_UNITS} and a half\b", r"1.5 \1", t, flags=re.IGNORECASE
    )


def _working_time(m: re.Match[str]) -> str:
    """ "two working weeks" -> "10 businessdays", "ten business days" -> "10 businessdays"."""
    said = m.group(1).lower()
    n = float(said) if said[0].isdigit() else 1.0 if said == "a" else _count(said)
    return f"{n * (5 if m.group(2).lower().startswith('week') else 1):g} businessdays"


_NTH = {"other": 2, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
# a range's dash, written out so that the unit given to its first end stays
# a word of its own ("2-8 degc" -> "2 degc to 8 degc", not "degc-8")
_JOINED = {"-": " to ", "\u2013": " to "}


# Units written after a number in Chinese, Japanese and Korean, without a
# space ("90秒", "25〜26℃", "8주"); a bare 日 or 일 is as often a date
# ("5日" is the fifth) and is left alone.
_CJK_UNITS = (
    (r"秒間?|초", "seconds"),
    (r"分間|分钟|分鐘|분", "minutes"),
    (r"時間|小时|小時|시간", "hours"),
    (r"日間|天|일간", "days"),
    (r"週間|个星期|星期|周|週|주간?", "weeks"),
    (r"か月|ヶ月|カ月|ケ月|个月|個月|개월", "months"),
    (r"年間", "years"),
)
_PEOPLE = (
    r"kids|children|child|minors|teens|teenagers|drivers|riders|patients|donors|guests|visitors"
    r"|passengers|players|students|pupils|customers|employees|staff|workers|skaters|swimmers|anyone"
    r"|people|persons|adults|members|participants|applicants|renters|tenants|travellers|travelers"
)
_AGE_BOUND = {"younger": "under", "older": "over"}
_CJK = "\u3000-\u30ff\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
# A range between two numbers in other languages ("zwischen 2 und 4",
# "entre 2 et 4", "tra 2 e 4", "od 2 do 4"), and a decimal comma before a
# unit or a currency ("2,90 €", "1,5 kg" — never "1,500", three digits).
_OTHER_RANGE = re.compile(
    r"\b(?:zwischen|entre|tra|fra|tussen|od|von|de|da)\s+(-?\d+(?:[.,]\d+)?)\s*"
    r"(?:°\s?C\s+|%\s+)?(?:und|et|y|e|en|do|bis|à|a|al)\s+(-?\d+(?:[.,]\d+)?)",
    re.IGNORECASE,
)
_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(\d+),(\d{1,2})(?![\d,])(?=\s?(?:€|%|°|[^\W\d_]))")


def _tolerance(value: float, plus_minus: float) -> str:
    """ "6.0 ± 0.2" as the range it allows, "5.8-6.2"."""
    low, high = value - plus_minus, value + plus_minus
    return f"{low:.10g}-{high:.10g}"


_SPACED_THOUSANDS = re.compile(
    r"(?<![\d.,] )(?<![\d.,])\b\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+\b(?![.,]?\d)"
)


_ADDRESS = re.compile(
    r"\b(\d{1,5}[A-Za-z]?) ((?:[A-Z][a-z]+ ){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Way|Drive"
    r"|Close|Place|Square|Boulevard|Court|Crescent|Terrace|Gardens|Row|Hill|Parade))\b"
)


def _other_notations(text: str) -> str:
    """Numbers as other languages write them, in the notation the English
    rewrites below read: CJK units after a number, the wave dash of a range,
    ℃, a decimal comma, a range between two numbers."""
    t = text.replace("℃", "°C").replace("℉", "°F")
    # an article elided before a number ("l'1 %", "dell'80 %", "d'1,5 m"): the
    # number a word of its own (a digit before the apostrophe is feet: 5'10")
    t = re.sub(r"(?<=[^\W\d_])['’](?=\d)", "' ", t)
    # thousands grouped by a space ("25 000 ciclos", "40 000 rubs")
    t = _SPACED_THOUSANDS.sub(lambda m: re.sub(r"\D", "", m.group(0)), t)
    t = re.sub(r"(\d)\s*[〜～~]\s*(?=\d)", r"\1-", t)
    for units, word in _CJK_UNITS:
        t = re.sub(rf"(\d)\s*(?:{units})", rf"\1 {word} ", t)
    # Latin letters, digits and units apart from the CJK words around them
    t = re.sub(rf"(?<=[A-Za-z0-9°%])(?=[{_CJK}])|(?<=[{_CJK}])(?=[A-Za-z0-9°%])", " ", t)
    t = _DECIMAL_COMMA.sub(r"\1.\2", t)
    # an amount before its currency sign ("2.90 €")
    t = re.sub(r"(?<![\d.,])(\d+(?:\.\d+)?)\s?([€£¥])", r"\2\1", t)
    return _OTHER_RANGE.sub(lambda m: f"between {m.group(1)} and {m.group(2)}", t)


_UNIT_COUNT = {
    **_HOUR_WORDS,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "hundred": 100,
}  # fmt: skip
_HYPHENED_WORD_UNIT = re.compile(
    rf"\b({'|'.join(_UNIT_COUNT)})"
    r"-((?:centi|milli|kilo)?(?:metre|meter|gram|litre|liter)s?|inch(?:es)?|foot|feet|pounds?|tonnes?"
    r"|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)


# Degrees as the languages that measure in Celsius write them ("à moins 20
# degrés", "a 20 grados"), and Swedish's half hour ("en halvtimme").
_OTHER_DEGREES = re.compile(
    r"(?:\b(?:moins|menos|minus|meno)\s+)?\b(\d+(?:[.,]\d+)?)\s*"
    r"(?:degrés|degres|grados|grad|gradi|graus|stopni|grader)(?:\s+(?:celsius|c))?\b"
    r"(?!\s+baum[ée])",
    re.IGNORECASE,
)
_DEGREES_BETWEEN = re.compile(
    r"\b(\d+(?:\.\d+)?)\s+(e|y|et|und|i|en|och|a)\s+"
    r"(?:(?:i|los|les|die|de|o)\s+)?(\d+(?:\.\d+)?) °C"
)
# Degrees Baumé, a density scale ("25 grados Baumé", "25 °Bé"): no temperature
_BAUME = re.compile(
    r"\b(\d+(?:[.,]\d+)?)\s*(?:°\s?B[ée]\b|(?:(?:degrés|degres|grados|grad|gradi|graus"
    r"|degrees?)\s+)?Baum[ée]\b)",
    re.IGNORECASE,
)
# A time of day as German and Dutch write it ("um 7 Uhr", "07.00 uur", "van
# 22.00 tot 07.00 uur"; a bare "7 uur" is also seven hours, so only after
# "om", "van", "tot", "vanaf")
_CLOCK_WITH_MINUTES = re.compile(r"\b(\d{1,2})[.:](\d{2})\s*(?:Uhr|uur)\b")
_CLOCK_HOUR = re.compile(r"\b(\d{1,2})\s*Uhr\b|\b((?:om|van|tot|vanaf)\s+)(\d{1,2})\s*uur\b")
_CLOCK_RANGE_START = re.compile(
    r"\b(\d{1,2})\.(\d{2})(?=\s*(?:tot|bis|-|–)\s*\d{1,2}[.:]\d{2}\s*(?:Uhr|uur)\b)"
)
# A time of day as French, Spanish, Portuguese and Italian write it ("à 11h00",
# "até às 13h", "a las 9h30"): only after a word that says when, since
# "2h30" alone is as often a duration (and "après 2h de cuisson" is one);
# and as the Nordic languages and Polish write it ("kl. 22", "klockan
# 18.30", "o godz. 7")
_CLOCK_H = re.compile(
    r"\b((?:à|às|até|até às|jusqu'à|jusqu’à|dès|avant|après|vers|a las|hasta las|desde las"
    r"|antes de las|después de las|alle|dalle|fino alle|dopo le|prima delle|entro le)\s+)"
    r"([01]?\d|2[0-3])\s?h(?:\s?([0-5]\d))?(?![\w:])(?!\s+d[e'’])",
    re.IGNORECASE,
)
# (and where a range starts: "de 9h à 17h30", "dalle 8h alle 12h")
_CLOCK_H_RANGE_START = re.compile(
    r"\b((?:de|des|da|dalle)\s+)([01]?\d|2[0-3])\s?h(?:\s?([0-5]\d))?"
    r"(?=\s*(?:à|a|às|alle|-|–)\s*\d{1,2}\s?h)",
    re.IGNORECASE,
)
_CLOCK_NORDIC = re.compile(
    r"\b(?:kl\.?|klockan|klokka|klokken|godz\.?|godzinie)\s*([01]?\d|2[0-3])(?:[.:]([0-5]\d))?(?![\d.:,]?\d)",
    re.IGNORECASE,
)
_HALF_HOUR = re.compile(
    r"\b(?:en\s+)?halvtimme\b|\b(?:une\s+)?demi-heure\b|\b(?:una\s+)?media\s+hora\b", re.IGNORECASE
)

# How often, as the languages ``text2num`` reads say it ("alle drei Jahre",
# "tous les deux ans", "cada 2 semanas", "ogni tre mesi", "a cada dois anos",
# "om de drie weken"; "jedes Jahr", "chaque mois", "ogni giorno",
# "jaarlijks"), said as English says it — "every 3 years", "every year" —
# which the rules read; each language's lead words only before its own
# words for the unit (Italian "alle 7" is a time, German "alle 7 Jahre" how
# often).
_UNIT_WORDS = {
    "year": {"de": "jahre?n?", "fr": "ans?|années?", "es": "años?", "it": "anni|anno",
             "pt": "anos?", "nl": "jaar|jaren"},
    "month": {"de": "monate?n?", "fr": "mois", "es": "mes|meses", "it": "mes[ei]",
              "pt": "mês|meses", "nl": "maand|maanden"},
    "week": {"de": "wochen?", "fr": "semaines?", "es": "semanas?", "it": "settiman[ae]",
             "pt": "semanas?", "nl": "week|weken"},
    "day": {"de": "tage?n?", "fr": "jours?", "es": "días?", "it": "giorn[oi]",
            "pt": "dias?", "nl": "dag|dagen"},
    "hour": {"de": "stunden?", "fr": "heures?", "es": "horas?", "it": "or[ae]",
             "pt": "horas?", "nl": "uur|uren"},
}  # fmt: skip
_EVERY_N = {"de": "alle", "fr": "tous les|toutes les", "es": "cada", "it": "ogni",
            "pt": "a cada|cada", "nl": "elke|iedere|om de"}  # fmt: skip
_EVERY_ONE = {"de": "jede[nsm]?", "fr": "chaque|tous les|toutes les",
              "es": "cada|todos los|todas las", "it": "ogni|tutti i|tutte le",
              "pt": "cada|todos os|todas as", "nl": "elke?|iedere?"}  # fmt: skip
_ADVERB = {"year": "jährlich|annuellement|anualmente|annualmente|jaarlijks",
           "month": "monatlich|mensuellement|mensualmente|mensilmente|maandelijks",
           "week": "wöchentlich|hebdomadairement|semanalmente|settimanalmente|wekelijks",
           "day": "täglich|quotidiennement|diariamente|quotidianamente|dagelijks"}  # fmt: skip
_HOW_OFTEN = [
    (language, unit, re.compile(
        rf"\b(?:{_EVERY_N[language]})\s+(\d+|[^\W\d_]+)\s+(?:{words[language]})\b"
        rf"|\b(?:{_EVERY_ONE[language]})\s+(?:{words[language]})\b",
        re.IGNORECASE,
    ))
    for unit, words in _UNIT_WORDS.items()
    for language in words
]
_HOW_OFTEN_ADVERB = [
    (unit, re.compile(rf"\b(?:{adverbs})\b", re.IGNORECASE)) for unit, adverbs in _ADVERB.items()
]


def _every(m: re.Match[str], *, language: str, unit: str) -> str:
    """A match of ``_HOW_OFTEN`` as English says it."""
    if m.group(1) is None:
        return f"every {unit}"
    count = alpha2digit(m.group(1), language, threshold=0)
    if not count.isdigit():
        return m.group()  # no number: "alle neuen Jahre"
    return f"every {count} {unit}s" if count != "1" else f"every {unit}"


def _how_often(t: str) -> str:
    """Other languages' "every N units" and "every unit" as English says them."""
    for language, unit, pattern in _HOW_OFTEN:
        t = pattern.sub(functools.partial(_every, language=language, unit=unit), t)
    for unit, pattern in _HOW_OFTEN_ADVERB:
        t = pattern.sub(f"every {unit}", t)
    return t


def _other_language_values(t: str) -> str:
    """Number words of French, Spanish, German, Italian or Portuguese, in
    the text's own language only (``text2num``: "trois jours" -> "3 jours";
    its own threshold leaves "un", "ein", "una" alone), degrees in Celsius,
    a half hour, how often (``_how_often``) and the clock times of German,
    Dutch, the Romance and Nordic languages and Polish."""
    language = language_of(t)
    if language is not None:
        t = alpha2digit(t, language)
    t = _how_often(t)
    t = _HALF_HOUR.sub("30 minutes", t)

    def clock(m: re.Match[str]) -> str:
        return f"{m.group(1)}{int(m.group(2)):02d}:{m.group(3) or '00'}"

    t = _CLOCK_H.sub(clock, _CLOCK_H_RANGE_START.sub(clock, t))
    t = _CLOCK_NORDIC.sub(lambda m: f"{int(m.group(1)):02d}:{m.group(2) or '00'}", t)
    t = _CLOCK_RANGE_START.sub(r"\1:\2", t)
    t = _CLOCK_WITH_MINUTES.sub(r"\1:\2", t)
    t = _CLOCK_HOUR.sub(
        lambda m: f"{m.group(1)}:00" if m.group(1) else f"{m.group(2)}{m.group(3)}:00", t
    )

    def degrees(m: re.Match[str]) -> str:
        sign = "-" if m.group().lower().startswith(("moins", "menos", "minus", "meno")) else ""
        return f"{sign}{m.group(1).replace(',', '.')} °C"

    t = _OTHER_DEGREES.sub(degrees, t)
    # "tra i 31 e i 32 °C": the unit on both ends, as "31–32 °C" is read
    return _DEGREES_BETWEEN.sub(r"\1 °C \2 \3 °C", t)


# A speed in words ("twenty kilometres an hour", by then "20 kilometres an
# hour"), and one unit said with its article after a bound ("trim the wick
# to about a centimetre").
_SPEED_IN_WORDS = re.compile(
    r"\b(\d+(?:\.\d+)?)\s*(kilomet(?:re|er)s?|km|miles?|met(?:re|er)s?)\s+(?:an|a|per|each)\s+(hour|second)\b",
    re.IGNORECASE,
)
_SPEED_UNITS = {("k", "h"): "km/h", ("m", "h"): "mph", ("k", "s"): "km/s", ("m", "s"): "m/s"}


def _speed(m: re.Match[str]) -> str:
    return f"{m.group(1)} {_SPEED_UNITS[(m.group(2)[0].lower(), m.group(3)[0].lower())]}"


_ONE_UNIT = re.compile(
    r"\b(about|roughly|around|approximately|to|within|at least|at most|up to|under|over|exactly"
    r"|only)\s+(?:a|an|one)\s+(centimet(?:re|er)|millimet(?:re|er)|met(?:re|er)|kilomet(?:re|er)"
    r"|inch|foot|mile|lit(?:re|er)|kilo(?:gram)?|gram|degree)\b",
    re.IGNORECASE,
)


def normalise_values(text: str) -> str:
    """Quantities written in words or other notations, rewritten the one way
    the fact scanner reads them: number words through ``text2num`` ("three
    thousand euros" -> "3000 euros"), currencies to an amount and a code,
    fractions and "one in ten" to percentages, scientific notation to a
    decimal, "net-30" payment terms to days."""
    t = _spoken_fractions(_spoken_times(_other_notations(text)))
    # a number word joined to its unit by a hyphen ("two-centimetre accuracy",
    # "a three-day course"): the measure, as if written apart, for text2num
    t = _HYPHENED_WORD_UNIT.sub(lambda m: f"{_UNIT_COUNT[m.group(1).lower()]} {m.group(2)}", t)
    # (text2num leaves "one" and "two" as words; a count of two at the end
    # of "a crew of two", "groups of two" is a value like "a crew of four")
    t = re.sub(r"\b(of|for) two\b(?![-\w])", r"\1 2", alpha2digit(t, "en"), flags=re.I)
    if other_language(t):
        t = _other_language_values(t)
    t = _BAUME.sub(lambda m: f"{m.group(1).replace(',', '.')} baume", t)
    t = _SPEED_IN_WORDS.sub(_speed, t)
    t = _ONE_UNIT.sub(r"\1 1 \2", t)
    t = re.sub(
        r"\b(\d+(?:\.\d+)?) ?(gibi|mebi|kibi|tebi|giga|mega|kilo|tera)bytes?\b",
        lambda m: f"{m.group(1)} {_BYTE_UNITS[m.group(2).lower()]}",
        t,
        flags=re.IGNORECASE,
    )
    # "three grand": thousands of the text's currency (dollars unless it names another)
    lowered = t.lower()
    grand = next((code for mark, code in _MONEY_CODES if mark in lowered), "usd")
    t = re.sub(
        r"\b(\d+(?:\.\d+)?) ?grand\b",
        lambda m: f"{float(m.group(1)) * 1000:.15g} {grand}",
        t,
        flags=re.IGNORECASE,
    )
    codes = "|".join(sorted(_CURRENCY_WORDS, key=len, reverse=True))
    symbols = "|".join(re.escape(s) for s in _CURRENCY_SYMBOLS)
    t = re.sub(
        rf"({symbols})\s?{_AMOUNT}",
        lambda m: f"{_amount(m.group(2), m.group(3))} {_CURRENCY_SYMBOLS[m.group(1)]}",
        t,
    )
    t = re.sub(
        rf"\b({codes})\s?{_AMOUNT}",
        lambda m: f"{_amount(m.group(2), m.group(3))} {_CURRENCY_WORDS[m.group(1).lower()]}",
        t,
        flags=re.IGNORECASE,
    )
    t = re.sub(
        rf"{_AMOUNT}\s?({codes})\b",
        lambda m: f"{_amount(m.group(1), m.group(2))} {_CURRENCY_WORDS[m.group(3).lower()]}",
        t,
        flags=re.IGNORECASE,
    )
    t = t.replace("\u2212", "-")  # the minus sign
    # a time in the military / aviation form ("0200Z" is 02:00 UTC)
    t = re.sub(r"\b([01]\d|2[0-3])([0-5]\d) ?Z\b", r"\1:\2 UTC", t)
    t = re.sub(r"\bmetric (tonnes?|tons?)\b", r"\1", t, flags=re.I)
    # units written in ways the scanner reads as words: "2 inches", "30 km/h",
    # "50 mg/L" (a part per million of water)
    t = re.sub(r"(\d)\s?(?:inch(?:es)?|″)(?!\w)", r"\1 inch", t, flags=re.I)
    t = re.sub(r"(\d)\s?(?:km/h|kph)\b", r"\1 kmh", t, flags=re.I)
    t = re.sub(r"\bper ?cent\b", "percent", t, flags=re.I)
    # a unit joined to its number by a hyphen ("a 40-pound washer", "the
    # 3-litre jug"): the measure, as if written apart
    t = re.sub(
        r"(\d)-(pounds?|lbs?|kg|kilos?|tons?|tonnes?|litres?|liters?|gallons?|watts?|volts?|inch|feet|foot)\b",
        # (a pound joined to its number weighs: "a 40-pound washer" is no price)
        lambda m: f"{m.group(1)} {'lb' if m.group(2).lower().startswith('pound') else m.group(2)}",
        t,
        flags=re.I,
    )
    # a value and its tolerance ("pH 6.0 ± 0.2"): the range it allows
    t = re.sub(
        r"(\d+(?:\.\d+)?)\s*(?:±|\+/-|\+-)\s*(\d+(?:\.\d+)?)",
        lambda m: _tolerance(float(m.group(1)), float(m.group(2))),
        t,
    )
    # a person's age as a bound ("kids under 12", "children younger than
    # twelve", "drivers over 70"): years, so the two forms compare
    t = re.sub(
        rf"\b({_PEOPLE})\s+(?:aged\s+)?(?:(under|below|over|above)|(younger|older) than)"
        r"\s+(?:the age of\s+)?(\d{1,3})\b"
        r"(?!\s*(?:[%°$€£/.,]\d|[%°$€£/]|(?:years?|months?|weeks?|days?|hours?|kg|lbs?|cm|m|km|ft)\b))",
        lambda m: f"{m.group(1)} {m.group(2) or _AGE_BOUND[m.group(3).lower()]} {m.group(4)} years",
        t,
        flags=re.I,
    )
    # a range of a reading named before it ("pH is between 6.5 and 7.5",
    # "pH 6.5–7.5"): the name belongs to both ends
    t = re.sub(
        r"\b(pH|Brix|RH)\s+(?:(?:is|of|reads?|at|between|from)\s+)*(\d+(?:\.\d+)?)\s*"
        r"(?:-|\u2013|to|and)\s*(\d+(?:\.\d+)?)\b",
        r"\1 \2 to \1 \3",
        t,
    )
    # "a 9 m dish", "the 9-m antenna": a metre ("9m", glued, is a config's minutes)
    t = re.sub(r"(\d)(?: |-)m\b(?![/²³])", r"\1 metre", t)
    t = re.sub(r"(\d)\s?mg/l\b", r"\1 ppm", t, flags=re.I)
    # working time: a working week is five working days, and a working day a
    # fifth of a week ("two working weeks" = "10 business days" = 14 days)
    t = re.sub(
        rf"\b(\d+(?:\.\d+)?|a|one|{'|'.join(_HOUR_WORDS)}) (?:full )?(?:working|business) "
        r"(weeks?|days?)\b",
        _working_time, t, flags=re.I,
    )  # fmt: skip
    # overtime rates ("time and a half") and every n-th day ("every third night")
    t = re.sub(r"\btime and a half\b", "150%", t, flags=re.I)
    t = re.sub(r"\btime and a quarter\b", "125%", t, flags=re.I)
    t = re.sub(r"\bdouble time\b", "200%", t, flags=re.I)
    t = re.sub(
        r"\bevery (other|second|third|fourth|2nd|3rd|4th) (day|night|week|month)\b",
        lambda m: f"every {_NTH[m.group(1).lower()]} {m.group(2)}s", t, flags=re.I,
    )  # fmt: skip
    t = re.sub(r"\s?°\s?C\b|\s?degrees? (?:celsius|centigrade)\b", " degc", t, flags=re.I)
    t = re.sub(r"\s?°\s?F\b|\s?degrees? fahrenheit\b", " degf", t, flags=re.I)
    # degrees above or below another temperature are a difference of one
    t = re.sub(
        r"\b(\d+(?:\.\d+)?) deg([cf]) (?=(?:above|over|below|under|warmer|colder|hotter|cooler"
        r"|higher|lower) (?:than )?(?:the|its|a|water|ambient|room|set|setpoint)\b)",
        r"\1 ddeg\2 ", t, flags=re.I,
    )  # fmt: skip
    # "30 feet a minute": a speed
    t = re.sub(
        r"\b(\d+(?:\.\d+)?) ?(feet|foot|ft|metres?|meters?|m|km|kilomet(?:re|er)s?|miles?)"
        r" (?:a|an|each|every) (second|minute|hour)\b",
        r"\1 \2 per \3", t, flags=re.I,
    )  # fmt: skip
    # "0.14 in." at a clause's end is inches; "115 proof" (US) is half as much
    # alcohol by volume; "a full week" one week
    t = re.sub(r"\b(\d+(?:\.\d+)?) ?in\.?(?=\s*(?:[;,)]|\.(?:\s|$)|$))", r"\1 inch", t)
    t = re.sub(
        r"\b(\d+(?:\.\d+)?) ?proof\b", lambda m: f"{float(m.group(1)) / 2:g} % ABV", t, flags=re.I
    )
    t = re.sub(
        r"\b(?:a|one) (?:full|whole|complete) (day|week|month|year|hour)\b", r"1 \1", t, flags=re.I
    )
    # one of a length before what it measures ("as soon as the crust is an
    # inch thick", "a foot above the grass", "a metre apart")
    t = re.sub(
        r"\b(?:a|an|one) (inch|foot|yard|metre|meter|centimet(?:re|er)|millimet(?:re|er))"
        r"(?= (?:thick|deep|wide|long|high|tall|above|below|under|over|from|apart|away|off"
        r"|of (?:snow|water|soil|clearance|gravel|sand|slack))\b)",
        r"1 \1", t, flags=re.I,
    )  # fmt: skip
    # a house number names the house: "12 Elm Street" is "Elm Street 12" (a
    # number after its noun names one of them, as "bay 12" does)
    t = _ADDRESS.sub(lambda m: f"{m.group(2)} {m.group(1)}", t)
    # "the three-quarter-hour mark": 45 minutes
    t = re.sub(r"\bthree[- ]quarters?[- ](?:of an )?hour\b", "45 minutes", t, flags=re.I)
    t = re.sub(r"\b(?:a|one)[- ]quarter[- ]hour\b", "15 minutes", t, flags=re.I)
    # a range whose unit is written once, after its upper end ("35.6-46.4 degf",
    # "between 2 and 8 degc"): the unit belongs to both ends
    t = re.sub(
        r"(?<![\d.])(-?\d+(?:\.\d+)?)(\s?(?:-|\u2013|to|and)\s?)(-?\d+(?:\.\d+)?) "
        r"(degc|degf|inch|cm|mm|ppm|seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?"
        r"|kg|mg|ml|gb|mb|tb|km|miles?|metres?|meters?)\b",
        lambda m: (
            f"{m.group(1)} {m.group(4)}{_JOINED.get(m.group(2).strip(), m.group(2))}"
            f"{m.group(3)} {m.group(4)}"
        ),
        t,
    )
    # torque: "120 N·m", "140 Nm", "95 ft-lb"
    t = re.sub(r"(\d)\s?(?:N\s?[·⋅*.-]?\s?m|[Nn]ewton[- ]?met(?:re|er)s?)\b", r"\1 newtonmetre", t)
    t = re.sub(
        r"(\d)\s?(?:ft[·⋅*.-]?lbf?s?|lbf?[·⋅*.-]?ft|foot[- ]pounds?)\b",
        r"\1 footpound",
        t,
        flags=re.I,
    )
    t = re.sub(
        r"\b(one|\d{1,2}) (?:in|out of) (\d{1,3})\b"
        r"(?! (?:days?|hours?|minutes?|weeks?|months?|years?))",
        _share,
        t,
        flags=re.IGNORECASE,
    )
    t = re.sub(
        r"\b\d+(?:\.\d+)?e-?\d{1,2}\b",
        lambda m: format(decimal.Decimal(m.group(0)).normalize(), "f"),
        t,
    )
    # "3x daily", "twice weekly", "4 times monthly": so many times a day, a week
    t = re.sub(
        r"\b(?:(\d+) ?(?:x|×|times)|(once|twice|thrice)) "
        r"(hourly|daily|nightly|weekly|monthly|yearly|annually)\b",
        lambda m: (
            f"{m.group(1) or _ONCE_TWICE[m.group(2).lower()]} times a "
            f"{_PERIOD_OF[m.group(3).lower()]}"
        ),
        t,
        flags=re.IGNORECASE,
    )
    t = re.sub(
        r"\b(once|twice|thrice)"
        r"(?= (?:a|an|per|every|each) (?:second|minute|hour|day|week|month|year)s?\b)",
        lambda m: f"{_ONCE_TWICE[m.group(1).lower()]} times",
        t,
        flags=re.IGNORECASE,
    )
    # days of the week that recur ("every Monday and Thursday", "on Mondays
    # and Thursdays") say how often too: so many times a week, as "twice a
    # week" and "once a week" say it
    t = _RECURRING_DAYS.sub(
        lambda m: f"{m.group(0)} ({len(_days_named(m.group(0)))} times a week)",
        t,
    )
    # "each working day" is daily, as often as "every day"
    t = re.sub(r"\b(every|each) (?:working|business|work) day\b", r"\1 day", t, flags=re.IGNORECASE)
    # "once a quarter" is quarterly; "on a 3-year cycle" is every 3 years
    t = re.sub(
        r"\b(?:once (?:a|per|each|every)|every|each|per) quarter\b(?! (?:of|past|to|hour|mile)\b)",
        "quarterly",
        t,
        flags=re.IGNORECASE,
    )
    t = re.sub(
        r"\b(?:on |in )?an? (\d+)[- ](year|month|week|day)s? (?:cycle|rotation|schedule|basis)\b",
        r"every \1 \2s",
        t,
        flags=re.IGNORECASE,
    )
    return re.sub(r"\bnet[- ](\d+)\b", r"net \1 days", t, flags=re.IGNORECASE)


def normalise(text: str) -> str:
    """Plain ASCII punctuation, contractions expanded, "2 a.m." -> "2am",
    quantities in one notation (:func:`normalise_values`)."""
    t = (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u2013", " - ")
        .replace("\u2014", " - ")
        .replace("\u2264", " <= ")
        .replace("\u2265", " >= ")
        .replace("\u00a0", " ")
    )
    for pattern, repl in _CONTRACTIONS:
        t = re.sub(pattern, repl, t, flags=re.IGNORECASE)
    t = normalise_values(t)
    # an environment named by a prefix to another ("pre-production",
    # "non-prod") is an environment of its own, not that one
    t = re.sub(r"\bpre[- ]?prod(?:uction)?\b", "preprod", t, flags=re.IGNORECASE)
    t = re.sub(r"\bnon[- ]?prod(?:uction)?\b", "nonprod", t, flags=re.IGNORECASE)
    t = re.sub(
        r"\b(\d{1,2}(?::\d{2})?)\s*([ap])\.?\s?m\b\.?",
        lambda m: f"{m.group(1)}{m.group(2).lower()}m",
        t,
        flags=re.IGNORECASE,
    )
    return t


# --- chunk classification ---------------------------------------------------

_TIME_RE = re.compile(r"(\d{1,2}):(\d{2})(?::\d{2})?([ap]m)?", re.IGNORECASE)
_AMPM_RE = re.compile(r"(\d{1,2})([ap]m)", re.IGNORECASE)
_HOSTPORT_RE = re.compile(r"([a-z0-9][a-z0-9.-]*):(\d{1,5})", re.IGNORECASE)
_URL_RE = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_OP_PREFIX_RE = re.compile(r"(>=|<=|==|~=|!=|=|>|<|\^|~)(.*)")
_VERSION_V_RE = re.compile(r"v(\d+(?:\.\d+)*)(?:[-+][\w.]+)?", re.IGNORECASE)
_VERSION_DOTS_RE = re.compile(r"(\d+(?:\.\d+){2,})(?:[-+][\w.]+)?")
_VERSION_PLUS_RE = re.compile(r"(\d+(?:\.\d+)*)\+")
_NUMBER_RE = re.compile(r"([+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)([a-z%/]*)", re.IGNORECASE)
_COMPOUND_DURATION_RE = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|h|m|s|d))+", re.IGNORECASE)
_DURATION_PART_RE = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s|d)", re.IGNORECASE)
_FLAG_RE = re.compile(r"--?[a-z][\w.-]*", re.IGNORECASE)
_PATH_RE = re.compile(r"(?:~|\.{1,2})?/[\w.@%+~/-]*|[\w.@-]+(?:/[\w.@-]+)+/?")
_HOST_RE = re.compile(r"[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+", re.IGNORECASE)
_ENVVAR_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_WORD_RE = re.compile(r"[A-Za-z]+")

# Words that would otherwise look like identifiers ("MiB", "CET", "S3").
_PLAIN_WORDS: frozenset[str] = frozenset(
    {
        *lx.TECH_NAMES,
        *lx.TECH_ALIASES,
        *lx.TIMEZONES,
        *lx.SIZE_UNITS,
        *lx.DURATION_UNITS,
        *lx.RATE_UNITS,
    }
)

_LEADING = "\"'([{<*"
_TRAILING = ".,;:!?\"')]}>*"
_BOUNDARY = ".;!?,"


def _word(raw: str) -> Token:
    return Token(Kind.WORD, raw, raw.lower())


_MODEL_PLURAL_RE = re.compile(r"[A-Z]+\d{2,}s")


def _entity(raw: str, etype: str) -> Token:
    return Token(Kind.ENTITY, raw, raw.lower().rstrip("/"), etype=etype)


def _number_tokens(num: str, unit: str) -> list[Token]:
    value = float(num.replace(",", ""))
    tokens = [Token(Kind.NUMBER, num, num, role=Role.VALUE, value=value)]
    if unit:
        if "/" in unit and unit != "/":
            # "100/min", "10req/s"
            left, _, right = unit.partition("/")
            if left:
                tokens.append(_word(left))
            tokens.append(_word("per"))
            tokens.append(_word(right))
        else:
            letter = _word(unit)
            # "14A", "12B": one capital written against the number may be
            # part of a name ("Route 14A"); the fact reader decides
            letter.glued = len(unit) == 1 and unit.isupper()
            tokens.append(letter)
    return tokens


def _classify(chunk: str) -> list[Token]:
    """Turn one whitespace-separated chunk (outer punctuation stripped) into tokens."""
    lower = chunk.lower()
    shouting = len(chunk) >= 2 and chunk.isupper()  # "US" is a region, not "us"
    if lower in _PLAIN_WORDS or (lower.rstrip(".") in lx.STOPWORDS and not shouting):
        return [_word(chunk.rstrip("."))]
    if _TIME_RE.fullmatch(chunk) or _AMPM_RE.fullmatch(chunk):
        return [Token(Kind.TIME, chunk, lower, role=Role.VALUE)]
    if _URL_RE.fullmatch(chunk):
        return [_entity(chunk, "url")]
    if (m := _HOSTPORT_RE.fullmatch(chunk)) and re.search("[a-z]", m.group(1), re.I):
        port = Token(Kind.NUMBER, m.group(2), m.group(2), role=Role.VALUE, value=float(m.group(2)))
        port.port_hint = True
        return [_entity(m.group(1), "host"), port]
    if m := _OP_PREFIX_RE.fullmatch(chunk):
        rest = m.group(2)
        return [Token(Kind.OP, m.group(1), m.group(1), role=Role.OP)] + (
            _classify(rest) if rest else []
        )
    if m := _VERSION_V_RE.fullmatch(chunk):
        return [Token(Kind.VERSION, chunk, m.group(1), role=Role.VALUE)]
    if m := _VERSION_DOTS_RE.fullmatch(chunk):
        return [Token(Kind.VERSION, chunk, m.group(1), role=Role.VALUE)]
    if m := _VERSION_PLUS_RE.fullmatch(chunk):
        return [Token(Kind.VERSION, chunk, m.group(1), role=Role.VALUE, bound="+")]
    if _COMPOUND_DURATION_RE.fullmatch(chunk) and len(_DURATION_PART_RE.findall(chunk)) > 1:
        out: list[Token] = []
        for num, unit in _DURATION_PART_RE.findall(chunk):
            out += _number_tokens(num, unit)
        return out
    if m := _NUMBER_RE.fullmatch(chunk):
        return _number_tokens(m.group(1), m.group(2))
    if "=" in chunk and not chunk.startswith("="):
        key, _, value = chunk.partition("=")
        return [
            *_classify(key),
            Token(Kind.OP, "=", "=", role=Role.OP),
            *(_classify(value) if value else []),
        ]
    if _FLAG_RE.fullmatch(chunk):
        return [_entity(chunk, "flag")]
    if _PATH_RE.fullmatch(chunk):
        parts = [p for p in chunk.split("/") if p]
        if len(parts) == 2 and all(p.isalpha() for p in parts) and not chunk.startswith("/"):
            # "req/min", "and/or": words, with "/" read as "per" between units
            return [_word(parts[0]), _word("per"), _word(parts[1])]
        return [_entity(chunk, "path")]
    if _HOST_RE.fullmatch(chunk) and re.search("[a-z]", chunk, re.I):
        last = chunk.rsplit(".", 1)[1].lower()
        if last in lx.FILE_EXTENSIONS:
            return [_entity(chunk, "file")]
        if not re.fullmatch(r"(?:[a-z]\.)+[a-z]?", lower):  # not "e.g", "i.e"
            return [_entity(chunk, "host")]
    if _ENVVAR_RE.fullmatch(chunk):
        return [_entity(chunk, "envvar")]
    if "_" in chunk or (re.search(r"\d", chunk) and re.search("[a-z]", chunk, re.I)):
        if _MODEL_PLURAL_RE.fullmatch(chunk):  # "A100s" are A100s ("k8s" is no plural)
            return [_entity(chunk[:-1], "ident")]
        return [_entity(chunk, "ident")]
    if "-" in chunk:
        parts = [p for p in chunk.split("-") if p]
        # "X-Batch", "Docker-in-Docker": a capital inside marks an identifier;
        # "force-pushing", "blue-green", "tf-locks" are ordinary words.
        if any(p[:1].isupper() for p in parts[1:]) or any(re.search("[A-Z]", p[1:]) for p in parts):
            return [_entity(chunk, "ident")]
        out = []
        for n, part in enumerate(parts):
            classified = _classify(part)
            if n and classified:
                classified[0].glued = True
            out += classified
        return out
    if _WORD_RE.fullmatch(chunk):
        if re.search(r"[a-z][A-Z]", chunk):
            return [_entity(chunk, "name")]
        if len(chunk) >= 2 and chunk.isupper() and chunk not in lx.GENERIC_ACRONYMS:
            return [_entity(chunk, "name")]
        return [_word(chunk)]
    if re.search(r"\w", chunk):
        return [_entity(chunk, "ident")]
    return [Token(Kind.OP, chunk, chunk, role=Role.OP)]


def _split_chunk(chunk: str) -> list[Token]:
    """Strip outer punctuation from a chunk, classify the middle, keep boundaries."""
    tokens: list[Token] = []
    start, end = 0, len(chunk)
    while start < end and chunk[start] in _LEADING:
        start += 1
    trailing: list[str] = []
    while end > start and chunk[end - 1] in _TRAILING:
        # keep the dot of "a.m." style abbreviations and of "e.g."
        trailing.append(chunk[end - 1])
        end -= 1
    middle = chunk[start:end]
    if middle.lower().endswith("'s"):
        middle = middle[:-2]
    elif middle.endswith("'"):
        middle = middle[:-1]
    if middle:
        tokens += _classify(middle)
    for ch in reversed(trailing):
        if ch in _BOUNDARY:
            tokens.append(Token(Kind.PUNCT, ch, ch, role=Role.PUNCT))
        elif ch == ":":
            tokens.append(Token(Kind.OP, ":", ":", role=Role.OP))
    return tokens


def _merge_phrases(tokens: list[Token]) -> list[Token]:
    """Merge multi-word phrases ("times out", "at least") into single words."""
    stems = [stem(t.raw.lower()) if t.kind is Kind.WORD else None for t in tokens]
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        for words, replacement, verb in _PHRASES_BY_FIRST.get(stems[i] or "", ()):
            n = len(words)
            if tuple(stems[i : i + n]) == words:
                window = tokens[i : i + n]
                tok = _word(replacement)
                tok.raw = " ".join(t.raw for t in window)
                tok.verb = verb
                tok.lemma = replacement
                tok.sentence_start = window[0].sentence_start
                out.append(tok)
                i += n
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def _assign_word(tok: Token, next_tok: Token | None) -> None:
    """Set the lemma, role, entity type and polarity of a word token."""
    low = tok.lemma if tok.verb or " " in tok.raw else tok.raw.lower()
    if low in lx.TECH_NAMES or low in lx.TECH_ALIASES:
        ambiguous = low in lx.AMBIGUOUS_TECH
        versioned = next_tok is not None and next_tok.kind in (Kind.NUMBER, Kind.VERSION)
        capitalised = tok.raw[:1].isupper() and not tok.sentence_start
        if not ambiguous or versioned or capitalised:
            tok.etype = "tech"
            tok.lemma = lx.TECH_ALIASES.get(low, low)
            return
    if low in lx.ENVIRONMENTS:
        tok.etype = "environment"
        tok.lemma = lx.ENVIRONMENTS[low]
        return
    if low in lx.NEGATORS:
        tok.role = Role.NEG
        tok.lemma = low
        return
    if low in lx.ORDER_MARKERS:
        tok.role = Role.ORDER
        tok.lemma = low
        return
    if low in lx.BOUND_WORDS:
        tok.role = Role.BOUND
        tok.lemma = low
        return
    tok.aux = low in lx.AUXILIARIES
    s = stem(low)
    canonical = _SYNONYMS.get(s, s)
    if s in _POLARITY or canonical in _POLARITY:
        concept, sign = _POLARITY.get(s) or _POLARITY[canonical]
        tok.polarity = (concept, sign)
        tok.lemma = concept
        return
    if low in lx.STOPWORDS:
        tok.role = Role.STOP
        tok.lemma = low
        return
    tok.lemma = canonical


def tokenize(text: str) -> list[Token]:
    """Split a lesson into classified tokens (see :class:`Token`)."""
    tokens: list[Token] = []
    for n, segment in enumerate(re.split(r"`([^`]*)`", normalise(text))):
        if n % 2 == 1:
            if segment.strip():
                tokens.append(Token(Kind.CODE, segment, segment.strip().lower(), etype="code"))
            continue
        for chunk in segment.split():
            tokens += _split_chunk(chunk)
    at_start = True
    for tok in tokens:
        tok.sentence_start = at_start and tok.kind is not Kind.PUNCT
        if tok.kind is Kind.PUNCT:
            at_start = tok.raw in ".;!?"
        elif tok.kind is not Kind.OP:
            at_start = False
    tokens = _merge_phrases(tokens)
    for i, tok in enumerate(tokens):
        if tok.kind is Kind.WORD:
            _assign_word(tok, tokens[i + 1] if i + 1 < len(tokens) else None)
    return tokens
