"""ASGI entry point (uvicorn): Django, with the MCP server mounted at
``/mcp`` (``tribal_mcp.http``). Run with lifespan on: the MCP session
manager starts with it."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from config.telemetry import install_tracing  # noqa: E402  (needs settings)

# Before Django builds its middleware chain: the Django instrumentation
# adds its own (opt-in: OTEL_EXPORTER_OTLP_ENDPOINT; config/telemetry.py).
install_tracing("web")

from config.asgi_handler import OneHopASGIHandler  # noqa: E402

django_application = OneHopASGIHandler()

from config.asgi_limits import BodyLimit  # noqa: E402  (needs settings)
from config.embedded import ensure_services  # noqa: E402
from config.logfilters import install as redact_keys_in_logs  # noqa: E402
from memory.embeddings import get_provider  # noqa: E402
from memory.relevance import probe_vectors  # noqa: E402
from tribal_mcp.http import build  # noqa: E402

application = BodyLimit(build(django_application))

redact_keys_in_logs()

ensure_services()
# Load the embedding model before serving, and fail start-up on a dimension
# mismatch rather than on the first recall; embed the relevance probes
# (memory.relevance) now too, not in the first unrelated recall.
get_provider()
probe_vectors()
