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
from datetime import UTC, datetime
from functools import cache, partial
from operator import attrgetter
from typing import Any, TypeVar

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import signals
from django.db.models.base import ModelState
from django.dispatch import receiver
from django.utils import timezone
from pgvector import HalfVector

from config.db.prepared import run_bound, run_bound_all

M = TypeVar("M", bound=models.Model)

_PLAIN = frozenset(
    {
        "AutoField", "BigAutoField", "BigIntegerField", "BooleanField", "CharField",
        "DateTimeField", "FloatField", "IntegerField", "PositiveIntegerField",
        "PositiveSmallIntegerField", "SmallIntegerField", "TextField", "UUIDField",
    }
)  # fmt: skip


# What a model value becomes as an array element of its column, given the
# connection the statement goes to.
Converter = Callable[[Any, BaseDatabaseWrapper], Any]


def _plain(value: Any, db: BaseDatabaseWrapper | None = None) -> Any:
    # A choice (TextChoices, IntegerChoices) is stored as its value.
    return value.value if isinstance(value, enum.Enum) else value


def _halfvec(value: Any, db: BaseDatabaseWrapper) -> Any:
    if value is None or isinstance(value, HalfVector):
        return value
    return HalfVector(value)


def _converter(field: models.Field[Any, Any]) -> Converter:
    """What a model value becomes as an array element of its column."""
    target = field.target_field if field.is_relation else field  # type: ignore[attr-defined]
    if field.db_type(connection).startswith("halfvec"):  # type: ignore[union-attr]
        return _halfvec
    if target.get_internal_type() in _PLAIN:
        return _plain

    def prepared(value: Any, db: BaseDatabaseWrapper) -> Any:
        return field.get_db_prep_save(value, db)

    return prepared


def _array(
    field: models.Field[Any, Any], convert: Converter, values: list[Any], db: BaseDatabaseWrapper
) -> list[Any]:
    """A column's values as its array parameter. One whose values are of
    more than one type (an int among a float column's, a str among UUIDs)
    passes through the field's own conversion, as Django would: psycopg
    refuses an array of mixed types."""
    if convert is _plain:  # most columns: no value converted unless a choice is among them
        column, types = values, set(map(type, values))
        if any(issubclass(kind, enum.Enum) for kind in types):
            column = [_plain(value) for value in values]
            types = set(map(type, column))
    else:
        column = [convert(value, db) for value in values]
        types = set(map(type, column))
    types.discard(type(None))
    if len(types) < 2:
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
    converters: list[Converter]
    # Each field's value of an object: its attribute, or what its
    # ``pre_save`` makes it (a field that overrides it: ``auto_now``).
    values: list[Callable[[models.Model], Any]]
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
    converters, values = [_converter(f) for f in fields], [_value(f) for f in fields]
    return _Insert(sql, fields, converters, values, auto_pk)


def _value(field: models.Field[Any, Any]) -> Callable[[models.Model], Any]:
    if type(field).pre_save is models.Field.pre_save:
        return attrgetter(field.attname)
    return lambda obj: field.pre_save(obj, True)


@dataclass(frozen=True)
class _Blank:
    constants: dict[str, Any]  # attname → a default that is a value
    made: tuple[tuple[str, Callable[[], Any]], ...]  # attname → a default that is made (uuid4, now)
    fields: dict[str, models.Field[Any, Any]]  # by name and by attname


@cache
def _blank(model: type[models.Model]) -> _Blank:
    constants: dict[str, Any] = {}
    made: list[tuple[str, Callable[[], Any]]] = []
    fields: dict[str, models.Field[Any, Any]] = {}
    # ``timezone.now`` reads settings.USE_TZ through the settings' lazy
    # object at each call, the largest part of making a row (a batch of 500
    # learns makes ~4,000 of them); here it is read once (and again after a
    # test changes it: ``_setting_changed``).
    now = partial(datetime.now, UTC if settings.USE_TZ else None)
    for field in model._meta.concrete_fields:
        fields[field.name] = fields[field.attname] = field
        if field.has_default() and callable(field.default):
            made.append((field.attname, now if field.default is timezone.now else field.default))
        else:
            constants[field.attname] = field.get_default()
    return _Blank(constants, tuple(made), fields)


@receiver(setting_changed)
def _setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "USE_TZ":
        _blank.cache_clear()


def unsaved(model: type[M], /, **values: Any) -> M:
    """``model(**values)``, for the write path's rows (a batch builds
    thousands): each field's default, then the values given — a relation by
    its object (through its descriptor, which keeps the object, as
    ``Model.__init__`` does) or by its ``_id``. A quarter to under half the
    time of ``Model.__init__`` (by model), whose generic path looks every field up in the
    keywords and asks each for its default. Where anything listens to a
    model's ``pre_init`` or ``post_init`` signal, it is ``model(**values)``."""
    if signals.pre_init.receivers or signals.post_init.receivers:
        return model(**values)
    blank = _blank(model)
    obj = model.__new__(model)
    state = obj.__dict__
    state["_state"] = ModelState()
    state.update(blank.constants)
    for attname, default in blank.made:
        if attname not in values:
            state[attname] = default()
    for name, value in values.items():
        field = blank.fields.get(name)
        if field is None:
            raise TypeError(f"{model.__name__}() got unexpected keyword arguments: {name!r}")
        if name == field.attname:
            state[name] = value
        else:
            setattr(obj, name, value)
    return obj


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
    db = connections[DEFAULT_DB_ALIAS]
    statements = [
        (
            insert.sql,
            [
                _array(field, convert, [value(obj) for obj in objs], db)
                for field, convert, value in zip(
                    insert.fields, insert.converters, insert.values, strict=True
                )
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
            obj._state.db = db.alias


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
    db = connections[DEFAULT_DB_ALIAS]
    columns = [_array(f, _converter(f), [row[i] for row in rows], db) for i, f in enumerate(chosen)]
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
