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
from memory.relevance import load_for_recall  # noqa: E402
from tribal_mcp.http import build  # noqa: E402

application = BodyLimit(build(django_application))

redact_keys_in_logs()

ensure_services()
# The embedding model and the relevance probes before serving.
load_for_recall()
