"""The dashboard in a real browser (Debian's chromium, driven by
Playwright) against the running service: log in, learn through the API and
watch it arrive in the live feed, search it, open its lineage and click a
node, travel back before a supersession, resolve a dispute — with no
JavaScript error on any page.

Screenshots of each page go to a temporary folder, or to
``$TRIBUTARY_SCREENSHOTS`` (``docs/screenshots`` regenerates the README's).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import StaffMembership
from accounts.tenancy import cross_tenant, tenant_context
from memory.models import Dispute, Lesson
from tests.conftest import make_caller, process_pending

pytestmark = pytest.mark.django_db(transaction=True)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
NO_BROWSER = (
    "NO BROWSER: chromium was not found, so the dashboard's browser tests did NOT run. "
    "On Debian `make test` installs it (apt-get install chromium, as root)."
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(NO_BROWSER)
    # Playwright's sync API keeps an event loop in this thread; the test's
    # own ORM calls are ordinary synchronous ones.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TRIBUTARY_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 860}, base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on(
        "response",
        lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors  # no JavaScript error on any page


def learn(client: httpx.Client, headers: dict[str, str], content: str) -> str:
    response = client.post("/api/v1/learn", headers=headers, json={"content": content})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


def log_in(page: Any) -> None:
    user = User.objects.create_user("curie", password="a long test password", is_staff=True)
    with cross_tenant(reason="test setup"):
        StaffMembership.objects.create(user=user, tenant_slug="acme")
    page.goto("/dashboard/")
    assert "/dashboard/login/" in page.url
    page.fill("#id_username", "curie")
    page.fill("#id_password", "a long test password")
    page.click("button[type=submit]")
    page.wait_for_url("**/dashboard/")


def test_a_curator_follows_a_lesson_from_the_feed_to_its_evidence(page, live_server, shots):
    from playwright.sync_api import expect

    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    log_in(page)
    expect(page.get_by_text("Nothing has happened yet.")).to_be_visible()

    # Learned through the API while the feed is open: it appears, no reload.
    text = "Clear the build cache when the linker exits with code 137."
    with httpx.Client(base_url=live_server.url, timeout=30) as api:
        learn(api, alice.headers, text)
        process_pending(alice.agent.tenant_id)
        # A second agent's evidence-backed belief, so the lineage has a path.
        with tenant_context(alice.agent.tenant_id):
            lesson_id = Lesson.objects.get(content=text).id
        observation = api.post("/api/v1/observations", headers=bob.headers, json={
            "content": "CI run 4412: ld exited 137; passed after rm -rf .cache/build.",
            "source_type": "log",
        }).json()  # fmt: skip
        belief = api.post("/api/v1/beliefs", headers=bob.headers, json={
            "content": "Clearing the cache fixed exit 137 in CI.", "confidence": 0.9,
            "derived_from": [{"type": "observation", "id": observation["id"]}],
            "supports": str(lesson_id),
        })  # fmt: skip
        assert belief.status_code == 201, belief.text
    row = page.locator("tr.event.learned", has_text="Clear the build cache")
    expect(row).to_be_visible(timeout=10_000)
    expect(page.locator("#conflicts")).to_have_text("0")
    page.screenshot(path=str(shots / "feed.png"), full_page=True)

    # Search it (meaning, not the exact words).
    page.click("text=Lessons")
    page.fill("#q", "linker crash out of memory fix")
    page.keyboard.press("Enter")
    hit = page.locator("tr.lesson-row a", has_text="Clear the build cache")
    expect(hit).to_be_visible()
    page.screenshot(path=str(shots / "lessons.png"), full_page=True)

    # Its lineage: clicking the log observation's belief lights its path.
    with page.expect_navigation():
        hit.click()
    # (the lesson's page renders its lineage: give it longer than the default
    # 5 s on a loaded two-core machine, where it once took more)
    expect(page.locator("#independent-sources")).to_have_text("2", timeout=15_000)
    graph = page.locator("svg#lineage")
    expect(graph.locator(".node")).to_have_count(5)  # lesson, 2 beliefs, 2 observations
    node = graph.locator(".node.belief", has_text="Clearing the cache")
    node.click()
    expect(graph).to_have_class("lineage dimmed")
    expect(node).to_have_class("node belief held on-path selected")
    expect(graph.locator(".node.observation.on-path")).to_have_count(1)
    expect(graph.locator(".node.observation:not(.on-path)")).to_have_count(1)
    expect(graph.locator(".node.lesson.on-path")).to_have_count(0)
    page.screenshot(path=str(shots / "lesson.png"), full_page=True)
    # The keyboard does the same: focus the other observation, press Enter.
    other_id = graph.locator(".node.observation:not(.on-path)").get_attribute("data-id")
    other = graph.locator(f".node[data-id='{other_id}']")
    other.focus()
    page.keyboard.press("Enter")
    expect(other).to_have_class("node observation valid on-path selected")


def test_time_travel_and_disputes_in_the_browser(page, live_server, shots):
    from playwright.sync_api import expect

    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    with httpx.Client(base_url=live_server.url, timeout=30) as api:
        learn(api, alice.headers, "The nightly export job runs at 02:00 UTC.")
        process_pending(alice.agent.tenant_id)
        with tenant_context(alice.agent.tenant_id):  # learned two hours ago
            two_hours = timezone.now() - timedelta(hours=2)
            Lesson.objects.update(activated_at=two_hours, created_at=two_hours)
        learn(api, alice.headers, "The nightly export job runs at 03:00 UTC.")  # supersedes
        learn(api, bob.headers, "The nightly export job runs at 04:00 UTC.")  # disputes
        process_pending(alice.agent.tenant_id)
    log_in(page)

    page.goto("/dashboard/lessons/?status=active")
    expect(page.locator("tr.lesson-row", has_text="03:00")).to_be_visible()
    expect(page.locator("tr.lesson-row", has_text="02:00")).to_have_count(0)
    # Slide back an hour: before the supersession, the old lesson is what was believed.
    an_hour_ago = int((timezone.now() - timedelta(hours=1)).timestamp())
    page.locator("#as-of-slider").evaluate(
        """(slider, value) => {
            slider.value = value;
            slider.dispatchEvent(new Event("input", {bubbles: true}));
            slider.dispatchEvent(new Event("change", {bubbles: true}));
        }""",
        an_hour_ago,
    )
    expect(page.locator("#as-of-shown")).to_contain_text("As of")
    expect(page.locator("tr.lesson-row", has_text="02:00")).to_be_visible()
    expect(page.locator("tr.lesson-row", has_text="03:00")).to_have_count(0)
    expect(page.locator("tr.lesson-row", has_text="02:00")).to_contain_text("now superseded")
    page.screenshot(path=str(shots / "time-travel.png"), full_page=True)
    page.click("#now")
    expect(page.locator("tr.lesson-row", has_text="03:00")).to_be_visible()

    # The dispute: both lessons side by side; accept the new one (confirmed).
    page.click("text=Disputes")
    dispute = page.locator("section.dispute")
    expect(dispute.locator(".side.existing")).to_contain_text("03:00")
    expect(dispute.locator(".side.new")).to_contain_text("04:00")
    page.screenshot(path=str(shots / "disputes.png"), full_page=True)
    questions: list[str] = []

    def answer(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.accept()

    page.once("dialog", answer)
    page.fill("input[name=note]", "checked the scheduler")
    page.click("button[value=accept_new]")
    expect(page.get_by_text("No open disputes.")).to_be_visible()
    expect(page.locator("#messages")).to_contain_text("Dispute resolved: accept new")
    assert questions == ["Accept the new lesson? The existing one is superseded."]
    with tenant_context(alice.agent.tenant_id):
        resolved = Dispute.objects.get()
    assert (resolved.resolution, resolved.note) == ("accept_new", "checked the scheduler")

    page.click("text=Health")
    expect(page.locator("svg[aria-label='Lessons by status']")).to_be_visible()
    page.screenshot(path=str(shots / "health.png"), full_page=True)


def test_a_declined_confirmation_changes_nothing(page, live_server):
    from playwright.sync_api import expect

    alice = make_caller("acme", "alice")
    with httpx.Client(base_url=live_server.url, timeout=30) as api:
        learn(api, alice.headers, "Staging certificates renew on the first of the month.")
        process_pending(alice.agent.tenant_id)
    with tenant_context(alice.agent.tenant_id):
        lesson_id = Lesson.objects.get().id
    log_in(page)
    page.goto(f"/dashboard/lessons/{lesson_id}/")
    page.fill("#reason", "outdated")
    page.once("dialog", lambda d: d.dismiss())
    page.click("text=Erase")
    expect(page.locator("h1")).to_have_text("Staging certificates renew on the first of the month.")
    page.once("dialog", lambda d: d.accept())
    page.click("text=Retire")
    expect(page.locator(".message.success")).to_have_text("retire: done.")
    with tenant_context(alice.agent.tenant_id):
        assert Lesson.objects.get().status == "retired"


def test_the_evaluation_history_plots_training_and_blind_figures_against_the_baseline(
    page, live_server, shots
):
    from playwright.sync_api import expect

    from evals.blind import load_scores
    from memory.models import EvalRun

    make_caller("acme", "alice")
    metrics = {"classification": {"strict_accuracy": 0.95, "destructive_precision": 0.97},
               "retrieval": {"hit_at_5": 0.98, "mrr": 0.97},
               "redteam": {"block_rate": 1.0, "false_positive_rate": 0.0}}  # fmt: skip
    later = {**metrics, "classification": {"strict_accuracy": 0.97, "destructive_precision": 0.99}}
    for commit, figures in (("aaaaaaa1111", metrics), ("bbbbbbb2222", later)):
        EvalRun.objects.create(
            tier="offline", judge="offline-v1", commit=commit, metrics=figures, passed=True
        )
    blind = [b for b in load_scores() if b.get("classification", {}).get("strict_accuracy")]
    log_in(page)
    page.click("text=Evaluations")
    page.wait_for_url("**/dashboard/evaluations/")
    accuracy = page.locator("#metric-classification-strict_accuracy")
    expect(accuracy.locator("svg.chart")).to_be_visible()
    # Two training runs, each blind batch apart, and the dashed baseline.
    assert accuracy.locator('circle[data-series="training (offline)"]').count() == 2
    assert accuracy.locator('circle[data-series="blind"]').count() == len(blind) > 0
    assert accuracy.locator("line.baseline").count() == 1
    assert "0.97" in accuracy.locator("table").inner_text()
    hit = page.locator("#metric-retrieval-hit_at_5")
    assert hit.locator('circle[data-series="training (offline)"]').count() == 2
    assert hit.locator('circle[data-series="blind"]').count() == 0  # no blind retrieval set yet
    page.screenshot(path=str(shots / "evaluations.png"), full_page=True)
