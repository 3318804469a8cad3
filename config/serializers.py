"""Strict serializer fields: no silent coercion, no unknown fields.

DRF's defaults turn ``123`` into ``"123"`` and ``"0.5"`` into ``0.5``; an
API whose callers are programs should say "wrong type" instead.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictCharField(serializers.CharField):
    default_error_messages = {"not_a_string": "Must be a string."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_a_string")
        return str(super().to_internal_value(data))


class StrictFloatField(serializers.FloatField):
    default_error_messages = {"not_a_number": "Must be a number."}

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("not_a_number")
        return float(super().to_internal_value(data))


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"not_an_integer": "Must be an integer."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("not_an_integer")
        return int(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"not_a_boolean": "Must be true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not declare."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: ["Unknown field."] for name in unknown}, code="unknown_field"
                )
        return super().to_internal_value(data)
