"""The benchmark corpus: tenants of skewed sizes holding ops lessons whose
vectors cluster like real paraphrases, loaded straight into PostgreSQL.

Vectors: ``base`` templated sentences embedded by the real model
(all-MiniLM-L6-v2); each lesson is a noisy mix of two of them (embedding
150,000 sentences one by one would take 15 minutes on 2 cores). A query is
a noisy copy of a base sentence's vector, with that sentence as its text.
"""

from __future__ import annotations

import argparse
import random
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

SERVICES = ["deploy API", "build cache", "billing service", "search index", "auth gateway",
            "export job", "ingest pipeline", "payment gateway", "config loader", "rate limiter",
            "package mirror", "staging database", "log shipper", "feature flags", "CDN edge",
            "scheduler", "mail relay", "metrics store", "queue broker", "vault"]  # fmt: skip
FACTS = ["answers 429 unless the X-Batch header is sent", "fails when the cache is stale",
         "needs a restart after a config push", "listens on port {n}", "runs at {h:02d}:00 UTC",
         "times out after {n} seconds", "is deprecated in favour of v{v}",
         "requires Python 3.{v}", "keeps backups for {v} days", "rejects payloads over {n} KB",
         "must be called with a service token", "retries at most {v} times",
         "logs error E{n} when the disk is full", "is frozen on Fridays after {h}:00",
         "rebuilds its index nightly", "drops connections idle for {n} ms"]  # fmt: skip


def base_sentences(count: int, rng: random.Random) -> list[str]:
    seen: set[str] = set()
    while len(seen) < count:
        fact = rng.choice(FACTS).format(
            n=rng.randint(100, 9999), h=rng.randint(0, 23), v=rng.randint(2, 14)
        )
        seen.add(f"The {rng.choice(SERVICES)} {fact}.")
    return sorted(seen)


def add_skewed_corpus_arguments(parser: argparse.ArgumentParser, *, queries_help: str) -> None:
    """The recall benchmarks' corpus and run options: ``--lessons`` over
    ``--tenants`` of skewed sizes plus one ``--big`` tenant, ``--base``
    sentences, ``--queries``, ``--keep``; read back by ``skewed_sizes``."""
    parser.add_argument("--lessons", type=int, default=100_000)
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--big", type=int, default=50_000)
    parser.add_argument("--base", type=int, default=6000)
    parser.add_argument("--queries", type=int, default=200, help=queries_help)
    add_load_argument(parser)
    parser.add_argument("--keep", action="store_true", help="keep the data dir")


def add_load_argument(parser: argparse.ArgumentParser) -> None:
    """``--load import|copy``, read by ``load_into_tributary``."""
    parser.add_argument(
        "--load", choices=("import", "copy"), default="import",
        help="load Tributary through manage.py import_lessons --trust (every lesson with its "
        "provenance, as an operator would), or COPY the lessons alone (faster; a million)",
    )  # fmt: skip


def load_into_tributary(data_dir: Path, corpus: Corpus, how: str) -> float:
    """The corpus into the service's tables as ``--load`` says; the seconds
    it took."""
    if how == "import":
        return import_into_tributary(data_dir, corpus)
    return copy_into_tributary(data_dir, corpus)


def skewed_sizes(args: argparse.Namespace) -> list[int]:
    """The tenants' sizes those options ask for, the big tenant last."""
    return [*tenant_sizes(args.lessons, args.tenants), args.big]


def tenant_sizes(total: int, tenants: int) -> list[int]:
    """Zipf-like sizes (exponent 0.9), at least 20 lessons each."""
    weights = [1 / (i + 1) ** 0.9 for i in range(tenants)]
    scale = total / sum(weights)
    sizes = [max(20, int(w * scale)) for w in weights]
    sizes[0] += total - sum(sizes)
    return sizes


@dataclass
class Tenant:
    slug: str
    id: uuid.UUID
    agent_id: uuid.UUID
    size: int
    ids: list[uuid.UUID] = field(default_factory=list)
    contents: list[str] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 384), np.float32))


@dataclass
class Corpus:
    texts: list[str]
    base: np.ndarray  # the base sentences' unit vectors
    tenants: list[Tenant]

    def query(self, rng: random.Random) -> tuple[str, list[float]]:
        """A question: a base sentence and a noisy copy of its vector."""
        which = rng.randrange(len(self.texts))
        vector = self.base[which] + np.random.default_rng(which).normal(0, 0.05, 384)
        return self.texts[which], (vector / np.linalg.norm(vector)).tolist()


def mixed_vectors(base: np.ndarray, count: int, nprng: Any) -> tuple[np.ndarray, np.ndarray]:
    """``count`` unit vectors, each a noisy mix of two base vectors (60–95 %
    of the first), and the first's index for each (its text)."""
    first = nprng.integers(0, len(base), count)
    second = nprng.integers(0, len(base), count)
    mix = nprng.uniform(0.6, 0.95, count)[:, None]
    vectors = mix * base[first] + (1 - mix) * base[second]
    vectors += nprng.normal(0, 0.02, vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return first, vectors


def build_corpus(sizes: dict[str, int], base_count: int, seed: int = 7) -> Corpus:
    """Embed the base sentences, create the tenants (an agent "bench" in
    each) and their lessons' texts and vectors. Nothing is loaded yet."""
    from accounts.services import agent_ensure, tenant_ensure
    from accounts.tenancy import cross_tenant
    from memory.embeddings import embed

    texts = base_sentences(base_count, random.Random(seed))
    started = time.perf_counter()
    base = np.array(embed(texts), dtype=np.float32)
    elapsed = time.perf_counter() - started
    print(f"embedded {len(texts)} base sentences in {elapsed:.1f} s "
          f"({len(texts) / elapsed:.0f}/s batched)")  # fmt: skip
    nprng = np.random.default_rng(seed)
    tenants = []
    with cross_tenant(reason="benchmark set-up"):
        for slug, size in sizes.items():
            tenant = tenant_ensure(slug=slug)
            agent = agent_ensure(tenant=tenant, name="bench")
            first, vectors = mixed_vectors(base, size, nprng)
            tenants.append(Tenant(
                slug=slug, id=tenant.id, agent_id=agent.id, size=size,
                ids=[uuid.uuid4() for _ in range(size)],
                contents=[f"{texts[first[row]]} (note {row})" for row in range(size)],
                vectors=vectors.astype(np.float32),
            ))  # fmt: skip
    return Corpus(texts=texts, base=base, tenants=tenants)


def vector_text(vector: Any) -> str:
    return "[" + ",".join(f"{v:.5f}" for v in vector) + "]"


def _superuser(data_dir: Path) -> Any:
    """An autocommit connection to the service's database as the embedded
    server's superuser (no row-level security: the load's own work)."""
    import psycopg

    from config.embedded import APP_DATABASE, EmbeddedPostgres

    return psycopg.connect(EmbeddedPostgres(data_dir).dsn(dbname=APP_DATABASE), autocommit=True)


def copy_into_tributary(data_dir: Path, corpus: Corpus) -> float:
    """COPY every lesson (active, one first-hand corroboration) and the
    scopes' counts into the service's tables; returns the seconds it took.
    (``import_into_tributary`` writes the provenance too, slower: see
    docs/benchmarks.md.)"""
    started = time.perf_counter()
    with _superuser(data_dir) as conn:
        with (
            conn.cursor() as cursor,
            cursor.copy(
                "COPY memory_lesson (id, tenant_id, kind, content, situation, embedding, status, "
                "confidence, author_id, reinforcement_count, pinned, created_at, activated_at, "
                "retired_reason, needs_rejudge, corroboration, corroboration_reason) FROM STDIN"
            ) as copy,
        ):
            for t in corpus.tenants:
                for lesson_id, content, vector in zip(t.ids, t.contents, t.vectors, strict=True):
                    copy.write_row((
                        lesson_id, t.id, "lesson", content, "", vector_text(vector), "active",
                        0.7, t.agent_id, 0, False, "2026-01-01T00:00:00Z",
                        "2026-01-01T00:00:00Z", "", False, "single-source", "",
                    ))  # fmt: skip
        for t in corpus.tenants:
            conn.execute(
                "INSERT INTO memory_scope (tenant_id, kind, version, active_count) "
                "VALUES (%s, 'lesson', 0, %s)",
                [t.id, t.size],
            )
        conn.execute("ANALYZE memory_lesson")
    return time.perf_counter() - started


def import_into_tributary(data_dir: Path, corpus: Corpus) -> float:
    """Load every lesson through ``manage.py import_lessons --trust`` (the
    vectors supplied), as an operator would: each lesson with its belief,
    its root observation in the file and their edges, its learn request,
    its event and corroboration audit — the rows a learned lesson has, which
    a COPY leaves out. Each tenant's lesson ids are then read back by
    content (unique in a tenant), so the truth (``exact_top``) names the
    imported lessons. Returns the seconds the imports took (the files are
    written outside the timing)."""
    import json
    from io import StringIO

    from django.core.management import call_command

    from accounts.tenancy import tenant_context
    from memory.models import Lesson

    files = data_dir / "corpus"
    files.mkdir(exist_ok=True)
    elapsed = 0.0
    for t in corpus.tenants:
        path = files / f"{t.slug}.jsonl"
        with path.open("w") as out:
            for row, (content, vector) in enumerate(zip(t.contents, t.vectors, strict=True)):
                record = {"id": str(row), "content": content, "author": "bench",
                          "vector": [round(float(v), 5) for v in vector]}  # fmt: skip
                out.write(json.dumps(record) + "\n")
        # A tenant of one batch has nothing to screen ahead: no helper process.
        helpers = "1" if len(t.contents) > 500 else "0"
        started = time.perf_counter()
        call_command(
            "import_lessons", str(path), "--tenant", t.slug, "--trust", "--no-progress",
            "--screen-processes", helpers, stdout=StringIO(),
        )  # fmt: skip
        elapsed += time.perf_counter() - started
        path.unlink()
        with tenant_context(t.id):
            ids = dict(
                Lesson.objects.filter(tenant_id=t.id, status="active").values_list("content", "id")
            )
        # Every lesson imported and active (none quarantined, none failed):
        # else the truth would name lessons no search can find.
        if len(ids) != t.size:
            raise RuntimeError(f"{t.slug}: {len(ids)} active lessons imported of {t.size}")
        t.ids = [ids[content] for content in t.contents]
    # What autovacuum does within its minute after an import (the learn
    # requests were written and then updated, the statistics are the
    # import's): measured in the steady state, not during that catch-up.
    with _superuser(data_dir) as conn:
        conn.execute("VACUUM (ANALYZE)")
    return elapsed


def exact_top(tenant: Tenant, vector: list[float], k: int = 10) -> list[uuid.UUID]:
    """The truth: cosine top-k over the tenant's float32 vectors, in numpy."""
    scores = tenant.vectors @ np.asarray(vector, dtype=np.float32)
    top = np.argsort(-scores)[:k]
    return [tenant.ids[i] for i in top]
