"""A JSON parser that refuses what a lenient one lets through."""

from __future__ import annotations

import json
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser


class StrictParseError(ParseError):
    def __init__(self, detail: str, code: str) -> None:
        super().__init__(detail, code)
        self.error_code = code


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise StrictParseError(f"duplicate key {key!r}", "duplicate_key")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise StrictParseError(f"{name} is not valid JSON", "malformed_body")


class StrictJSONParser(BaseParser):
    """UTF-8 only (invalid bytes → ``invalid_utf8``), no duplicate keys, no
    NaN/Infinity, an object at the top."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise StrictParseError("the body is not valid UTF-8", "invalid_utf8") from None
        if not text.strip():
            return {}
        try:
            data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
        except json.JSONDecodeError as exc:
            raise StrictParseError(
                f"malformed JSON: {exc.msg} at {exc.pos}", "malformed_body"
            ) from None
        if not isinstance(data, dict):
            raise StrictParseError("the body must be a JSON object", "malformed_body")
        return data
