"""Per-key request rates: counted in Redis, shared by every web process,
answered 429 with Retry-After, configurable per tenant."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from accounts.models import Tenant
from accounts.tenancy import cross_tenant
from accounts.throttling import WINDOW_SECONDS, rate_key
from config.broker import broker
from tests.conftest import make_caller, principal_of

pytestmark = pytest.mark.django_db(transaction=True)


def _limit(slug: str, per_minute: int | None) -> None:
    with cross_tenant(reason="test setup"):
        Tenant.objects.filter(slug=slug).update(rate_limit_per_minute=per_minute)


@pytest.fixture
def api(live_server) -> Iterator[httpx.Client]:
    # Counts are per minute: start a test well inside one, not at its edge.
    if time.time() % WINDOW_SECONDS > WINDOW_SECONDS - 10:
        time.sleep(WINDOW_SECONDS - time.time() % WINDOW_SECONDS + 0.1)
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=30) as client:
        yield client


def test_a_key_over_its_tenants_rate_gets_429_with_retry_after_and_others_do_not(api):
    alice = make_caller("acme", "alice")
    bob = make_caller("globex", "bob")
    _limit("acme", 5)
    answers = [api.get("/whoami", headers=alice.headers).status_code for _ in range(5)]
    assert answers == [200] * 5
    refused = api.get("/whoami", headers=alice.headers)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= WINDOW_SECONDS
    # another tenant's key is not slowed by alice's flood
    assert all(api.get("/whoami", headers=bob.headers).status_code == 200 for _ in range(10))


def test_the_count_lives_in_redis_for_every_web_process(api):
    alice = make_caller("acme", "alice")
    _limit("acme", 3)
    principal = principal_of(alice)
    key = rate_key(principal, int(time.time() // WINDOW_SECONDS))
    # another web process has already let this key through three times this minute
    broker().set(key, 3, ex=WINDOW_SECONDS * 2)
    assert api.get("/whoami", headers=alice.headers).status_code == 429


def test_a_limit_of_zero_turns_it_off_and_the_setting_is_the_default(api, settings):
    alice = make_caller("acme", "alice")
    _limit("acme", 0)
    assert all(api.get("/whoami", headers=alice.headers).status_code == 200 for _ in range(12))
    _limit("acme", None)
    settings.TRIBUTARY_RATE_LIMIT_PER_MINUTE = 2
    codes = [api.get("/whoami", headers=alice.headers).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
