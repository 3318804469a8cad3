"""Every success body the API sends is typed in the published schema: no
operation declares a free-form object (``responses=dict``) for a 2xx, so
clients and schemathesis can hold each answer to its fields."""

from __future__ import annotations

from typing import Any

from drf_spectacular.generators import SchemaGenerator

REF = "#/components/schemas/"


def _untyped(schema: dict[str, Any], components: dict[str, Any], seen: frozenset[str]) -> bool:
    """Whether a body schema is a bare object: neither fields, nor items of
    a typed schema, nor a choice of typed schemas."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix(REF)
        return name not in seen and _untyped(components[name], components, seen | {name})
    if "allOf" in schema or "oneOf" in schema or "anyOf" in schema:
        parts = schema.get("allOf") or schema.get("oneOf") or schema.get("anyOf")
        return any(_untyped(part, components, seen) for part in parts)
    if "items" in schema:
        return _untyped(schema["items"], components, seen)
    return "properties" not in schema


def test_no_success_body_is_a_free_form_object() -> None:
    document = SchemaGenerator().get_schema(request=None, public=True)
    components = document["components"]["schemas"]
    checked, untyped = [], []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if not str(status).startswith("2") or "content" not in response:
                    continue
                schema = response["content"]["application/json"]["schema"]
                label = f"{method.upper()} {path} {status} ({operation['operationId']})"
                checked.append(label)
                if _untyped(schema, components, frozenset()):
                    untyped.append(label)
    assert len(checked) >= 22, checked  # every operation with a body, learn's 202 too
    assert not untyped, untyped
