"""The Celery app. Tasks live in each app's ``tasks.py``; they are thin
wrappers that take ids and call a service (docs/design.md §12)."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import beat_init, worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("tributary")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@beat_init.connect
def _trace_beat(**_: Any) -> None:
    from config.telemetry import install_tracing

    install_tracing("beat")


@worker_init.connect
@beat_init.connect
def _start_embedded_redis(**_: Any) -> None:
    # A worker or beat started on its own (not by `up`) on the embedded
    # defaults must find a broker to talk to.
    from config.embedded import ensure_redis

    ensure_redis()


@worker_process_init.connect
def _load_embedding_model(**_: Any) -> None:
    # In each pool process, after the fork (torch and fork do not mix): load
    # the model once and check its dimension against the column at start-up.
    from django.db import connection

    from config.telemetry import install_tracing
    from memory.embeddings import check_column

    # After the fork, in each pool process (the SDK's exporter thread does
    # not survive a fork); opt-in, see config/telemetry.py.
    install_tracing("worker")

    check_column()  # loads the model, compares it with the database column
    connection.close()  # tasks open their own; hold no idle connection meanwhile
    logging.getLogger(__name__).info("pool process %s ready: embedding model loaded", os.getpid())
