"""Word overlap within the vector leg's pool: the question's words a
neighbour shares, weighed by how rare each is *among the neighbours*.

Embeddings of short facts about the same people and matters sit close
together; the words a question shares with one of them ("Thursday
evenings", "allergic", a name) tell them apart. The weights come from the
pool itself (BM25 with the pool as its corpus): a word most neighbours have
— a name that is in every fact, a stop word — weighs nothing, so no stop
list and no tenant-wide statistics are needed, and the tenant's term table
is not read. Measured against the every-word full-text leg, which hurt on a
blind set of conversational histories (docs/benchmarks.md, issue 21).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*")
_SUFFIXES = ("ing", "ed", "es", "s")
_FORMS = ("", "s", "es", "ed", "ing", "'s", "’s")
K1 = 1.2
B = 0.75


def stem(word: str) -> str:
    """A lower-cased word without a possessive or one of ``_SUFFIXES``
    (walked / walks / walking → walk)."""
    word = word.removesuffix("'s").removesuffix("’s")
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    return [stem(word) for word in _WORD.findall(text.lower())]


def pool_scores(query: str, texts: Sequence[str]) -> list[float]:
    """Each text's BM25 score for the query's words, with the document
    frequencies counted over ``texts``; scaled so the best is 1 (all 0 when
    no word of the query is rarer than half the pool). A text's word counts
    for a query word when it is the query word's stem with one of
    ``_FORMS`` after it — the texts are never stemmed word by word (recall
    runs this on every query)."""
    forms = {stem + form: stem for stem in set(words(query)) for form in _FORMS}
    if not forms or not texts:
        return [0.0] * len(texts)
    counts: list[Counter[str]] = []
    lengths: list[int] = []
    for text in texts:
        found = _WORD.findall(text.lower())
        lengths.append(len(found))
        counts.append(Counter(forms[w] for w in found if w in forms))
    size = len(texts)
    average = sum(lengths) / size or 1.0
    weights = {}
    for word in set(forms.values()):
        df = sum(1 for count in counts if word in count)
        idf = math.log((size - df + 0.5) / (df + 0.5)) if df else 0.0
        if idf > 0:
            weights[word] = idf
    scores = []
    for count, length in zip(counts, lengths, strict=True):
        norm = K1 * (1 - B + B * length / average)
        scores.append(
            sum(
                idf * count[w] * (K1 + 1) / (count[w] + norm)
                for w, idf in weights.items()
                if w in count
            )
        )
    best = max(scores)
    return [s / best for s in scores] if best > 0 else scores
