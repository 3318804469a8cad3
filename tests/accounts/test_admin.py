"""The admin: superusers only, across tenants, keys shown once."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import ApiKey, Role
from accounts.services import api_key_authenticate
from accounts.tenancy import cross_tenant
from tests.conftest import make_caller

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def admin_client(client):
    user = User.objects.create_superuser("root", "root@example.com", "pw-not-used")
    client.force_login(user)
    return client


def test_superuser_sees_every_tenant_and_agent(admin_client):
    make_caller("tenant-a", "alice")
    make_caller("tenant-b", "bob", Role.READER)
    tenants = admin_client.get("/admin/accounts/tenant/")
    assert tenants.status_code == 200
    assert b"tenant-a" in tenants.content and b"tenant-b" in tenants.content
    agents = admin_client.get("/admin/accounts/agent/")
    assert b"alice" in agents.content and b"bob" in agents.content


def test_issuing_a_key_in_the_admin_shows_it_once_and_it_works(admin_client):
    caller = make_caller("acme", "alice")
    form = admin_client.get("/admin/accounts/apikey/add/")
    assert form.status_code == 200
    response = admin_client.post(
        "/admin/accounts/apikey/add/", {"agent": str(caller.agent.id), "label": "ci"}
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    match = re.search(
        rb'id="issued-key"[^>]*>(trib_[0-9a-f]{12}_[A-Za-z0-9_-]{43})<', response.content
    )
    assert match, response.content
    key = match.group(1).decode()
    with transaction.atomic():
        principal = api_key_authenticate(key)
    assert principal is not None and principal.agent_name == "alice"
    # The list shows the prefix only, never the secret.
    listing = admin_client.get("/admin/accounts/apikey/")
    secret = key.split("_", 2)[2]
    assert key.split("_")[1].encode() in listing.content
    assert secret.encode() not in listing.content


def test_revoke_action_revokes(admin_client):
    caller = make_caller("acme", "alice")
    with cross_tenant(reason="test"):
        key = ApiKey.objects.get(agent=caller.agent)
    response = admin_client.post(
        "/admin/accounts/apikey/",
        {"action": "revoke", "_selected_action": [str(key.id)]},
        follow=True,
    )
    assert response.status_code == 200
    with cross_tenant(reason="test"):
        assert ApiKey.objects.get(id=key.id).revoked_at is not None
    with transaction.atomic():
        assert api_key_authenticate(caller.key) is None


def test_keys_cannot_be_edited_or_deleted_in_the_admin(admin_client):
    caller = make_caller("acme", "alice")
    with cross_tenant(reason="test"):
        key = ApiKey.objects.get(agent=caller.agent)
    page = admin_client.get(f"/admin/accounts/apikey/{key.id}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert admin_client.get(f"/admin/accounts/apikey/{key.id}/delete/").status_code == 403


def test_staff_without_superuser_is_refused(client):
    make_caller("acme", "alice")
    staff = User.objects.create_user("staff", password="pw-not-used", is_staff=True)
    client.force_login(staff)
    response = client.get("/admin/accounts/agent/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_the_model_call_list_shows_spend_escalation_and_latency_by_model(admin_client):
    from decimal import Decimal

    from accounts.tenancy import tenant_context
    from memory.models import ModelCall
    from tests.conftest import learn

    caller = make_caller("acme", "alice")
    request = learn(caller, "The deploy API answers 429 unless X-Batch: true is sent.")
    with tenant_context(caller.agent.tenant_id):
        for model, purpose, latency, cost in [
            ("cheap-model", "classify", 100.0, "0.0004"),
            ("cheap-model", "classify", 300.0, "0.0004"),
            ("strong-model", "escalate", 900.0, "0.0100"),
        ]:
            ModelCall.objects.create(
                tenant_id=caller.agent.tenant_id, learn_request=request, provider="openai",
                model=model, purpose=purpose, input_tokens=200, output_tokens=30,
                cost=Decimal(cost), latency_ms=latency, outcome="ok",
            )  # fmt: skip
    page = admin_client.get("/admin/memory/modelcall/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "spend 0.0108" in text and "escalation rate 1.0" in text
    assert "cheap-model" in text and "200.0 / 290.0" in text  # p50 / p95 of 100, 300
    assert "900.0 / 900.0" in text
