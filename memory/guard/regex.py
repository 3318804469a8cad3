"""The one way the screen compiles a pattern: behind a literal sieve.

The screen runs some 250 patterns over each reading of every lesson, and
nearly all of them fail on ordinary text — after scanning all of it. Most
patterns cannot match without certain words: ``\\b(?:disabl\\w*|turn(?:s|ed)?
off) …`` needs "disabl" or "turn" somewhere in the text. ``Sieved`` reads
that out of the compiled pattern (a conjunction of alternatives: "one of
these, and one of those") and skips the scan when the text lacks them, which
one Aho-Corasick pass (pyahocorasick) over the text tells every pattern at
once. The screen costs a third of what it did on ordinary text (0.64–0.70
→ 0.21–0.23 ms a lesson, docs/benchmarks.md), with the same verdicts.

The sieve may only ever skip a scan that would have found nothing, so its
words are taken conservatively: only literal runs that every match must
contain (an optional group, a repetition that may be empty or a character
class contributes nothing), compared case-insensitively (a superset of a
case-sensitive pattern's matches), in ASCII, after folding the four
non-ASCII characters that ``re.IGNORECASE`` matches to ASCII letters (İ, ı,
ſ and the Kelvin sign). tests/memory/test_guard_sieve.py holds it to that
on the red-team set (its readings, its letters swapped for the folded
ones), on texts generated from every pattern, and checks the folded
letters against re's own matching over every code point.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Iterator
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any

import ahocorasick

_MIN_WORD = 2  # a shorter literal says little and costs a lookup
_MAX_CLAUSES = 6  # the most selective clauses of a pattern's conjunction
# The characters re.IGNORECASE matches to an ASCII letter besides its two
# cases (re._casefix, and a simple lowercase that is ASCII); the test checks
# the list against every code point.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})

_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")

Clause = frozenset[str]  # one of these words occurs in every match


def _strength(clause: Clause) -> tuple[int, int]:
    return (min(map(len, clause)), -len(clause))


def _clauses(items: Any) -> list[Clause]:
    """The words a match of the parsed ``items`` must contain: each clause
    is satisfied by one of its words."""
    clauses: list[Clause] = []
    run: list[str] = []

    def end_run() -> None:
        for word in _NOT_ASCII.split("".join(run)):
            if len(word) >= _MIN_WORD:
                clauses.append(frozenset({word.lower()}))
        run.clear()

    for op, av in items:
        if op is sre_constants.LITERAL:
            run.append(chr(av))
            continue
        if op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue  # zero-width: the characters either side are adjacent
        end_run()
        if op is sre_constants.SUBPATTERN:
            clauses.extend(_clauses(av[-1]))
        elif op is sre_constants.ATOMIC_GROUP:
            clauses.extend(_clauses(av))
        elif op is sre_constants.BRANCH:
            # some branch matches: the union of each branch's best clause
            branches = [_clauses(branch) for branch in av[1]]
            if all(branches):
                clauses.append(frozenset().union(*(max(b, key=_strength) for b in branches)))
        elif op in (
            sre_constants.MAX_REPEAT,
            sre_constants.MIN_REPEAT,
            sre_constants.POSSESSIVE_REPEAT,
        ):
            low, _, body = av
            if low >= 1:
                clauses.extend(_clauses(body))
        # anything else (a class, any character, a back-reference, a
        # conditional) consumes text we do not know: it requires nothing
    end_run()
    return clauses


def required_words(pattern: re.Pattern[str]) -> list[Clause]:
    """What every match of ``pattern`` contains (lowercased ASCII): each
    clause, one of its words. Empty when nothing is certain."""
    found = set(_clauses(sre_parser.parse(pattern.pattern, pattern.flags)))
    return sorted(found, key=_strength, reverse=True)[:_MAX_CLAUSES]


class _Words:
    """Every sieve's words in one automaton, built once the screen's
    modules are loaded (on the first text looked at)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.sieves: list[Sieved] = []
        self.built: frozenset[int] = frozenset()  # the words the automaton has
        self.automaton: Any = None
        self.lock = threading.Lock()
        # (text, the automaton that read it, the ids of the words it
        # contains): one slot, replaced whole, so that a thread never takes
        # one text's words for another's, nor an older automaton's
        self.last: tuple[str, Any, frozenset[int]] = ("", None, frozenset())

    def register(self, sieve: Sieved) -> list[frozenset[int]]:
        with self.lock:
            self.sieves.append(sieve)
            clauses = [
                frozenset(self.ids.setdefault(w, len(self.ids)) for w in c) for c in sieve.words
            ]
            if any(index not in self.built for clause in clauses for index in clause):
                self.automaton = None  # built again, with these words, when next used
            return clauses

    def build(self) -> Any:
        with self.lock:
            if self.automaton is None:
                automaton = ahocorasick.Automaton()
                for word, index in self.ids.items():
                    automaton.add_word(word, index)
                if self.ids:
                    automaton.make_automaton()
                self.built = frozenset(self.ids.values())
                self.automaton = automaton
            return self.automaton

    def present(self, text: str) -> frozenset[int]:
        automaton = self.automaton
        if automaton is None:
            automaton = self.build()
        last = self.last
        if last[0] is text and last[1] is automaton:
            return last[2]
        folded = text.lower() if text.isascii() else text.translate(_FOLD).lower()
        found = (
            frozenset(index for _, index in automaton.iter(folded))
            if automaton.kind == ahocorasick.AHOCORASICK
            else frozenset()
        )
        self.last = (text, automaton, found)
        return found


_words = _Words()


class Sieved:
    """A compiled pattern whose scans are skipped when the text lacks the
    words every match contains; otherwise exactly ``re.Pattern``."""

    __slots__ = ("_clauses", "compiled", "flags", "pattern", "words")

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self.compiled = compiled
        self.pattern = compiled.pattern
        self.flags = compiled.flags
        self.words = required_words(compiled)
        self._clauses = _words.register(self)

    def may_match(self, text: str) -> bool:
        # written out: this runs some 250 times a reading
        clauses = self._clauses
        if not clauses:
            return True
        last = _words.last
        if last[0] is text and last[1] is _words.automaton is not None:
            present = last[2]
        else:
            present = _words.present(text)
        for clause in clauses:  # noqa: SIM110 (a loop: all() of a generator is slower here)
            if present.isdisjoint(clause):
                return False
        return True

    # re.Pattern's methods, by its parameter names; a skipped scan answers
    # what re answers when nothing matches
    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos) if self.may_match(string) else None

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos) if self.may_match(string) else None

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos) if self.may_match(string) else None

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos) if self.may_match(string) else iter(())

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos) if self.may_match(string) else []

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        # a template with escapes is checked by re even when nothing matches
        if self.may_match(string) or (isinstance(repl, str) and "\\" in repl):
            return self.compiled.sub(repl, string, count)
        return string

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit) if self.may_match(string) else [string]

    def __repr__(self) -> str:
        return f"Sieved({self.compiled!r})"


def every_sieve() -> list[Sieved]:
    return list(_words.sieves)


def sieved(pattern: str, flags: int = 0) -> Sieved:
    return Sieved(re.compile(pattern, flags))


def rx(pattern: str) -> Sieved:
    return sieved(pattern, re.IGNORECASE)


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence (between periods or semicolons) that holds ``start:end``."""
    begin = max(text.rfind(".", 0, start), text.rfind(";", 0, start)) + 1
    stop = text.find(".", end)
    return text[begin : stop if stop >= 0 else len(text)]
