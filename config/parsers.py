"""A JSON parser that refuses what a lenient one lets through."""

from __future__ import annotations

import json
import re
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
        except RecursionError:  # thousands of nested arrays or objects
            raise StrictParseError(
                f"the body is nested deeper than {MAX_DEPTH} levels", "nesting_too_deep"
            ) from None
        if not isinstance(data, dict):
            raise StrictParseError("the body must be a JSON object", "malformed_body")
        _check_shape(data)
        return data


# No request of the API nests anywhere near this deep.
MAX_DEPTH = 32
_SURROGATES = re.compile("[\ud800-\udfff]")


def _check_shape(data: Any) -> None:
    """Refuse what parses but cannot be handled later: nesting deeper than
    ``MAX_DEPTH`` (validation and error messages walk it recursively) and
    lone UTF-16 surrogates (``"\\ud800"`` parses to a string no encoder
    can write), in keys and values alike. Iterative: no recursion here."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise StrictParseError(
                f"the body is nested deeper than {MAX_DEPTH} levels", "nesting_too_deep"
            )
        if isinstance(value, dict):
            for key, item in value.items():
                if _SURROGATES.search(key):
                    raise StrictParseError("a key holds a lone surrogate", "invalid_unicode")
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str) and _SURROGATES.search(value):
            raise StrictParseError("a string holds a lone surrogate", "invalid_unicode")
