"""One Redis client per process for what the service keeps in the broker's
Redis besides Celery's queues: the learn queue marks and the rate counters."""

from __future__ import annotations

from functools import cache

import redis
from django.conf import settings


@cache
def broker() -> redis.Redis:
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis+socket://"):
        return redis.Redis(unix_socket_path=url.removeprefix("redis+socket://"))
    return redis.Redis.from_url(url)
