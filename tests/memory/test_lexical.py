"""Word overlap within the vector leg's pool (memory.lexical)."""

from __future__ import annotations

from memory.lexical import pool_scores, words

POOL = [
    "Maya said she goes to a wheel-throwing studio on Thursday evenings.",
    "Maya said her sister visited and they went to a ceramics fair.",
    "Maya said she is training for a half marathon on weekend mornings.",
    "Maya said she started a pottery class and loves working with clay.",
    "Maya said her mom loved the blue vase she made.",
]


def test_a_rare_shared_word_scores_its_text_highest_and_a_name_in_every_text_nothing():
    scores = pool_scores("What does Maya do on Thursday evenings?", POOL)
    assert scores[0] == 1.0 and all(s < 1.0 for s in scores[1:])
    # "Maya", "said", "she" are in (nearly) every text: they weigh nothing
    assert pool_scores("What did Maya say?", POOL) == [0.0] * len(POOL)


def test_words_fold_case_and_simple_suffixes():
    assert words("Evenings WALKED walking") == ["evening", "walk", "walk"]
    assert words("wheel-throwing, O'Neill's e.g.") == ["wheel-throw", "o'neill", "e.g"]


def test_nothing_to_weigh_gives_zeros():
    assert pool_scores("", POOL) == [0.0] * len(POOL)
    assert pool_scores("Thursday", []) == []
    assert pool_scores("unrelated words entirely", POOL) == [0.0] * len(POOL)
