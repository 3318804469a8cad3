"""What the agent surfaces accept, defined once for REST and MCP: the
shapes and limits of a learn, a recall and a piece of evidence, and how a
validated learn maps onto ``lesson_learn``."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from config.errors import ApplicationError, PayloadTooLarge
from config.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    StrictSerializer,
)
from memory.models import Kind
from provenance.services import ParentRef

CONTENT_MAX = 4000
SITUATION_MAX = 2000
WAIT_MAX = 30.0


def within(name: str, value: str, limit: int) -> str:
    """Oversized text is 413, not 400: the request is well-formed, too big."""
    if len(value) > limit:
        raise PayloadTooLarge(
            f"{name} is {len(value)} characters; the limit is {limit}", code=f"{name}_too_large"
        )
    return value


class ParentIn(StrictSerializer):
    type = serializers.ChoiceField(choices=["observation", "belief", "lesson"])
    id = serializers.UUIDField()


class EvidenceIn(StrictSerializer):
    content = StrictCharField()
    source_uri = StrictCharField(max_length=2000, allow_blank=True, default="")
    source_family = StrictCharField(max_length=200, allow_blank=True, default="")

    def validate_content(self, value: str) -> str:
        return within("evidence.content", value, CONTENT_MAX)


class LearnInput(StrictSerializer):
    """A learn, as REST's body and MCP's tool arguments give it."""

    content = StrictCharField(trim_whitespace=True)
    situation = StrictCharField(required=False, allow_blank=True, default="")
    kind = serializers.ChoiceField(choices=Kind.choices, default=Kind.LESSON)
    derived_from = ParentIn(many=True, required=False, default=list)
    confidence = StrictFloatField(min_value=0.0, max_value=1.0, default=0.7)
    idempotency_key = StrictCharField(required=False, max_length=200, allow_null=True)

    def validate_content(self, value: str) -> str:
        return within("content", value, CONTENT_MAX)

    def validate_situation(self, value: str) -> str:
        return within("situation", value, SITUATION_MAX)


def learn_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """``lesson_learn``'s keyword arguments from a validated ``LearnInput``."""
    return {
        "content": data["content"],
        "situation": data["situation"],
        "kind": data["kind"],
        "confidence": data["confidence"],
        "derived_from": [ParentRef(p["type"], p["id"]) for p in data["derived_from"]],
        "idempotency_key": data.get("idempotency_key"),
    }


class RecallInput(StrictSerializer):
    """A recall, as REST's body and MCP's tool arguments give it."""

    query = StrictCharField(max_length=2000)
    k = StrictIntegerField(min_value=1, max_value=50, default=5)
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=Kind.choices), required=False, allow_empty=False
    )
    min_independent_sources = StrictIntegerField(min_value=0, default=0)
    as_of = serializers.DateTimeField(required=False)
    # Only lessons whose situation starts with it (e.g. the LangGraph
    # store's namespace labels, store:users/u1/).
    situation_prefix = StrictCharField(max_length=SITUATION_MAX, required=False)
    # Search the superseded lessons too (true), never (false), or as the
    # query asks (absent: "what was it in May", "before the migration").
    history = StrictBooleanField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "history" in attrs and "as_of" in attrs:
            raise serializers.ValidationError(
                {"history": "as_of already recalls what was valid then; send one or the other"}
            )
        return attrs


def parse_wait(raw: str | None) -> float:
    if not raw:
        return 0.0
    try:
        wait = float(raw)
    except ValueError:
        raise ApplicationError("wait must be a number of seconds", code="invalid_wait") from None
    if not 0 <= wait <= WAIT_MAX:
        raise ApplicationError(f"wait must be between 0 and {WAIT_MAX:g}", code="invalid_wait")
    return wait
