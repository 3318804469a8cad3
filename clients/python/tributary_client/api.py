"""The REST API as request specifications, without I/O.

Each function here builds the :class:`Call` for one endpoint: method, path,
query, JSON body, how to parse the answer and whether it is safe to repeat.
:class:`~tributary_client.Tributary` and
:class:`~tributary_client.AsyncTributary` expose every function as a method
of the same name and signature, and differ only in how they send the call.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeAlias, TypeVar
from urllib.parse import quote

from tributary_client.models import (
    Belief,
    CorroborationPolicyChange,
    CurationState,
    Decision,
    Dispute,
    InvalidationReport,
    KindPolicy,
    LearnResult,
    Lesson,
    Lineage,
    Observation,
    Page,
    Readiness,
    RecallResult,
    Stats,
    WhoAmI,
    build,
)

T = TypeVar("T")

API = "/api/v1"
PARENT_TYPES = ("observation", "belief", "lesson")

Id: TypeAlias = str | uuid.UUID
Parent: TypeAlias = tuple[str, Id] | Mapping[str, Any] | Lesson | Belief | Observation
"""What a ``derived_from`` entry may be: ``("observation", id)``,
``{"type": "belief", "id": id}``, or a :class:`Lesson`, :class:`Belief` or
:class:`Observation` the client returned."""


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""Leaves a policy field out (the service then applies its default), where
``None`` would mean "no limit"."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """One HTTP request and how to read its answer.

    ``idempotent`` says whether repeating the request after an unanswered
    attempt (a timeout, a dropped connection) is safe: GETs, PUTs, recall,
    and a learn with an idempotency key. ``min_timeout`` raises the client's
    timeout for this call (a learn that waits). ``accept`` lists error
    statuses that are answers here, not failures (``/readyz``'s 503).
    """

    method: str
    path: str
    parse: Callable[[Any], T]
    params: Mapping[str, str] | None = None
    json: Any = None
    idempotent: bool = False
    min_timeout: float | None = None
    accept: frozenset[int] = frozenset()
    retry: bool = True


def _segment(value: Id) -> str:
    return quote(str(value), safe="")


def _parent(parent: Parent) -> dict[str, str]:
    if isinstance(parent, Lesson):
        return {"type": "lesson", "id": parent.id}
    if isinstance(parent, Belief | Observation):
        return {"type": parent.type, "id": parent.id}
    if isinstance(parent, Mapping):
        kind, ident = parent.get("type"), parent.get("id")
    elif isinstance(parent, tuple) and len(parent) == 2:
        kind, ident = parent
    else:
        raise TypeError(f"derived_from: expected (type, id), a mapping or a node, got {parent!r}")
    if kind not in PARENT_TYPES:
        raise ValueError(f"derived_from: type must be one of {', '.join(PARENT_TYPES)}: {kind!r}")
    if not isinstance(ident, str | uuid.UUID):
        raise TypeError(f"derived_from: id must be a string or UUID, got {ident!r}")
    return {"type": str(kind), "id": str(ident)}


def parents(derived_from: Iterable[Parent]) -> list[dict[str, str]]:
    """``derived_from`` as the service's JSON (a string is not a list of
    parents: refused)."""
    if isinstance(derived_from, str | bytes | Mapping):
        raise TypeError("derived_from must be a list of parents")
    return [_parent(p) for p in derived_from]


def _lesson_id(value: Id | Lesson) -> str:
    return value.id if isinstance(value, Lesson) else str(value)


def _instant(value: datetime | str) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("as_of must be timezone-aware (e.g. datetime.now(UTC))")
        return value.isoformat()
    return value


def _fields(**fields: Any) -> dict[str, Any]:
    """The body without the fields left out (``None``, or ``UNSET``)."""
    return {k: v for k, v in fields.items() if v is not None and v is not UNSET}


def _query(**fields: Any) -> dict[str, str]:
    return {k: str(v) for k, v in fields.items() if v is not None}


def _lessons(data: Any) -> tuple[Lesson, ...]:
    if not isinstance(data, list):
        raise ValueError("expected a list of lessons")
    return tuple(Lesson.from_json(item) for item in data)


def _page(data: Any) -> Page[Lesson]:
    return Page(results=_lessons(data.get("results")), next_page=data.get("next_page"))


def _nothing(data: Any) -> None:
    return None


# -- identity and health -----------------------------------------------------


def whoami() -> Call[WhoAmI]:
    """The tenant, agent and role of this client's key."""
    return Call("GET", f"{API}/whoami", lambda d: build(WhoAmI, d), idempotent=True)


def health() -> Call[dict[str, Any]]:
    """``GET /healthz``: the web process answers (touches nothing else)."""
    return Call("GET", "/healthz", dict, idempotent=True)


def ready() -> Call[Readiness]:
    """``GET /readyz``: whether PostgreSQL and Redis answer. Not ready is an
    answer (``ready=False``), not an exception, and is not retried."""

    def parse(data: Any) -> Readiness:
        return build(Readiness, data, ready=data.get("status") == "ok")

    return Call("GET", "/readyz", parse, idempotent=True, accept=frozenset({503}), retry=False)


# -- lessons -----------------------------------------------------------------


def learn(
    content: str,
    *,
    situation: str | None = None,
    kind: str | None = None,
    derived_from: Iterable[Parent] = (),
    confidence: float | None = None,
    idempotency_key: str | None = None,
    wait: float | None = None,
) -> Call[LearnResult]:
    """Learn a lesson (writer). The service records it at once and a worker
    judges it against what the tenant knows; ``wait`` (0–30 s) waits for
    that outcome. An empty ``derived_from`` means first-hand experience.
    With an ``idempotency_key`` the same call from the same agent answers
    the first request again, so it is retried safely on a lost answer."""
    body = _fields(
        content=content,
        situation=situation,
        kind=kind,
        derived_from=parents(derived_from),
        confidence=confidence,
        idempotency_key=idempotency_key,
    )
    return Call(
        "POST",
        f"{API}/learn",
        LearnResult.from_json,
        params=_query(wait=wait),
        json=body,
        idempotent=idempotency_key is not None,
        min_timeout=None if wait is None else float(wait) + 10.0,
    )


def learn_request(request_id: Id, *, wait: float | None = None) -> Call[LearnResult]:
    """A learn request: ``pending`` or its applied outcome; ``wait`` (0–30 s)
    waits for the outcome of one still pending, as :func:`learn` does."""
    return Call(
        "GET",
        f"{API}/learn/{_segment(request_id)}",
        LearnResult.from_json,
        params=_query(wait=wait),
        idempotent=True,
        min_timeout=None if wait is None else float(wait) + 10.0,
    )


def recall(
    query: str,
    *,
    k: int | None = None,
    kinds: Iterable[str] | None = None,
    min_independent_sources: int | None = None,
    as_of: datetime | str | None = None,
    situation_prefix: str | None = None,
    history: bool | None = None,
) -> Call[RecallResult]:
    """The lessons closest in meaning to ``query``, best first (``k`` 1–50).
    ``as_of`` recalls what the tenant knew then (time travel);
    ``situation_prefix`` only among lessons whose situation starts with it;
    ``history`` searches superseded lessons too (True), never (False), or as
    the question asks (None)."""
    body = _fields(
        query=query,
        k=k,
        kinds=None if kinds is None else list(kinds),
        min_independent_sources=min_independent_sources,
        as_of=None if as_of is None else _instant(as_of),
        situation_prefix=situation_prefix,
        history=history,
    )
    return Call("POST", f"{API}/recall", RecallResult.from_json, json=body, idempotent=True)


def lessons(
    *,
    kind: str | None = None,
    status: str | None = None,
    situation: str | None = None,
    situation_prefix: str | None = None,
    author: str | None = None,
    limit: int | None = None,
    page: int | None = None,
) -> Call[Page[Lesson]]:
    """Browse lessons by exact fields, newest first (``status`` defaults to
    ``active``; ``all`` for every status); ``situation_prefix`` keeps those
    whose situation starts with it."""
    params = _query(
        kind=kind, status=status, situation=situation, situation_prefix=situation_prefix,
        author=author, limit=limit, page=page,
    )  # fmt: skip
    return Call("GET", f"{API}/lessons", _page, params=params, idempotent=True)


def lesson(lesson_id: Id) -> Call[Lesson]:
    return Call("GET", f"{API}/lessons/{_segment(lesson_id)}", Lesson.from_json, idempotent=True)


def history(lesson_id: Id) -> Call[tuple[Lesson, ...]]:
    """The supersede chain through the lesson, oldest first."""
    path = f"{API}/lessons/{_segment(lesson_id)}/history"
    return Call("GET", path, _lessons, idempotent=True)


def lineage(lesson_id: Id) -> Call[Lineage]:
    """The lesson, the beliefs under it and the observations at the floor."""
    path = f"{API}/lessons/{_segment(lesson_id)}/lineage"
    return Call("GET", path, Lineage.from_json, idempotent=True)


def reinforce(lesson_id: Id, *, evidence: Mapping[str, str] | None = None) -> Call[Lesson]:
    """Say a lesson was useful (writer). Without evidence a usage signal;
    with ``evidence`` (``content``, optional ``source_uri`` and
    ``source_family``) an observation and a supporting belief: a new
    independent root."""
    body = _fields(evidence=None if evidence is None else dict(evidence))
    path = f"{API}/lessons/{_segment(lesson_id)}/reinforce"
    return Call("POST", path, Lesson.from_json, json=body)


def retire(lesson_id: Id, *, reason: str = "") -> Call[Lesson]:
    """Retire a lesson (curator); history and time travel keep it."""
    path = f"{API}/lessons/{_segment(lesson_id)}/retire"
    return Call("POST", path, Lesson.from_json, json={"reason": reason})


def pin(lesson_id: Id, *, reason: str) -> Call[Lesson]:
    """Pin a lesson (curator): never decayed, expired, evicted or merged away."""
    path = f"{API}/lessons/{_segment(lesson_id)}/pin"
    return Call("POST", path, Lesson.from_json, json={"reason": reason})


def unpin(lesson_id: Id, *, reason: str) -> Call[Lesson]:
    """Unpin a lesson (curator): the gardener's rules apply to it again."""
    path = f"{API}/lessons/{_segment(lesson_id)}/unpin"
    return Call("POST", path, Lesson.from_json, json={"reason": reason})


def forget(lesson_id: Id) -> Call[None]:
    """Erase a lesson's content and embedding (its author, or a curator)."""
    return Call("DELETE", f"{API}/lessons/{_segment(lesson_id)}", _nothing)


# -- provenance --------------------------------------------------------------


def observe(
    content: str,
    *,
    source_type: str | None = None,
    source_uri: str | None = None,
    source_family: str | None = None,
    reliability: float | None = None,
) -> Call[Observation]:
    """Record an observation (writer): evidence that beliefs and lessons cite.
    Copies of one original share a ``source_family`` and count once."""
    body = _fields(
        content=content,
        source_type=source_type,
        source_uri=source_uri,
        source_family=source_family,
        reliability=reliability,
    )
    return Call("POST", f"{API}/observations", Observation.from_json, json=body)


def believe(
    content: str,
    *,
    derived_from: Iterable[Parent],
    confidence: float | None = None,
    supports: Id | Lesson | None = None,
    contradicts: Id | Lesson | None = None,
) -> Call[Belief]:
    """Record a belief (writer) derived from at least one parent, optionally
    supporting or contradicting a lesson."""
    body = _fields(
        content=content,
        derived_from=parents(derived_from),
        confidence=confidence,
        supports=None if supports is None else _lesson_id(supports),
        contradicts=None if contradicts is None else _lesson_id(contradicts),
    )
    return Call("POST", f"{API}/beliefs", Belief.from_json, json=body)


def decide(action: str, *, based_on: Iterable[Id | Lesson]) -> Call[Decision]:
    """Record a decision (writer) and the lessons it was based on: it is
    flagged for review if their evidence is later invalidated."""
    body = {"action": action, "based_on": [_lesson_id(i) for i in based_on]}
    return Call("POST", f"{API}/decisions", Decision.from_json, json=body)


def decisions(*, status: str | None = None) -> Call[tuple[Decision, ...]]:
    """The tenant's decisions (``status``: ``ok``, ``needs_review`` or ``all``)."""

    def parse(data: Any) -> tuple[Decision, ...]:
        return tuple(Decision.from_json(d) for d in data["decisions"])

    return Call("GET", f"{API}/decisions", parse, params=_query(status=status), idempotent=True)


def invalidate(observation_id: Id, *, reason: str) -> Call[InvalidationReport]:
    """Invalidate an observation (curator) and repair what rested on it."""
    path = f"{API}/observations/{_segment(observation_id)}/invalidate"
    return Call("POST", path, InvalidationReport.from_json, json={"reason": reason})


# -- curation ----------------------------------------------------------------


def disputes(*, status: str | None = None) -> Call[tuple[Dispute, ...]]:
    """Disputes (curator; ``status``: ``open`` by default, ``resolved``, ``all``)."""

    def parse(data: Any) -> tuple[Dispute, ...]:
        return tuple(Dispute.from_json(d) for d in data["disputes"])

    return Call("GET", f"{API}/disputes", parse, params=_query(status=status), idempotent=True)


def resolve_dispute(dispute_id: Id, *, resolution: str, note: str = "") -> Call[Dispute]:
    """Resolve a dispute (curator): ``keep_old``, ``accept_new`` or ``keep_both``."""
    path = f"{API}/disputes/{_segment(dispute_id)}/resolve"
    return Call("POST", path, Dispute.from_json, json={"resolution": resolution, "note": note})


def stats() -> Call[Stats]:
    return Call("GET", f"{API}/stats", lambda d: build(Stats, d), idempotent=True)


def curation_state() -> Call[CurationState]:
    return Call("GET", f"{API}/curation/state", CurationState.from_json, idempotent=True)


def set_kind_policy(
    kind: str,
    *,
    ceiling: int | None = UNSET,
    ttl_seconds: int | None = UNSET,
    half_life_days: float | None = UNSET,
    retire_below: float = UNSET,
    eviction: str = UNSET,
    merge_duplicates: bool = UNSET,
    pinned: bool = UNSET,
    reason: str = "",
) -> Call[KindPolicy]:
    """Set how a kind is forgotten (curator). Fields left out take the
    default; ``None`` means no limit (no ceiling, no TTL, no decay)."""
    body = {
        name: value
        for name, value in {
            "ceiling": ceiling,
            "ttl_seconds": ttl_seconds,
            "half_life_days": half_life_days,
            "retire_below": retire_below,
            "eviction": eviction,
            "merge_duplicates": merge_duplicates,
            "pinned": pinned,
            "reason": reason,
        }.items()
        if value is not UNSET
    }

    def parse(data: Any) -> KindPolicy:
        return build(KindPolicy, {"kind": kind, **data})

    path = f"{API}/curation/policies/{_segment(kind)}"
    return Call("PUT", path, parse, json=body, idempotent=True)


def set_corroboration_policy(
    *,
    min_independent_sources: int | None = None,
    min_confidence: float | None = None,
    contradiction_confidence: float | None = None,
    strict: bool | None = None,
    reason: str = "",
) -> Call[CorroborationPolicyChange]:
    """Set the tenant's corroboration policy (curator); every lesson is
    re-evaluated. Fields left out take the settings' default."""
    body = _fields(
        min_independent_sources=min_independent_sources,
        min_confidence=min_confidence,
        contradiction_confidence=contradiction_confidence,
        strict=strict,
        reason=reason,
    )
    path = f"{API}/curation/corroboration-policy"
    return Call(
        "PUT", path, lambda d: build(CorroborationPolicyChange, d), json=body, idempotent=True
    )
