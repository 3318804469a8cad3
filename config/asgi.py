"""ASGI entry point (uvicorn). ASGI so that the MCP server can be mounted at
``/mcp`` beside Django."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()

from config.embedded import ensure_services  # noqa: E402  (needs settings)
from memory.embeddings import get_provider  # noqa: E402

ensure_services()
# Load the embedding model before serving, and fail start-up on a dimension
# mismatch rather than on the first recall.
get_provider()
