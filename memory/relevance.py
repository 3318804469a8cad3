"""Whether a recall found anything relevant: a score floor per tenant.

An agent that asks memory about something it holds nothing on should hear
so, not be handed the ten least unrelated lessons. A recall is *relevant*
when a lesson shares one of the query's rare terms (the full-text leg
matched) or when its nearest lesson is closer than the tenant's floor.

The floor is calibrated per tenant, because how similar an unrelated
question looks depends on what the tenant holds (a tenant of short ops
notes and one of personal diaries sit at different distances from
everything): ``PROBES`` are questions about general knowledge no agent
memory is for; each one's best similarity among the tenant's lessons (up
to ``SAMPLE`` of them) is what an unrelated question reaches there, and the
floor is their 90th percentile plus ``MARGIN`` — never above ``CEILING``, so
a recall whose best similarity reaches it is relevant without measuring.
The floor is remembered per process for ``TTL_SECONDS``, and measured again
when the tenant's size has moved by a fifth.

It tells unrelated questions from related ones; it does not tell a question
memory can answer from one about a subject it knows but a detail it was
never told ("what breed is Pickle?" of a tenant that knows Pickle the cat):
those share words and similarity with what is there. The answer reader
(``answers.py``) reads the question with the best lessons for that.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Sequence

import numpy as np
from django.db import transaction

from memory.embeddings import Vector, embed, get_provider
from memory.scope_cache import Key, ScopeCache, scope_key

log = logging.getLogger(__name__)

MARGIN = 0.05
CEILING = 0.6
SAMPLE = 2000
TTL_SECONDS = 600
PERCENTILE = 90

PROBES = [
    "What is the boiling point of water at sea level?",
    "Who wrote the novel Pride and Prejudice?",
    "How many moons does Jupiter have?",
    "What is the capital city of Australia?",
    "How do I make sourdough bread at home?",
    "What are the rules of cricket?",
    "Which planet is closest to the sun?",
    "How long should I boil an egg for a soft yolk?",
    "What year did the Berlin Wall fall?",
    "Who painted the Mona Lisa?",
    "What is the chemical symbol for gold?",
    "How tall is Mount Everest?",
    "What is the best way to learn to play the guitar?",
    "Which team won the football World Cup in 2014?",
    "How do bees make honey?",
    "What is the speed of light in a vacuum?",
    "What language is spoken in Brazil?",
    "How many bones are in the adult human body?",
    "What causes the northern lights?",
    "Who composed the Four Seasons?",
    "What is the largest ocean on Earth?",
    "How do I remove a red wine stain from a carpet?",
    "What is the plot of Hamlet?",
    "What is photosynthesis?",
    "How many players are on a basketball team on court?",
    "What is the tallest building in the world?",
    "When did the first person walk on the moon?",
    "What is the difference between a crocodile and an alligator?",
    "Which vitamins are found in oranges?",
    "How do I care for a bonsai tree?",
    "What is the population of Canada?",
    "Who discovered penicillin?",
    "What is the recipe for a classic margherita pizza?",
    "How does a rainbow form?",
    "What is the longest river in Africa?",
    "Which instrument has 88 keys?",
    "What do pandas eat in the wild?",
    "How do volcanoes erupt?",
    "What is the origin of the Olympic Games?",
    "How many strings does a violin have?",
    "What is the currency of Japan?",
    "How can I improve my chess openings?",
    "What is the life cycle of a butterfly?",
    "Who was the first emperor of Rome?",
    "What is the freezing point of seawater?",
    "How do I knit a scarf for beginners?",
    "What are the symptoms of the common cold?",
    "Which desert is the largest in the world?",
    "How far is the Moon from the Earth?",
    "What is the history of the Eiffel Tower?",
    "How do migratory birds navigate?",
    "What is a haiku poem?",
    "Which countries border Switzerland?",
    "How do I train a puppy to sit?",
    "What is the main ingredient of guacamole?",
    "How are diamonds formed?",
    "Who invented the telephone?",
    "What is the rule of thirds in photography?",
    "How many time zones does Russia have?",
    "What is the meaning of the word serendipity?",
    "How do tides work?",
    "What is the most popular sport in New Zealand?",
    "How do I grow tomatoes on a balcony?",
    "What did the dinosaurs eat?",
]

_probes: list[Vector] | None = None
_probes_lock = threading.Lock()
_floors: ScopeCache[tuple[int, float]] = ScopeCache(TTL_SECONDS)  # (size, floor)
_measuring: dict[Key, threading.Lock] = {}
_measuring_lock = threading.Lock()


def probe_vectors() -> list[Vector]:
    """The probes' vectors, embedded once per process."""
    global _probes
    if _probes is None:
        with _probes_lock:
            if _probes is None:
                _probes = embed(PROBES)
    return _probes


def load_for_recall() -> None:
    """What a recall needs loaded, loaded now — the embedding model (a
    dimension mismatch then fails start-up, not the first recall), the
    probes' vectors and the answer reader — by every process that serves
    recalls."""
    from memory import answers

    get_provider()
    probe_vectors()
    answers.warm()


def floor_of(best: Sequence[float]) -> float:
    """The floor given each probe's best similarity in a tenant."""
    if len(best) == 0:
        return CEILING
    return min(CEILING, float(np.percentile(best, PERCENTILE)) + MARGIN)


def relevance_floor(*, tenant_id: uuid.UUID, kinds: Sequence[str], size: int) -> float:
    """The tenant's floor over ``kinds`` (``size`` active lessons in them),
    remembered or measured now — by one thread of the process at a time
    for a given tenant, the others waiting for its answer. Precondition: in
    the tenant's transaction."""
    from memory.selectors import probe_similarities

    key = scope_key(tenant_id, kinds)
    known = _known(key, size)
    if known is not None:
        return known
    with _measuring_lock:
        if len(_measuring) > ScopeCache.MAX:
            _measuring.clear()
        lock = _measuring.setdefault(key, threading.Lock())
    with lock:
        known = _known(key, size)  # measured while this thread waited
        if known is not None:
            return known
        probes = probe_vectors()
        # A savepoint (a failure leaves the recall's transaction usable), or
        # in a read scope a transaction of its own with the scope's settings.
        with transaction.atomic():
            floor = floor_of(probe_similarities(tenant_id, kinds, probes, SAMPLE))
        _floors.put(key, (size, floor))
    return floor


def _known(key: Key, size: int) -> float | None:
    """The remembered floor, unless the tenant's size has moved by a fifth."""
    known = _floors.get(key)
    if known is None:
        return None
    measured_at, floor = known
    return floor if abs(size - measured_at) <= max(measured_at, 10) / 5 else None


def nothing_relevant(
    *,
    tenant_id: uuid.UUID,
    kinds: Sequence[str],
    size: int,
    best_similarity: float | None,
    text_matched: bool,
) -> bool:
    """Whether a recall found nothing relevant: no rare term of the query
    matched and its nearest lesson (``best_similarity``; None: the tenant
    has none) is below the tenant's floor. Measures the floor only when
    the answer depends on it."""
    if text_matched:
        return False
    if best_similarity is None:
        return True
    if best_similarity >= CEILING:
        return False
    try:
        floor = relevance_floor(tenant_id=tenant_id, kinds=kinds, size=size)
    except Exception:  # the flag must never fail a recall that found its lessons
        log.warning("no relevance floor for tenant %s; answered as relevant", tenant_id,
                    exc_info=True)  # fmt: skip
        return False
    return best_similarity < floor
