"""Bulk writes bound on the server, for the learn and import write path.

Django's ``bulk_create`` binds on the client: every value is quoted into
the statement's text in Python, and a model with a vector column falls back
from ``INSERT … SELECT FROM UNNEST`` to a multi-row ``VALUES`` (a lesson's
halfvec is formatted as 384 decimals, then parsed back by the server). A
learn batch or an import batch of 500 lessons spent more time there than in
PostgreSQL. ``rows_insert`` sends one ``INSERT … SELECT * FROM unnest(…)``
with each column one array parameter, bound on the server in binary
(vectors as binary halfvec); ``rows_update`` one ``UPDATE … FROM
unnest(…)`` for per-row values. Both run in the caller's transaction, with
any pending tenant settings sent first in the same pipeline
(``config.db.prepared``), so row-level security sees the same tenant.

``TRIBUTARY_PREPARED_STATEMENTS=false`` (a pooler without prepared
statements) sends the same SQL unnamed, still bound on the server, which
every pooler passes through. Being psycopg's own cursors, not Django's,
these statements are not in Django's query log nor traced as database
spans (the prepared reads of ``config.db.prepared`` are not either); the
learn spans around them are.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connection, models
from pgvector import HalfVector

from config.db.prepared import run_bound, run_bound_all

_PLAIN = frozenset(
    {
        "AutoField", "BigAutoField", "BigIntegerField", "BooleanField", "CharField",
        "DateTimeField", "FloatField", "IntegerField", "PositiveIntegerField",
        "PositiveSmallIntegerField", "SmallIntegerField", "TextField", "UUIDField",
    }
)  # fmt: skip


def _plain(value: Any) -> Any:
    # A choice (TextChoices, IntegerChoices) is stored as its value.
    return value.value if isinstance(value, enum.Enum) else value


def _halfvec(value: Any) -> Any:
    if value is None or isinstance(value, HalfVector):
        return value
    return HalfVector(value)


def _converter(field: models.Field[Any, Any]) -> Callable[[Any], Any]:
    """What a model value becomes as an array element of its column."""
    target = field.target_field if field.is_relation else field  # type: ignore[attr-defined]
    if field.db_type(connection).startswith("halfvec"):  # type: ignore[union-attr]
        return _halfvec
    if target.get_internal_type() in _PLAIN:
        return _plain

    def prepared(value: Any) -> Any:
        return field.get_db_prep_save(value, connection)

    return prepared


def _array(
    field: models.Field[Any, Any], convert: Callable[[Any], Any], values: list[Any]
) -> list[Any]:
    """A column's values as its array parameter. One whose values are of
    more than one type (an int among a float column's, a str among UUIDs)
    passes through the field's own conversion, as Django would: psycopg
    refuses an array of mixed types."""
    column = [convert(value) for value in values]
    if len({type(value) for value in column if value is not None}) < 2:
        return column
    target = field.target_field if field.is_relation else field  # type: ignore[attr-defined]
    return [_plain(target.get_prep_value(value)) for value in column]


def _column_type(field: models.Field[Any, Any]) -> str:
    # varchar(16)[] → varchar[]: the column's own type checks the length.
    return str(field.db_type(connection)).split("(")[0]


@dataclass(frozen=True)
class _Insert:
    sql: str
    fields: list[models.Field[Any, Any]]
    converters: list[Callable[[Any], Any]]
    auto_pk: bool


@cache
def _insert(model: type[models.Model]) -> _Insert:
    """A model's insert statement and column converters, made once."""
    meta = model._meta
    auto_pk = isinstance(meta.pk, models.AutoField | models.BigAutoField | models.SmallAutoField)
    fields = [
        f for f in meta.local_concrete_fields
        if not (auto_pk and f is meta.pk) and not getattr(f, "generated", False)
    ]  # fmt: skip
    # Names and types from the model's own metadata, never from input.
    quote = connection.ops.quote_name
    names = ", ".join(quote(f.column) for f in fields)
    arrays = ", ".join(f"%b::{_column_type(f)}[]" for f in fields)
    sql = f"INSERT INTO {quote(meta.db_table)} ({names}) SELECT * FROM unnest({arrays})"  # noqa: S608
    if auto_pk:
        sql += f" RETURNING {quote(meta.pk.column)}"  # type: ignore[union-attr]
    return _Insert(sql, fields, [_converter(f) for f in fields], auto_pk)


def rows_insert(*groups: Sequence[models.Model]) -> None:
    """Insert each group's objects (one model a group) as ``bulk_create``
    would — defaults and ``auto_now_add`` applied, an auto primary key read
    back into each — one statement a group, all of them sent in one round
    trip, in order (a later group may refer to an earlier one's rows).

    An auto primary key is always the database's: one an object carries
    from an attempt that was rolled back (an apply retried after a
    serialization failure writes the same objects again) is replaced."""
    groups = tuple(group for group in groups if group)
    if not groups:
        return
    inserts = [_insert(type(objs[0])) for objs in groups]
    statements = [
        (
            insert.sql,
            [
                _array(field, convert, [field.pre_save(obj, True) for obj in objs])
                for field, convert in zip(insert.fields, insert.converters, strict=True)
            ],
        )
        for insert, objs in zip(inserts, groups, strict=True)
    ]
    for insert, objs, rows in zip(inserts, groups, run_bound_all(statements), strict=True):
        if insert.auto_pk:
            for obj, (pk,) in zip(objs, rows, strict=True):
                obj.pk = pk
        for obj in objs:
            obj._state.adding = False
            obj._state.db = connection.alias


def rows_update(
    model: type[models.Model], key: str, fields: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """``UPDATE … SET field = value, … WHERE key = …`` for each row (``key``'s
    value first, then ``fields``' in order), in one statement. A value may
    be an SQL expression only by way of the column's own type."""
    if not rows:
        return
    meta = model._meta
    by_name = {name: f for f in meta.concrete_fields for name in (f.name, f.attname)}
    chosen = [by_name[key], *(by_name[name] for name in fields)]
    columns = [_array(f, _converter(f), [row[i] for row in rows]) for i, f in enumerate(chosen)]
    quote = connection.ops.quote_name
    names = [f"c{i}" for i in range(len(chosen))]
    sets = ", ".join(
        f"{quote(f.column)} = u.{name}" for f, name in zip(chosen[1:], names[1:], strict=True)
    )
    arrays = ", ".join(f"%b::{_column_type(f)}[]" for f in chosen)
    source = f"unnest({arrays}) AS u({', '.join(names)})"
    # Names and types from the model's own metadata, never from input.
    sql = f"UPDATE {quote(meta.db_table)} AS t SET {sets} FROM {source} WHERE t.{quote(chosen[0].column)} = u.c0"  # noqa: S608, E501
    run_bound(sql, columns)
