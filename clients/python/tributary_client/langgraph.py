"""A LangGraph store on Tributary: ``TributaryStore`` implements
``langgraph.store.base.BaseStore``, so a graph compiled with
``store=TributaryStore(client)`` keeps its memories in the tenant's shared,
provenance-aware memory. Needs the ``langgraph`` extra.

How items map onto lessons (no server change needed):

* An item ``(namespace, key)`` is the newest *active* lesson whose
  ``situation`` is exactly its **label**, ``store:<ns1>/<ns2>/…#<key>``. In
  the labels ``%``, ``/``, ``#``, a backtick, whitespace and control
  characters are percent-encoded (``("a b", "c/d")`` → ``store:a%20b/c%2Fd``),
  so every (namespace, key) has one label and every label one item.
* The lesson's ``content`` is the value's ``"content"`` string followed by a
  last line naming the item, with the value's other fields as compact JSON::

      The user prefers tea.

      [tributary-store `users/u1#prefs`] {"source":"chat"}

  A value without a usable ``"content"`` string (absent, not a string, empty,
  or with surrounding whitespace the service would trim) is stored whole as
  compact JSON, and its last line says so: ``[tributary-store `users/u1#prefs`
  value]``. Decoding is exact (``get`` returns the value ``put`` stored); a
  lesson at a label without that last line (written by hand) reads as
  ``{"content": <its content>}``. The item's name is in the content because
  the judge that classifies new lessons reads the content: without it, the
  same words under two keys ("The user prefers tea." for two users) would be
  judged one restated lesson, and a new value under one key could supersede
  another key's.
* ``put`` learns the lesson (``wait``, then polls, so the lesson id is
  known), then forgets this agent's other *active* lessons at the label (the
  superseded ones stay in the history). ``delete`` (``put`` of ``None``)
  forgets every lesson this agent wrote at the label: another agent's lesson
  there is theirs to forget, and ``get`` still answers it.
* ``get`` = ``GET /lessons?situation=<label>`` (newest active, any author).
  ``search`` with a ``query`` = ``recall`` (the 50 best, kept when their label
  is under the prefix); without one, a browse of the active lessons, newest
  first. ``list_namespaces`` reads the labels of the active lessons. Browses
  read at most ``scan_limit`` lessons (the API has no label-prefix filter).
* **Provenance.** The store remembers the lessons it served (``get`` and
  ``search``) since its last ``put``, and that ``put`` cites them in
  ``derived_from`` (type ``lesson``): a memory written after reading others
  says so, and their support counts under it. Earlier lessons of the same
  item are not cited (a new value is not evidence for itself). Inside a
  graph run with a ``thread_id`` the reads are remembered per thread, so
  one conversation's reads are not cited by another's writes;
  :meth:`TributaryStore.forget_reads` drops them.
* The service judges every write: a value it judges a restatement of this
  agent's older value of the same item replaces it (the old lesson is
  forgotten and the value learned again); a value it quarantines (the
  injection screen), holds for a curator (it contradicts another agent's
  lesson: ``disputed``), folds into another item, or has not applied by
  ``put_timeout`` raises :class:`StoreWriteError`.
* ``index`` and ``ttl`` are not supported (the service embeds every lesson,
  and forgets by its own kind policies; choose the store's ``kind``).

Every value read back is data another agent may have written: never
evaluate or execute it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote, unquote

from langgraph.config import get_config
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from tributary_client import api
from tributary_client.api import Call
from tributary_client.client import AsyncTributary, Tributary
from tributary_client.errors import NotFound, TributaryError
from tributary_client.models import LearnResult, Lesson, Page, RecallResult

T = TypeVar("T")
log = logging.getLogger(__name__)

LABEL_PREFIX = "store:"
TRAILER = "\n\n[tributary-store `"
RECALL_K = 50
PAGE_SIZE = 200
WRITE_ATTEMPTS = 3
POLL_SECONDS = 0.2
_RESERVED = frozenset("%/#`")


@dataclass(frozen=True)
class _Sleep:
    seconds: float


Step = Call[Any] | _Sleep
Program = Generator[Step, Any, T]
"""A store operation as a sequence of requests (and pauses): the sync and
async stores run the same programs, sending each step their own way."""


class StoreWriteError(Exception):
    """A ``put`` whose value did not become the item's current value: the
    service quarantined it, holds it for a curator (``disputed``), judged it
    a restatement of another item, or had not applied it in time. ``result``
    is the learn request (``None`` when nothing was learned)."""

    def __init__(self, label: str, message: str, result: LearnResult | None = None) -> None:
        super().__init__(f"{label}: {message}")
        self.label = label
        self.result = result
        self.outcome = result.outcome if result else None


# -- labels and values -------------------------------------------------------


def _escape(text: str) -> str:
    return "".join(
        quote(c, safe="") if c in _RESERVED or c.isspace() or not c.isprintable() else c
        for c in text
    )


def item_label(namespace: Sequence[str], key: str) -> str:
    """The ``situation`` of the lessons that hold the item."""
    if not namespace:
        raise ValueError("an item's namespace cannot be empty")
    return f"{LABEL_PREFIX}{'/'.join(_escape(n) for n in namespace)}#{_escape(key)}"


def label_prefix(namespace_prefix: Sequence[str]) -> str:
    """What the labels of every item under ``namespace_prefix`` start with
    (so may a sibling namespace's: ``users`` and ``users2``)."""
    return LABEL_PREFIX + "/".join(_escape(n) for n in namespace_prefix)


def parse_label(situation: str) -> tuple[tuple[str, ...], str] | None:
    """``(namespace, key)`` of a store label, or ``None`` for any other
    situation (or a label not in canonical form)."""
    if not situation.startswith(LABEL_PREFIX) or situation.count("#") != 1:
        return None
    path, key = situation[len(LABEL_PREFIX) :].split("#")
    namespace = tuple(unquote(part) for part in path.split("/"))
    if not all(namespace):
        return None
    key = unquote(key)
    return (namespace, key) if item_label(namespace, key) == situation else None


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def encode_value(namespace: Sequence[str], key: str, value: Mapping[str, Any]) -> str:
    """The lesson content that stores ``value`` (see the module's docstring)."""
    ref = item_label(namespace, key)[len(LABEL_PREFIX) :]
    text = value.get("content")
    if isinstance(text, str) and text and text == text.strip():
        rest = {k: v for k, v in value.items() if k != "content"}
        return f"{text}{TRAILER}{ref}`]" + (f" {_compact(rest)}" if rest else "")
    return f"{_compact(dict(value))}{TRAILER}{ref}` value]"


def decode_value(content: str) -> dict[str, Any]:
    """The value a lesson's content stores (the inverse of :func:`encode_value`)."""
    text, found, trailer = content.rpartition(TRAILER)
    if not found or "`" not in trailer:
        return {"content": content}
    _ref, _, tail = trailer.partition("`")
    try:
        if tail == " value]":
            whole = json.loads(text)
            if isinstance(whole, dict):
                return whole
        elif tail == "]":
            return {"content": text}
        elif tail.startswith("] "):
            rest = json.loads(tail[2:])
            if isinstance(rest, dict):
                return {"content": text, **{k: v for k, v in rest.items() if k != "content"}}
    except json.JSONDecodeError:
        pass
    return {"content": content}


def _matches(value: Any, condition: Any) -> bool:
    """A search ``filter``: exact values (nested objects compared field by
    field) or ``$eq``/``$ne``/``$gt``/``$gte``/``$lt``/``$lte``."""
    if isinstance(condition, Mapping):
        if any(str(k).startswith("$") for k in condition):
            return all(_compare(value, op, operand) for op, operand in condition.items())
        return isinstance(value, Mapping) and all(
            _matches(value.get(k), v) for k, v in condition.items()
        )
    return bool(value == condition)


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if value is None:
        return False
    try:
        if op == "$gt":
            return bool(value > operand)
        if op == "$gte":
            return bool(value >= operand)
        if op == "$lt":
            return bool(value < operand)
        if op == "$lte":
            return bool(value <= operand)
    except TypeError:
        return False
    raise ValueError(f"unsupported filter operator {op!r}")


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


# -- the store ---------------------------------------------------------------


class TributaryStore(BaseStore):
    """A LangGraph ``BaseStore`` over a Tributary tenant's lessons, as the
    agent of the client's key (see the module's docstring for the mapping).

    ``client`` defaults to ``Tributary()`` (``$TRIBUTARY_URL`` and
    ``$TRIBUTARY_API_KEY``). ``abatch`` uses ``async_client`` when given,
    else runs ``batch`` in a thread. ``kind`` is the kind of lesson items
    are (its policy decides how they are forgotten), ``confidence`` their
    confidence, ``wait`` how long ``learn`` waits for the worker (≤ 30 s),
    ``put_timeout`` how long a put waits in all before
    :class:`StoreWriteError`. ``cite_reads=False`` turns the provenance
    capture off. ``scan_limit`` bounds the lessons a browse reads.
    """

    def __init__(
        self,
        client: Tributary | None = None,
        *,
        async_client: AsyncTributary | None = None,
        kind: str = "fact",
        confidence: float = 0.7,
        wait: float = 10.0,
        put_timeout: float = 30.0,
        cite_reads: bool = True,
        scan_limit: int = 2000,
    ) -> None:
        self.client = client if client is not None else Tributary()
        self.async_client = async_client
        self.kind = kind
        self.confidence = confidence
        self.wait = min(max(wait, 0.0), 30.0)
        self.put_timeout = put_timeout
        self.cite_reads = cite_reads
        self.scan_limit = scan_limit
        self._agent: str | None = None
        # Per LangGraph thread (None outside one): lesson id -> label, in reading order.
        self._reads: dict[str | None, dict[str, str]] = {}
        self._lock = threading.Lock()

    # BaseStore ---------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(self._op(op)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self.async_client is None:
            return await asyncio.to_thread(self.batch, list(ops))
        return [await self._arun(self._op(op)) for op in ops]

    @property
    def reads(self) -> tuple[str, ...]:
        """Ids of the lessons served since the last put, in this LangGraph
        thread (or outside any): what the next put will cite."""
        with self._lock:
            return tuple(self._reads.get(_read_scope(), {}))

    def forget_reads(self) -> None:
        """Cite nothing read so far (in this thread) in the next put."""
        with self._lock:
            self._reads.pop(_read_scope(), None)

    # Running programs ----------------------------------------------------------

    def _run(self, program: Program[T]) -> T:
        try:
            step = next(program)
            while True:
                try:
                    if isinstance(step, _Sleep):
                        time.sleep(step.seconds)
                        answer = None
                    else:
                        answer = self.client.send(step)
                except TributaryError as exc:
                    step = program.throw(exc)
                else:
                    step = program.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def _arun(self, program: Program[T]) -> T:
        assert self.async_client is not None
        try:
            step = next(program)
            while True:
                try:
                    if isinstance(step, _Sleep):
                        await asyncio.sleep(step.seconds)
                        answer = None
                    else:
                        answer = await self.async_client.send(step)
                except TributaryError as exc:
                    step = program.throw(exc)
                else:
                    step = program.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    # Programs ------------------------------------------------------------------

    def _op(self, op: Op) -> Program[Result]:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"unknown store operation {op!r}")

    def _get(self, op: GetOp) -> Program[Result]:
        label = item_label(op.namespace, op.key)
        page: Page[Lesson] = yield api.lessons(situation=label, limit=1)
        if not page.results:
            return None
        lesson = page.results[0]
        self._served([lesson])
        return self._item(lesson, tuple(op.namespace), op.key)

    def _put(self, op: PutOp) -> Program[Result]:
        namespace, key = tuple(op.namespace), op.key
        label = item_label(namespace, key)
        if op.value is None:
            yield from self._forget_mine(label, keep=None, status="all")
            return None
        content = encode_value(namespace, key, op.value)
        cited = self._citations(label)
        me = yield from self._me()
        result: LearnResult | None = None
        for _ in range(WRITE_ATTEMPTS):
            result = yield from self._learn(label, content, cited)
            lesson = result.lesson
            if lesson is None or result.outcome not in ("inserted", "superseded", "reinforced"):
                raise StoreWriteError(label, _refusal(result), result)
            if lesson.situation != label:
                raise StoreWriteError(
                    label,
                    f"the service judged the value a restatement of lesson {lesson.id} "
                    f"({lesson.situation!r}); nothing was stored under this item",
                    result,
                )
            if lesson.content == content:
                break
            if lesson.author != me:  # another agent's value of this item, judged the same
                raise StoreWriteError(
                    label,
                    f"the service judged the value a restatement of {lesson.author}'s "
                    f"lesson {lesson.id} for this item, which only its author can replace",
                    result,
                )
            # Our older value, judged the same claim: replace it.
            yield from self._forget(lesson.id)
        else:
            raise StoreWriteError(label, "the value kept being judged a restatement", result)
        if result.outcome == "superseded" and result.target_lesson_id:
            log.info("put %s superseded lesson %s", label, result.target_lesson_id)
        yield from self._forget_mine(label, keep=lesson.id, status="active")
        self._cited(cited, label)
        return None

    def _search(self, op: SearchOp) -> Program[Result]:
        prefix = tuple(op.namespace_prefix)
        found: list[tuple[Lesson, tuple[str, ...], str, float | None]] = []
        candidates: list[tuple[Lesson, float | None]]
        if op.query:
            # The service narrows by the namespace prefix's label; the exact
            # namespace check below drops a sibling sharing its first letters.
            recalled: RecallResult = yield api.recall(
                op.query, k=RECALL_K, situation_prefix=label_prefix(prefix)
            )
            candidates = [(hit.lesson, float(hit.score)) for hit in recalled]
        else:
            scanned = yield from self._scan(label_prefix(prefix))
            candidates = [(lesson, None) for lesson in scanned]
        seen: set[tuple[tuple[str, ...], str]] = set()
        for lesson, score in candidates:
            parsed = parse_label(lesson.situation)
            if parsed is None or parsed in seen or parsed[0][: len(prefix)] != prefix:
                continue
            seen.add(parsed)
            found.append((lesson, *parsed, score))
        if op.filter:
            found = [f for f in found if _matches(decode_value(f[0].content), op.filter)]
        window = found[op.offset : op.offset + op.limit]
        self._served([lesson for lesson, *_ in window])
        return [
            SearchItem(
                namespace=namespace,
                key=key,
                value=decode_value(lesson.content),
                created_at=lesson.created_at,
                updated_at=_updated(lesson),
                score=score,
            )
            for lesson, namespace, key, score in window
        ]

    def _list_namespaces(self, op: ListNamespacesOp) -> Program[Result]:
        scanned = yield from self._scan()
        namespaces = {parsed[0] for lesson in scanned if (parsed := parse_label(lesson.situation))}
        if op.match_conditions:
            namespaces = {
                ns
                for ns in namespaces
                if all(_namespace_matches(c, ns) for c in op.match_conditions)
            }
        if op.max_depth is not None:
            namespaces = {ns[: op.max_depth] for ns in namespaces}
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    # Steps ---------------------------------------------------------------------

    def _me(self) -> Program[str]:
        if self._agent is None:
            me = yield api.whoami()
            self._agent = me.agent
        return self._agent

    def _learn(self, label: str, content: str, cited: list[str]) -> Program[LearnResult]:
        deadline = time.monotonic() + self.put_timeout
        result: LearnResult = yield api.learn(
            content,
            situation=label,
            kind=self.kind,
            confidence=self.confidence,
            derived_from=[("lesson", lesson_id) for lesson_id in cited],
            idempotency_key=f"store-{uuid.uuid4()}",
            wait=self.wait,
        )
        while result.pending:
            if time.monotonic() >= deadline:
                raise StoreWriteError(
                    label,
                    f"learn request {result.id} still pending after {self.put_timeout:g} s "
                    "(is a worker running?)",
                    result,
                )
            yield _Sleep(POLL_SECONDS)
            result = yield api.learn_request(result.id)
        return result

    def _forget(self, lesson_id: str) -> Program[None]:
        with contextlib.suppress(NotFound):  # already gone: what we wanted
            yield api.forget(lesson_id)

    def _forget_mine(self, label: str, *, keep: str | None, status: str) -> Program[None]:
        """Forget this agent's lessons at ``label`` (but ``keep``). Forgotten
        lessons leave the listing, so the first page is read until it holds
        nothing left to forget."""
        me = yield from self._me()
        while True:
            page: Page[Lesson] = yield api.lessons(
                situation=label, author=me, status=status, limit=PAGE_SIZE
            )
            doomed = [lesson.id for lesson in page if lesson.id != keep]
            if not doomed:
                return
            for lesson_id in doomed:
                yield from self._forget(lesson_id)

    def _scan(self, situation_prefix: str = LABEL_PREFIX) -> Program[list[Lesson]]:
        """Active lessons with a store label (starting with
        ``situation_prefix``), newest first, reading at most ``scan_limit``
        lessons."""
        found: list[Lesson] = []
        page_number: int | None = 1
        read = 0
        while page_number is not None and read < self.scan_limit:
            page: Page[Lesson] = yield api.lessons(
                situation_prefix=situation_prefix,
                limit=min(PAGE_SIZE, self.scan_limit - read),
                page=page_number,
            )
            read += len(page)
            found += [lesson for lesson in page if lesson.situation.startswith(LABEL_PREFIX)]
            page_number = page.next_page
        return found

    # Provenance ----------------------------------------------------------------

    def _served(self, lessons: Iterable[Lesson]) -> None:
        if not self.cite_reads:
            return
        scope = _read_scope()
        with self._lock:
            reads = self._reads.setdefault(scope, {})
            for lesson in lessons:
                reads[lesson.id] = lesson.situation

    def _citations(self, label: str) -> list[str]:
        with self._lock:
            reads = self._reads.get(_read_scope(), {})
            return [lesson_id for lesson_id, read in reads.items() if read != label]

    def _cited(self, cited: list[str], label: str) -> None:
        with self._lock:
            reads = self._reads.get(_read_scope(), {})
            for lesson_id in [i for i, read in reads.items() if i in cited or read == label]:
                del reads[lesson_id]

    def _item(self, lesson: Lesson, namespace: tuple[str, ...], key: str) -> Item:
        return Item(
            value=decode_value(lesson.content),
            key=key,
            namespace=namespace,
            created_at=lesson.created_at,
            updated_at=_updated(lesson),
        )


def _read_scope() -> str | None:
    """The LangGraph thread the store is being used in (``thread_id`` of the
    run's config), so that one conversation's reads are not cited by
    another's writes; ``None`` outside a run or without a thread id."""
    try:
        config = get_config()
    except RuntimeError:
        return None
    thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def _updated(lesson: Lesson) -> datetime:
    return lesson.activated_at or lesson.created_at


def _refusal(result: LearnResult) -> str:
    if result.outcome == "quarantined":
        return f"the injection screen quarantined the value ({result.rationale})"
    if result.outcome == "disputed":
        return (
            f"the value contradicts another agent's lesson {result.target_lesson_id}; "
            "a curator decides (the dispute is open)"
        )
    if result.status == "failed":
        return f"the learn request failed: {result.error}"
    return f"the learn request ended {result.status}/{result.outcome} without a lesson"
