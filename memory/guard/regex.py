"""The one way the screen compiles a pattern."""

from __future__ import annotations

import re


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)
