"""Weights fitted on the bundled embedding model's vectors (the screen's
learned signal, the judge's learned layer): the stamp they carry and the
check that they fit the model in use. Imports nothing of Django's models:
the import's screening process loads it before any app is ready."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings

# What weights fitted on the bundled model's vectors are stamped with (the
# screen's learned signal, the judge's learned layer).
BUNDLED_MODEL = "sentence-transformers:all-MiniLM-L6-v2"


def fitted_weights(path: Path) -> dict[str, Any] | None:
    """A JSON file of weights fitted on the bundled model's vectors, or None
    where another model is configured (``TRIBUTARY_EMBEDDING_MODEL``: the
    weights would mean nothing), the file is missing, or it names another
    model."""
    if settings.TRIBUTARY_EMBEDDING_MODEL or not path.exists():
        return None
    raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return raw if raw.get("model") == BUNDLED_MODEL else None
