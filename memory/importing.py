"""What ``manage.py import_lessons`` reads: records of three formats, each
checked like a learn through the API (the same limits, kinds and vector
shape), into ``ImportRecord``s — or ``Rejected`` with a line number and a
stable code. Nothing here touches the database.

Formats (``--format``):

- ``tributary`` (JSON Lines): ``content`` (required), ``situation``,
  ``kind``, ``author`` (an agent name in the tenant), ``confidence``,
  ``vector`` (384 numbers; embedded at import when absent), ``created_at``
  (ISO 8601), ``id`` (the record's own id: what makes a re-import skip it).
  Any other field is rejected, as the API rejects unknown fields.
- ``mem0``: a mem0 export — ``client.get_all()``'s ``{"results": [...]}``
  or a list, as one JSON document, or one memory per line. ``memory`` is the
  content, ``id`` the record's id, ``created_at`` kept; ``user_id`` /
  ``agent_id`` name the author; ``metadata.situation`` (or the categories)
  the situation. A mem0 embedding is never taken (another model's space,
  often another size): the import embeds the memory with ours.
- ``langgraph``: a LangGraph store dump — items as ``store.search()`` gives
  them (``namespace``, ``key``, ``value``, ``created_at``), one per line or
  a JSON list. The content is ``value["content"]`` (or ``text``, ``memory``,
  ``data``; else the whole value as JSON); the situation is
  ``store:<namespace joined by />/``, what the LangGraph adapter writes, so
  ``situation_prefix`` recall filters work on imported items too.

A record's key is its format and its ``id`` (without one, the SHA-256 of its
kind, content and situation): importing the same file twice imports nothing
the second time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from memory.inputs import CONTENT_MAX, SITUATION_MAX
from memory.models import EMBEDDING_DIMENSIONS, Kind

FORMATS = ("tributary", "mem0", "langgraph")
HALF_MAX = 65504.0  # the largest half-precision float
KEY_PREFIX = "import:"
_KINDS = frozenset(Kind.values)
_FIELDS = {"id", "content", "situation", "kind", "author", "confidence", "vector", "created_at"}


@dataclass(frozen=True)
class ImportRecord:
    key: str  # the learn request's idempotency key (a converter's: the id within its source)
    content: str
    situation: str
    kind: str
    author: str  # agent name; "" → the import's default author
    confidence: float
    vector: list[float] | None
    created_at: datetime | None
    line: int


@dataclass(frozen=True)
class Rejected:
    line: int
    code: str
    message: str


class _Bad(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def read_records(path: Path, fmt: str = "tributary") -> Iterator[ImportRecord | Rejected]:
    """Every record of the file, in order, each checked. A JSON document (a
    list, or an object holding one under ``results``, ``memories`` or
    ``items``) is read whole; anything else line by line (blank lines
    skipped), so a file of millions of lines streams."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    convert = {"tributary": _tributary, "mem0": _mem0, "langgraph": _langgraph}[fmt]
    for line, raw in _raw_records(path):
        if isinstance(raw, Rejected):
            yield raw
            continue
        try:
            if not isinstance(raw, dict):
                raise _Bad("not_an_object", "a record is a JSON object")
            record = convert(raw, line)
            # Ids are the source system's: the same id in another format is
            # another record.
            yield replace(record, key=f"{KEY_PREFIX}{fmt}:{record.key}")
        except _Bad as exc:
            yield Rejected(line, exc.code, str(exc))


def _raw_records(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open("rb") as stream:
        head = stream.read(1 << 16).lstrip()
        stream.seek(0)
        if head[:1] == b"[" or (head[:1] == b"{" and _one_document(path)):
            document = _document(path)
            if isinstance(document, Rejected):
                yield document.line, document
                return
            yield from enumerate(document, start=1)
            return
        for number, data in enumerate(stream, start=1):
            if not data.strip():
                continue
            try:
                raw = orjson.loads(data)
            except orjson.JSONDecodeError:
                raw = None  # read below
            else:
                if not _past_64_bits(raw):
                    yield number, raw
                    continue
            # What orjson refuses and the standard library reads (NaN, a lone
            # surrogate), or reads otherwise (an integer past 64 bits, made a
            # float), is read as before: the record says the same and gets
            # the same check and code.
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                yield number, Rejected(number, "invalid_utf8", "the line is not valid UTF-8")
                continue
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
                yield number, Rejected(number, "invalid_json", f"not JSON: {_why(exc)}")
                continue
            yield number, parsed


_FLOAT_OF_A_HUGE_INT = float(2**63)


def _past_64_bits(raw: Any) -> bool:
    """Whether orjson read an integer past 64 bits in ``raw`` (it makes one a
    float: in a mem0 category or a LangGraph value, text the record keeps,
    or an id, that changes what the record says). A record's own vector is
    left out: a component that large is refused either way."""
    stack = [v for k, v in raw.items() if k != "vector"] if isinstance(raw, dict) else [raw]
    while stack:
        value = stack.pop()
        if isinstance(value, float):
            if abs(value) >= _FLOAT_OF_A_HUGE_INT:
                return True
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _why(exc: ValueError | RecursionError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)  # an integer of more digits than Python converts


def _one_document(path: Path) -> bool:
    """Whether a file starting with ``{`` is one JSON document (a mem0
    export) rather than JSON Lines: its first line alone does not parse, or
    it is the whole file and holds a list of records."""
    with path.open("rb") as stream:
        first = stream.readline()
        while first and not first.strip():
            first = stream.readline()
        rest = stream.read(1 << 16).strip()
    try:
        parsed = json.loads(first)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return True
    return not rest and isinstance(parsed, dict) and _listed(parsed)


def _listed(document: dict[str, Any]) -> bool:
    return any(isinstance(document.get(k), list) for k in ("results", "memories", "items"))


def _document(path: Path) -> list[Any] | Rejected:
    try:
        document = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        return Rejected(1, "invalid_utf8", "the file is not valid UTF-8")
    except json.JSONDecodeError as exc:
        return Rejected(exc.lineno, "invalid_json", f"not JSON: {exc.msg}")
    except (ValueError, RecursionError) as exc:
        return Rejected(1, "invalid_json", f"not JSON: {_why(exc)}")
    if isinstance(document, dict):
        for name in ("results", "memories", "items"):
            if isinstance(document.get(name), list):
                return list(document[name])
        return Rejected(1, "not_a_list", "a JSON document holds a list of records")
    if not isinstance(document, list):
        return Rejected(1, "not_a_list", "a JSON document holds a list of records")
    return document


# --- one record ---------------------------------------------------------------


def _tributary(raw: dict[str, Any], line: int) -> ImportRecord:
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        raise _Bad("unknown_field", f"unknown field(s): {', '.join(unknown)}")
    return _record(
        line, own_id=raw.get("id"), content=raw.get("content"), situation=raw.get("situation"),
        kind=raw.get("kind"), author=raw.get("author"), confidence=raw.get("confidence"),
        vector=raw.get("vector"), created_at=raw.get("created_at"),
    )  # fmt: skip


def _mem0(raw: dict[str, Any], line: int) -> ImportRecord:
    metadata: dict[str, Any] = raw["metadata"] if isinstance(raw.get("metadata"), dict) else {}
    situation = metadata.get("situation")
    categories = raw.get("categories")
    if situation is None and isinstance(categories, list) and categories:
        situation = "categories: " + ", ".join(str(c) for c in categories)
    author = raw.get("agent_id") or raw.get("user_id") or metadata.get("author")
    return _record(
        line, own_id=raw.get("id"), content=raw.get("memory", raw.get("content")),
        situation=situation, kind=metadata.get("kind"), author=author,
        confidence=metadata.get("confidence"), vector=None, created_at=raw.get("created_at"),
    )  # fmt: skip


def _langgraph(raw: dict[str, Any], line: int) -> ImportRecord:
    namespace = raw.get("namespace")
    if not isinstance(namespace, list) or not all(isinstance(n, str) for n in namespace):
        raise _Bad("invalid_namespace", "namespace is a list of strings")
    key = raw.get("key")
    if not isinstance(key, str) or not key:
        raise _Bad("invalid_key", "key is a non-empty string")
    value = raw.get("value")
    if not isinstance(value, dict):
        raise _Bad("invalid_value", "value is a JSON object")
    content = next(
        (value[k] for k in ("content", "text", "memory", "data") if isinstance(value.get(k), str)),
        None,
    )
    if content is None:
        content = json.dumps(value, ensure_ascii=False, sort_keys=True)
    situation = "store:" + "/".join(namespace) + "/"
    if isinstance(value.get("situation"), str) and value["situation"]:
        situation = f"{situation} {value['situation']}"
    return _record(
        line, own_id="/".join([*namespace, key]), content=content, situation=situation,
        kind=value.get("kind"), author=value.get("author"), confidence=value.get("confidence"),
        vector=None, created_at=raw.get("created_at"),
    )  # fmt: skip


def _record(
    line: int,
    *,
    own_id: Any,
    content: Any,
    situation: Any,
    kind: Any,
    author: Any,
    confidence: Any,
    vector: Any,
    created_at: Any,
) -> ImportRecord:
    content = _text("content", content, CONTENT_MAX, required=True).strip()
    if not content:
        raise _Bad("content_blank", "content is blank")
    situation = _text("situation", situation, SITUATION_MAX)
    kind = _text("kind", kind, 16) or Kind.LESSON.value
    if kind not in _KINDS:
        raise _Bad("invalid_kind", f"kind is one of {', '.join(Kind.values)}")
    author = _text("author", author, 100).strip()
    if confidence is None:
        confidence = 0.7
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise _Bad("invalid_confidence", "confidence is a number")
    if not 0.0 <= float(confidence) <= 1.0:
        raise _Bad("invalid_confidence", "confidence is between 0 and 1")
    if own_id is not None and not isinstance(own_id, str | int):
        raise _Bad("invalid_id", "id is a string or an integer")
    own = _text("id", str(own_id), 10_000) if own_id is not None else ""
    return ImportRecord(
        key=_key(own, kind, content, situation),
        content=content,
        situation=situation,
        kind=kind,
        author=author,
        confidence=float(confidence),
        vector=_vector(vector),
        created_at=_timestamp(created_at),
        line=line,
    )


def _text(name: str, value: Any, limit: int, *, required: bool = False) -> str:
    if value is None:
        if required:
            raise _Bad(f"{name}_missing", f"{name} is required")
        return ""
    if not isinstance(value, str):
        raise _Bad(f"invalid_{name}", f"{name} is a string")
    if "\x00" in value:
        raise _Bad(f"invalid_{name}", f"{name} holds a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad(f"invalid_{name}", f"{name} is not valid Unicode") from None
    if len(value) > limit:
        raise _Bad(f"{name}_too_large", f"{name} is {len(value)} characters; the limit is {limit}")
    return value


def _key(own: str, kind: str, content: str, situation: str) -> str:
    """The record's identity within its source: its own id (hashed when
    long), else a hash of what the lesson says."""
    if own and len(own) <= 150:
        return own
    basis = own or json.dumps([kind, content, situation], ensure_ascii=False)
    return f"sha256:{hashlib.sha256(basis.encode()).hexdigest()}"


def _vector(value: Any) -> list[float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != EMBEDDING_DIMENSIONS:
        raise _Bad("invalid_vector", f"vector is a list of {EMBEDDING_DIMENSIONS} numbers")
    if not set(map(type, value)) <= {float, int}:  # bool is not a number here
        raise _Bad("invalid_vector", "vector holds numbers only")
    array = np.asarray(value, dtype=np.float64)
    # One reduction answers all three: NaN and ±inf fail the first test.
    largest = np.abs(array).max()
    if not np.isfinite(largest) or largest == 0.0:
        raise _Bad("invalid_vector", "vector is finite and not all zeros")
    if largest > HALF_MAX:  # stored as halfvec
        raise _Bad("invalid_vector", f"vector components are within ±{HALF_MAX:g}")
    return value


def _timestamp(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise _Bad("invalid_created_at", "created_at is out of range") from None
    if not isinstance(value, str):
        raise _Bad("invalid_created_at", "created_at is ISO 8601 or seconds since 1970")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _Bad("invalid_created_at", "created_at is ISO 8601 or seconds since 1970") from None
    stamp = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if stamp > datetime.now(UTC):
        raise _Bad("invalid_created_at", "created_at is in the future")
    return stamp
