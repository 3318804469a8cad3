"""One Redis client per process for what the service keeps in the broker's
Redis besides Celery's queues: the learn queue marks and the rate counters."""

from __future__ import annotations

from functools import cache
from typing import Any

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

# redis-py's default retries with backoff for ~4 s before it reports Redis
# down; a learn's queue mark or a rate count must not hold a request that
# long (both have a fallback): one quick retry, then fail.
_FAIL_FAST: dict[str, Any] = {
    "retry": Retry(NoBackoff(), 1),
    "socket_connect_timeout": 1,
    "socket_timeout": 5,
}


@cache
def broker() -> redis.Redis:
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis+socket://"):
        return redis.Redis(unix_socket_path=url.removeprefix("redis+socket://"), **_FAIL_FAST)
    return redis.Redis.from_url(url, **_FAIL_FAST)
