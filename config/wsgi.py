"""WSGI entry point, for operators who prefer a WSGI server."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

from config.embedded import ensure_services  # noqa: E402  (needs settings)

ensure_services()
