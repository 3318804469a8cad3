"""Health, errors, schema: the service's HTTP surface outside any tenant."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from config.celery import app as celery_app
from tests.conftest import learn_now, make_caller


@pytest.fixture
def http(live_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        yield client


def test_healthz_answers_without_touching_the_database(client):
    # No django_db mark: pytest-django makes any database access in this
    # test raise, so a 200 here proves /healthz never opened a connection.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_the_no_database_guard_above_would_catch_a_database_touch(client):
    # /readyz does touch the database: under the same guard its check fails.
    postgres = client.get("/readyz").json()["checks"]["postgres"]
    assert postgres["ok"] is False
    assert "Database access not allowed" in postgres["error"]


@pytest.mark.django_db(transaction=True)
def test_readyz_checks_postgres_and_redis(http):
    response = http.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["postgres"]["ok"] and body["checks"]["redis"]["ok"]


@pytest.mark.django_db(transaction=True)
def test_readyz_is_503_when_redis_is_unreachable(client, tmp_path):
    original = celery_app.conf.broker_url
    celery_app.conf.broker_url = f"redis+socket://{tmp_path}/nothing-here.sock"
    try:
        response = client.get("/readyz")
    finally:
        celery_app.conf.broker_url = original
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["postgres"]["ok"] is True
    assert body["checks"]["redis"]["ok"] is False


@pytest.mark.django_db(transaction=True)
def test_unknown_api_path_is_a_json_404(http):
    response = http.get("/api/v1/no-such-thing")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "Not found."}}


def test_djangos_own_400_on_the_api_is_json_and_on_pages_is_not(client):
    """A Host outside ALLOWED_HOSTS is refused by Django before any view."""
    api = client.get("/api/v1/whoami", HTTP_HOST="attacker.example")
    assert api.status_code == 400
    assert api.json() == {"error": {"code": "bad_request", "message": "Bad request."}}
    page = client.get("/dashboard/", HTTP_HOST="attacker.example")
    assert page.status_code == 400 and "json" not in page["Content-Type"]


@pytest.mark.django_db(transaction=True)
def test_oversized_body_is_413_before_anything_is_parsed(http, settings):
    caller = make_caller("acme", "alice")
    body = b"{" + b" " * (settings.TRIBUTARY_MAX_BODY_BYTES + 1) + b"}"
    response = http.post(
        "/api/v1/whoami",
        content=body,
        headers={**caller.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


@pytest.mark.django_db(transaction=True)
def test_a_query_parameter_the_endpoint_does_not_take_is_400(http):
    caller = make_caller("acme", "alice")
    misspelt = http.get("/api/v1/lessons?limt=5", headers=caller.headers)
    assert misspelt.status_code == 400
    error = misspelt.json()["error"]
    assert error["code"] == "unknown_parameter"
    assert "'limt'" in error["message"] and "limit" in error["message"]
    assert http.get("/api/v1/lessons?limit=5", headers=caller.headers).status_code == 200
    # An endpoint without parameters takes none, an empty name included.
    assert http.get("/api/v1/whoami?=", headers=caller.headers).status_code == 400
    # Outside the API (pages, the schema's own ?format=) nothing changes.
    assert http.get("/api/schema/?format=json").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_wrong_method_and_malformed_json_get_the_error_shape(http):
    caller = make_caller("acme", "alice")
    wrong = http.delete("/api/v1/whoami", headers=caller.headers)
    assert wrong.status_code == 405
    assert wrong.json()["error"]["code"] == "method_not_allowed"
    malformed = http.post(
        "/api/v1/whoami",
        content=b'{"a": \xff}',
        headers={**caller.headers, "Content-Type": "application/json"},
    )
    # whoami takes no body: the method is refused before the body is read.
    assert malformed.status_code == 405


@pytest.mark.django_db(transaction=True)
def test_openapi_schema_and_docs_are_served_without_a_cdn(http):
    schema = http.get("/api/schema/", headers={"Accept": "application/json"})
    assert schema.status_code == 200
    document = schema.json()
    assert document["openapi"].startswith("3.")
    assert "/api/v1/whoami" in document["paths"]
    assert document["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
    docs = http.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn.jsdelivr" not in docs.content
    assert b"swagger-ui" in docs.content


def test_under_asgi_no_middleware_forces_a_thread_hop(settings):
    """A sync-only middleware makes Django's ASGI handler hop to a thread and
    back around it on every request; every one of ours runs in both modes."""
    from django.utils.module_loading import import_string

    sync_only = [
        path
        for path in settings.MIDDLEWARE
        if not getattr(import_string(path), "async_capable", False)
    ]
    assert sync_only == []


@pytest.mark.django_db(transaction=True)
def test_through_the_asgi_app_static_files_size_limits_and_the_api_answer(settings):
    """The service's handler (``config.asgi_handler``): WhiteNoise still
    serves the static files, the size limit still refuses first, other
    requests pass through the chain in one thread hop, and the learn
    long-poll (an async view) through Django's async chain."""
    import asyncio

    from asgiref.sync import iscoroutinefunction

    from config.asgi_handler import OneHopASGIHandler

    caller = make_caller("acme", "alice")
    app = OneHopASGIHandler()
    assert not iscoroutinefunction(app._middleware_chain)  # type: ignore[attr-defined]  # one hop
    assert iscoroutinefunction(app._async_views._middleware_chain)  # type: ignore[attr-defined]

    async def calls() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return [
                await client.get("/static/dashboard/dashboard.js"),
                await client.get("/static/dashboard/no-such-file.js"),
                await client.post(
                    "/api/v1/whoami",
                    content=b"{" + b" " * (settings.TRIBUTARY_MAX_BODY_BYTES + 1) + b"}",
                    headers={**caller.headers, "Content-Type": "application/json"},
                ),
                await client.get("/api/v1/whoami", headers=caller.headers),
                await client.post(
                    "/api/v1/learn",
                    params={"wait": 1},
                    headers=caller.headers,
                    json={"content": "The long-poll answers through the async chain."},
                ),
            ]

    static, missing, oversized, whoami, learned = asyncio.run(calls())
    # no worker runs here: the view waited its second and answered pending
    assert learned.status_code == 202 and learned.json()["status"] == "pending"
    assert static.status_code == 200 and "javascript" in static.headers["content-type"]
    assert "htmx" in static.text or "function" in static.text
    assert missing.status_code == 404
    assert oversized.status_code == 413
    assert oversized.json()["error"]["code"] == "payload_too_large"
    assert whoami.status_code == 200 and whoami.json()["agent"] == "alice"


@pytest.mark.django_db(transaction=True)
def test_pages_carry_a_content_security_policy_and_hsts_behind_tls(client, settings):
    page = client.get("/dashboard/login/")
    assert page.status_code == 200
    policy = page["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy
    assert "Strict-Transport-Security" not in page  # plain HTTP: no HSTS
    docs = client.get("/api/docs/")
    assert "script-src 'self' 'unsafe-inline'" in docs["Content-Security-Policy"]
    from django.test import Client

    settings.SECURE_HSTS_SECONDS = 31_536_000  # what TRIBUTARY_BEHIND_TLS_PROXY sets
    secure = Client().get("/dashboard/login/", secure=True)  # middleware read anew
    assert secure["Strict-Transport-Security"].startswith("max-age=31536000")


@pytest.mark.django_db(transaction=True)
def test_readyz_turns_red_when_no_worker_consumes_learning(http, settings, superuser_sql):
    from tests.conftest import learn

    alice = make_caller("acme", "alice")
    assert http.get("/readyz").json()["checks"]["learning"]["ok"] is True  # nothing pending
    request = learn(alice, "Nobody is consuming this learn request.")  # no worker runs here
    assert http.get("/readyz").status_code == 200  # just queued
    superuser_sql.execute(
        "UPDATE memory_learnrequest SET created_at = now() - interval '10 minutes' WHERE id = %s",
        [request.id],
    )
    stalled = http.get("/readyz")
    assert stalled.status_code == 503
    learning = stalled.json()["checks"]["learning"]
    assert learning["ok"] is False and "no worker is consuming" in learning["error"]


@pytest.mark.django_db(transaction=True)
def test_a_recalls_bookkeeping_runs_after_its_response_is_sent(monkeypatch):
    """``config.after_response``: under the service's handler the recall
    counts go to Redis once the body is out, not between commit and send."""
    import asyncio
    import json
    import time

    from config.asgi_handler import OneHopASGIHandler
    from memory import presenters

    caller = make_caller("acme", "alice")
    learn_now(caller, "The deploy API answers 429 unless X-Batch is set.")
    events: list[tuple[str, float]] = []
    real = presenters.lessons_note_recalled

    def noted(**kwargs):
        events.append(("noted", time.monotonic()))
        real(**kwargs)

    monkeypatch.setattr(presenters, "lessons_note_recalled", noted)
    body = json.dumps({"query": "deploy API 429", "k": 3}).encode()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/v1/recall", "raw_path": b"/api/v1/recall",
        "query_string": b"", "root_path": "", "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 5000),
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *((k.lower().encode(), v.encode()) for k, v in caller.headers.items())],
    }  # fmt: skip
    sent: list[dict] = []

    async def call() -> None:
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict:
            if messages:
                return messages.pop(0)
            await asyncio.sleep(3600)  # no disconnect while the app runs
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                events.append(("sent", time.monotonic()))

        await OneHopASGIHandler()(scope, receive, send)

    asyncio.run(call())
    assert sent[0]["status"] == 200
    answer = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert answer["results"]
    assert [name for name, _ in events] == ["sent", "noted"]


def test_work_after_the_response_runs_in_order_and_one_failure_stops_nothing(caplog):
    from config.after_response import after_response, collect, run_all, stop_collecting

    done: list[int] = []
    after_response(lambda: done.append(0))  # outside a request: at once
    assert done == [0]
    tasks, token = collect()
    after_response(lambda: done.append(1))
    after_response(lambda: 1 / 0)
    after_response(lambda: done.append(2))
    stop_collecting(token)
    assert done == [0]
    run_all(tasks)
    assert done == [0, 1, 2]
    assert "work after the response failed" in caplog.text
