"""The OpenAPI schema the API serves at ``/api/schema/`` — complete enough
that a client (or schemathesis) can hold every answer to it.

drf-spectacular documents what a view declares; two things it cannot see
are added here, in one place rather than on every view:

- **Errors.** Every error the service sends has one shape,
  ``{"error": {"code", "message", ...}}`` (``config.exceptions``). Each
  operation lists the statuses it can answer with that shape: 400 bad
  input, 401 no or wrong key, 403 the key's role may not, 429 the key's
  rate (with ``Retry-After``), 503 the database unavailable (with
  ``Retry-After``); with an id in the path or the body 404 (another
  tenant's id too), and 409 (a state that no longer allows it) where it
  changes something; with a body 413 (too large), 415 (not JSON) and, where
  it stores text, 507 (the tenant's storage quota).
- **Component names.** Views declare their serializers as nested
  ``InputSerializer`` classes; named by the class alone they would collide,
  so a nested serializer is named after the view holding it
  (``BeliefsApi.InputSerializer`` → ``BeliefsApiInput``).
"""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent

ERROR_COMPONENT = "Error"
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "description": "stable, for programs"},
                "message": {"type": "string", "description": "for people"},
            },
            "additionalProperties": True,
        }
    },
}

RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}}

ALWAYS = {
    "400": "Bad input: a wrong type, an unknown field or query parameter, a NUL byte, "
    "invalid JSON.",
    "401": "No API key, or one that is unknown or revoked.",
    "403": "The key's role may not do this.",
    "429": "The key is over its request rate; retry after Retry-After seconds.",
    "503": "The database is unavailable; retry after Retry-After seconds.",
}
NOT_FOUND = {"404": "No such object in the caller's tenant (another tenant's id included)."}
CONFLICT = {"409": "The object's state no longer allows this."}
WITH_BODY = {
    "413": "The body is larger than the service accepts.",
    "415": "The body is not JSON.",
    "507": "The tenant's storage quota is used up; nothing was kept.",
}

# Operations that take a body but store no counted text.
READS = frozenset({"recall"})


class TributaryAutoSchema(AutoSchema):
    def get_serializer_name(
        self, serializer: Any, direction: Literal["request", "response"]
    ) -> str:
        cls = serializer.__class__
        outer, _, inner = cls.__qualname__.rpartition(".")
        if outer and "<locals>" not in outer:
            return outer.replace(".", "") + inner.removesuffix("Serializer")
        return super().get_serializer_name(serializer, direction)

    def _get_response_bodies(
        self, direction: Literal["request", "response"] = "response"
    ) -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        self.registry.register_on_missing(
            ResolvedComponent(
                name=ERROR_COMPONENT,
                type=ResolvedComponent.SCHEMA,
                object=ERROR_COMPONENT,
                schema=ERROR_SCHEMA,
            )
        )
        errors = dict(ALWAYS)
        if "{" in self.path:
            errors.update(NOT_FOUND)
            if self.method != "GET":
                errors.update(CONFLICT)
        if self.method in ("POST", "PUT", "PATCH"):
            errors.update(NOT_FOUND)  # a body may name ids: parents, evidence, lessons
            errors.update(WITH_BODY)
            if self.get_operation_id() in READS:
                del errors["507"]
        reference = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
        for status, description in sorted(errors.items()):
            answer: dict[str, Any] = {
                "description": description,
                "content": {"application/json": {"schema": reference}},
            }
            if status in ("429", "503"):
                answer["headers"] = RETRY_AFTER
            responses.setdefault(status, answer)
        return responses
