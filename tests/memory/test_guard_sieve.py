"""The screen's literal sieve (memory.guard.regex) may skip a pattern's scan
only where the scan would have found nothing."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memory.guard  # noqa: F401 (every pattern of the screen compiled)
from memory.guard import regex
from memory.guard.normalise import readings
from memory.guard.regex import required_words, rx

EVALS = Path(__file__).resolve().parents[2] / "evals"

# re.IGNORECASE matching a non-ASCII character to an ASCII letter
TO_ASCII = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"}


def _texts() -> tuple[list[str], list[tuple[str, str]]]:
    """What the patterns read — the golden lessons, the red team's attacks
    and their readings — and each attack beside its disguise: the letters a
    case-insensitive pattern matches beyond their two cases."""
    red = json.loads((EVALS / "redteam.json").read_text())
    golden = json.loads((EVALS / "judge_golden.json").read_text())
    attacks = [f"{case['content']}\n{case.get('situation', '')}" for case in red]
    texts = [f"{case['new']['content']}\n{case['new'].get('situation', '')}" for case in golden]
    for text in attacks:
        texts += [text, *(reading for _, reading in readings(text))]
    return texts, [(text, _disguised(text)) for text in attacks]


def _disguised(text: str) -> str:
    out = []
    for n, char in enumerate(text):
        others = TO_ASCII.get(char.lower())
        out.append(others[n % len(others)] if others and n % 2 else char)
    return "".join(out)


# A pattern that opens on something that may match nothing ("[^.;]{0,40}\b(?:should|must) …",
# "\s*(?:when …,)?") finds a match in a text exactly where the rest of it
# does, and a branch it opens on exactly where that branch's rest does:
# whether anything matches is asked of the rest, which does not retry the
# opening at every position (a fifth of this check's time). Not where a
# group is referred back to (a dropped group would be unset).
_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)
_REFERS_BACK = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")


def _opening_dropped(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    items = list(items)
    while items:
        op, av = items[0]
        if op in _REPEATS and av[0] == 0:
            items.pop(0)
        elif op is sre_constants.BRANCH:
            branches = [_sub(branch, _opening_dropped(branch.data)) for branch in av[1]]
            items[0] = (op, (av[0], branches))
            break
        elif op is sre_constants.SUBPATTERN:
            group, add, remove, inner = av
            items[0] = (op, (group, add, remove, _sub(inner, _opening_dropped(inner.data))))
            break
        else:
            break
    return items


def _sub(like: Any, items: list[tuple[Any, Any]]) -> Any:
    return sre_parser.SubPattern(like.state, items)


_INLINE_FLAGS = re.compile(r"\(\?(?:[aiLmsux]+(?:-[aiLmsux]*)?|-[aiLmsux]+)[:)]")


def _cases_alike(sieve: regex.Sieved) -> bool:
    """Whether the whole pattern reads a letter as its other cases do (no
    part of it with flags of its own: "(?-i:[A-Z_]+KEY)")."""
    return bool(sieve.flags & re.IGNORECASE) and not _INLINE_FLAGS.search(sieve.pattern)


class _Open(Exception):
    """A pattern whose first letter is not one of a set (".", "\\w", "[^…]",
    or nothing at all)."""


def _first_letters(items: list[tuple[Any, Any]]) -> tuple[list[tuple[Any, Any]], bool]:
    """The class items one of which a match's first letter is, and whether
    the sequence may match nothing (then its first letter is anything after)."""
    letters: list[tuple[Any, Any]] = []
    for op, av in items:
        if op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue  # no letter read: the next item's is the first
        if op is sre_constants.LITERAL:
            return [*letters, (op, av)], False
        if op is sre_constants.IN and not any(o is sre_constants.NEGATE for o, _ in av):
            return [*letters, *av], False
        if op is sre_constants.SUBPATTERN:
            if av[1] or av[2]:
                raise _Open  # "(?i:…)": its letters read by flags of its own
            found, empty = _first_letters(av[3].data)
        elif op is sre_constants.BRANCH:
            each = [_first_letters(branch.data) for branch in av[1]]
            found, empty = [x for f, _ in each for x in f], any(e for _, e in each)
        elif op in _REPEATS:
            found, empty = _first_letters(av[2].data)
            empty = empty or av[0] == 0
        else:
            raise _Open
        letters += found
        if not empty:
            return letters, False
    return letters, True


def _finds_anything(compiled: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern that finds a match in exactly the texts ``compiled`` does,
    quicker to ask: its openings that may match nothing dropped, and a
    lookahead at its start for the letters a match can begin with (a
    case-insensitive pattern gets no such skip from re; a lookahead rejects
    most positions at one test rather than one per branch)."""
    if _REFERS_BACK.search(compiled.pattern):
        return compiled
    tree = sre_parser.parse(compiled.pattern, compiled.flags)
    items = _opening_dropped(tree.data)
    try:
        letters, empty = _first_letters(items)
    except _Open:
        letters, empty = [], True
    if not empty and letters:
        items = [(sre_constants.ASSERT, (1, _sub(tree, [(sre_constants.IN, letters)]))), *items]
    if str(items) == str(tree.data):
        return compiled
    return sre_compile.compile(_sub(tree, items), compiled.flags)  # type: ignore[no-any-return]


def test_the_sieve_skips_no_scan_that_would_have_matched() -> None:
    texts, disguised = _texts()
    sieves = regex.every_sieve()
    assert len(sieves) > 200
    assert sum(1 for s in sieves if s.words) > 150  # most patterns are sieved
    finders = [_finds_anything(sieve.compiled) for sieve in sieves]
    assert sum(f is not s.compiled for f, s in zip(finders, sieves, strict=True)) >= 2
    skipped = 0
    for text in texts:  # text by text: the sieve reads each text once
        for sieve, finder in zip(sieves, finders, strict=True):
            if not sieve.may_match(text):
                skipped += 1
                assert not finder.search(text), (sieve.pattern[:80], text[:200])
    # most scans that would fail are skipped, and so checked above
    assert skipped > 0.5 * len(sieves) * len(texts)
    # A case-insensitive pattern reads a disguised attack as the attack
    # (the test below holds re to that on a sample), whose scans were
    # checked above: where the sieve skips both, the disguise's scan fails
    # with the attack's. It is scanned where the sieve skips it alone —
    # where the sieve would read the letters otherwise than re — and by a
    # pattern any part of which tells cases apart.
    pairs = list(zip(sieves, finders, strict=True))
    for text, disguise in disguised:
        # one text at a time, as the sieve reads them: the disguise, then the attack
        skipping = [(sieve, finder) for sieve, finder in pairs if not sieve.may_match(disguise)]
        scanned = [
            finder for sieve, finder in skipping
            if not _cases_alike(sieve) or sieve.may_match(text)
        ]  # fmt: skip
        for finder in scanned:
            assert not finder.search(disguise), (finder.pattern, disguise[:200])


def test_a_case_insensitive_pattern_reads_a_disguised_attack_as_the_attack() -> None:
    disguised = [(text, disguise) for text, disguise in _texts()[1] if text != disguise]
    sample = disguised[:: max(1, len(disguised) // 150)]
    sieves = [s for s in regex.every_sieve() if _cases_alike(s)]
    assert len(sieves) > 200 and len(sample) >= 150
    found = 0
    for text, disguise in sample:
        for sieve in sieves:
            match = sieve.compiled.search(text)
            assert bool(match) == bool(sieve.compiled.search(disguise)), sieve.pattern[:80]
            found += match is not None
    assert found > len(sample)  # patterns that match, not only ones that do not


def test_the_folded_letters_are_every_non_ascii_character_ignorecase_matches_to_ascii() -> None:
    # By re itself: every code point a case-insensitive ASCII character
    # matches must fold to that character.
    everything = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    found: dict[str, str] = {}
    for code in range(128):
        char = chr(code)
        for other in re.findall(re.escape(char), everything, re.IGNORECASE):
            assert other.translate(regex._FOLD).lower() == char.lower(), (char, other)
            if not other.isascii():
                found[char.lower()] = found.get(char.lower(), "") + other
    assert {k: "".join(sorted(set(v))) for k, v in found.items()} == TO_ASCII


@settings(
    max_examples=1000, derandomize=True, deadline=None, database=None,
    suppress_health_check=list(HealthCheck),
)  # fmt: skip
@given(st.data())
def test_a_text_made_to_match_a_pattern_is_never_sieved_out(data: st.DataObject) -> None:
    """Texts generated from the patterns themselves (hypothesis's from_regex:
    every branch, repetition and case), not only the ones the sets hold."""
    sieve = data.draw(st.sampled_from([s for s in regex.every_sieve() if s.words]))
    text = data.draw(st.from_regex(sieve.compiled))
    assert sieve.compiled.search(text)
    assert sieve.may_match(text), (sieve.pattern[:80], text)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"\b(?:disabl\w*|turn(?:s|ed)? off)\b", [{"disabl", "turn"}]),
        (r"send (?:it|them)? to https?://", [{"send "}, {" to http"}, {"://"}]),
        (r"colou?r", [{"colo"}]),  # the optional letter breaks the run
        (r"(?:token|key)s{1,3}\b", [{"token", "key"}]),
        (r"a|\d+", []),  # a branch that needs nothing
        (r"[a-z]+://", [{"://"}]),
        (r"x*(?=always)", []),  # what a lookahead sees is not consumed
        (r"Ünïcode word", [{"code word"}]),  # only ASCII runs
    ],
)
def test_required_words(pattern: str, words: list[set[str]]) -> None:
    found = required_words(re.compile(pattern, re.IGNORECASE))
    assert sorted(map(sorted, found)) == sorted(map(sorted, words))


def test_a_sieved_pattern_answers_as_the_pattern_does() -> None:
    pattern = rx(r"\bignore (?:all )?previous instructions\b")
    assert pattern.words
    for text in ("IGNORE previous instructions", "\u0130gnore all prev\u0131ou\u017f instructions"):
        assert pattern.may_match(text)
        assert pattern.search(text) is not None
        assert [m.span() for m in pattern.finditer(text)] == [
            m.span() for m in pattern.compiled.finditer(text)
        ]
    text = "ignore the locale warnings"
    assert not pattern.may_match(text)
    assert pattern.search(text) is None and pattern.findall(text) == []
    assert pattern.sub("x", text) == text and pattern.split(text) == [text]


@pytest.mark.parametrize(
    ("pattern", "finds", "finds_not"),
    [
        (r"[^.;]{0,40}\bmust refuse\b|[^.;]{0,40}\bwill decline\b", "it will decline", "decline."),
        (r"\s*(?:(?:when|if)\b[^.;,]{0,80},\s*)?(?:first\s+)?ignore\b", "If so, ignore", "ignored"),
        (r"(?:x{0,3}|y?)ab", "zzab", "a b"),
        (r"(a)?b\1", "aba", "xb"),  # refers back: left whole
        (r"\b(?:api|secret)[- ]?keys?\b", "the API-key", "keyboard"),
        (r"x?(?i:Token)s", "TOKENS", "tokenz"),  # a group's own flags
    ],
)
def test_what_the_check_asks_finds_a_match_where_the_pattern_does(
    pattern: str, finds: str, finds_not: str
) -> None:
    compiled = re.compile(pattern, re.IGNORECASE)
    finder = _finds_anything(compiled)
    assert (finder is compiled) == ("\\1" in pattern)
    for text in (finds, finds_not, finds.upper(), f"{finds_not} {finds}"):
        assert bool(finder.search(text)) == bool(compiled.search(text)), text
    assert finder.search(finds) and not finder.search(finds_not)
