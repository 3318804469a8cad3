"""The curator's dashboard: thin views over the same services and
selectors as the API (docs/design.md §9.4), rendered for people, refreshed by HTMX.

Every view is a ``curator_view``: one tenant at a time, in its context."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from accounts.staff import SESSION_TENANT, acting_principal, dashboard_tenants
from config.errors import ApplicationError, NotFound
from curation.disputes import dispute_resolve, disputes_list
from curation.selectors import journal_summary
from dashboard.access import LOGIN_URL, curator_view
from dashboard.charts import bar_chart, history_chart, line_chart
from dashboard.lineage import lineage_svg
from dashboard.selectors import (
    author_names,
    decisions_page,
    eval_history,
    feed_summary,
    first_activated,
    gauntlet_latest_curve,
    learn_requests_per_day,
    lesson_events,
    lessons_found,
    promotion_gate,
)
from memory.models import (
    Kind,
    LessonStatus,
    Resolution,
)
from memory.selectors import lesson_get, lesson_history, recall_counts
from memory.services.lessons import CURATOR_ACTIONS, lesson_curate
from memory.stats import memory_stats
from provenance.presenters import lesson_lineage
from provenance.selectors import ProvenanceSummary, lessons_evidence, provenance_summaries
from provenance.services import decision_review

PAGE_SIZE = 25
FEED_SIZE = 50
DAYS = 14  # the health page's learning series
CORROBORATION = ("corroborated", "single-source", "contested", "low-confidence", "unsupported")


def _tenant(request: HttpRequest) -> uuid.UUID:
    return request.tenant_id  # type: ignore[attr-defined, no-any-return]


# --- the live feed ----------------------------------------------------------


def _feed_context(request: HttpRequest) -> dict[str, Any]:
    return feed_summary(limit=FEED_SIZE)


@curator_view
def feed(request: HttpRequest) -> HttpResponse:
    template = "dashboard/_feed.html" if request.htmx else "dashboard/feed.html"  # type: ignore[attr-defined]
    return render(request, template, _feed_context(request))


# --- the lesson browser and time travel --------------------------------------


def _as_of(raw: str | None) -> datetime | None:
    if not raw:
        return None
    parsed = parse_datetime(raw)
    if parsed is None:
        raise ApplicationError("as_of must be a date and time", code="invalid_as_of")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _browse(request: HttpRequest) -> dict[str, Any]:
    params = request.GET
    query = params.get("q", "").strip()[:500]
    kind, status = params.get("kind", ""), params.get("status", "")
    corroboration, author = params.get("corroboration", ""), params.get("author", "")
    try:
        as_of = _as_of(params.get("as_of"))
    except ApplicationError as exc:
        as_of, error = None, exc.message
    else:
        error = ""
    found = lessons_found(
        tenant_id=_tenant(request), query=query, kind=kind, status=status,
        corroboration=corroboration, author=author, as_of=as_of, limit=1000,
    )  # fmt: skip
    scores = found.scores
    page = Paginator(found.lessons, PAGE_SIZE).get_page(params.get("page"))
    ids = [lesson.id for lesson in page]
    summaries = provenance_summaries(ids)
    recalls = recall_counts(ids)
    first = first_activated()
    now = timezone.now()
    return {
        "page": page,
        "rows": [
            {
                "lesson": lesson,
                "summary": summaries.get(lesson.id, ProvenanceSummary()),
                "recalls": recalls.get(lesson.id, 0),
                "score": scores.get(lesson.id),
                "status_then": "active" if as_of is not None else lesson.status,
            }
            for lesson in page
        ],
        "q": query, "kind": kind, "status": status, "corroboration": corroboration,
        "author": author, "as_of": as_of, "error": error,
        "kinds": Kind.values, "statuses": LessonStatus.values, "corroborations": CORROBORATION,
        "authors": author_names(),
        "gate": promotion_gate(_tenant(request)),
        "slider_min": int((first or now).timestamp()) - 60,
        "slider_max": int(now.timestamp()),
        "slider_value": int((as_of or now).timestamp()),
    }  # fmt: skip


@curator_view
def lessons(request: HttpRequest) -> HttpResponse:
    context = _browse(request)
    template = "dashboard/_lessons.html" if request.htmx else "dashboard/lessons.html"  # type: ignore[attr-defined]
    return render(request, template, context, status=400 if context["error"] else 200)


# --- one lesson ----------------------------------------------------------------


@curator_view
def lesson(request: HttpRequest, lesson_id: uuid.UUID) -> HttpResponse:
    try:
        found = lesson_get(lesson_id=lesson_id, curator=True)
        lineage = lesson_lineage(lesson_id, curator=True)
    except NotFound:
        raise Http404("no such lesson") from None
    try:
        history = lesson_history(lesson_id=lesson_id)
    except NotFound:  # quarantined: no history to show
        history = [found]
    summary = provenance_summaries([found.id]).get(found.id, ProvenanceSummary())
    recalls = recall_counts([found.id]).get(found.id, 0)
    evidence = [n for n in lineage["nodes"] if n["type"] == "observation"]
    return render(request, "dashboard/lesson.html", {
        "lesson": found, "summary": summary, "history": history,
        "recalls": recalls, "lineage_svg": lineage_svg(lineage),
        "evidence": evidence, "events": lesson_events(found.id, limit=20),
    })  # fmt: skip


@require_POST
@curator_view
def lesson_action(request: HttpRequest, lesson_id: uuid.UUID, action: str) -> HttpResponse:
    if action not in CURATOR_ACTIONS:
        raise Http404("no such action")
    reason = request.POST.get("reason", "").strip()[:1000]
    target = reverse("dashboard:lesson", args=[lesson_id])
    if not reason:
        messages.error(request, "Say why (the reason is audited).")
        return _redirect(request, target)
    try:
        principal = acting_principal(request, _tenant(request))
        lesson_curate(principal=principal, lesson_id=lesson_id, action=action, reason=reason)
    except NotFound:
        raise Http404("no such lesson") from None
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return _redirect(request, target)
    messages.success(request, f"{action}: done.")
    return _redirect(request, reverse("dashboard:lessons") if action == "erase" else target)


def _redirect(request: HttpRequest, url: str) -> HttpResponse:
    if request.htmx:  # type: ignore[attr-defined]
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return HttpResponseRedirect(url)


# --- disputes ------------------------------------------------------------------


def _disputes_context() -> dict[str, Any]:
    open_disputes = list(disputes_list()[:100])
    lesson_ids = [x for d in open_disputes for x in (d.lesson_id, d.target_id)]
    summaries = provenance_summaries(lesson_ids)
    evidence = lessons_evidence(lesson_ids)
    return {
        "disputes": [
            {
                "dispute": d,
                "sides": [
                    {
                        "title": title,
                        "lesson": lesson,
                        "summary": summaries.get(lesson.id),
                        "evidence": evidence[lesson.id],
                    }
                    for title, lesson in (("existing", d.target), ("new", d.lesson))
                ],
            }
            for d in open_disputes
        ],
        "resolutions": [r for r in Resolution if r != Resolution.WITHDRAWN],
    }


@curator_view
def disputes(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/disputes.html", _disputes_context())


@require_POST
@curator_view
def dispute_resolve_view(request: HttpRequest, dispute_id: uuid.UUID) -> HttpResponse:
    resolution = request.POST.get("resolution", "")
    note = request.POST.get("note", "").strip()[:1000]
    if resolution not in Resolution.values or resolution == Resolution.WITHDRAWN:
        return HttpResponse("unknown resolution", status=400)
    try:
        principal = acting_principal(request, _tenant(request))
        dispute_resolve(
            principal=principal, dispute_id=dispute_id, resolution=resolution, note=note
        )
    except NotFound:
        raise Http404("no such dispute") from None
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Dispute resolved: {resolution.replace('_', ' ')}.")
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "dashboard/_disputes.html", _disputes_context())
    return HttpResponseRedirect(reverse("dashboard:disputes"))


# --- decisions ------------------------------------------------------------------


@curator_view
def decisions(request: HttpRequest) -> HttpResponse:
    status = "all" if request.GET.get("status") == "all" else "needs_review"
    return render(request, "dashboard/decisions.html", decisions_page(status=status))


@require_POST
@curator_view
def decision_review_view(request: HttpRequest, decision_id: uuid.UUID) -> HttpResponse:
    reason = request.POST.get("reason", "").strip()[:1000]
    if not reason:
        messages.error(request, "Say why (the reason is audited).")
    else:
        try:
            principal = acting_principal(request, _tenant(request))
            decision_review(principal=principal, decision_id=decision_id, reason=reason)
        except NotFound:
            raise Http404("no such decision") from None
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, "Decision marked reviewed.")
    return HttpResponseRedirect(reverse("dashboard:decisions"))


# --- health of memory --------------------------------------------------------------


@curator_view
def health(request: HttpRequest) -> HttpResponse:
    stats = memory_stats(_tenant(request))
    by_status = [
        (status, float(sum(kinds.values()))) for status, kinds in sorted(stats["lessons"].items())
    ]
    by_kind: dict[str, int] = {}
    for kinds in stats["lessons"].values():
        for kind, count in kinds.items():
            by_kind[kind] = by_kind.get(kind, 0) + count
    journal = journal_summary(_tenant(request))
    by_rule: dict[str, int] = {}
    for line in journal:
        by_rule[line["rule"]] = by_rule.get(line["rule"], 0) + line["count"]
    today = timezone.now().date()
    days = [today - timedelta(days=n) for n in range(DAYS - 1, -1, -1)]
    counted = learn_requests_per_day(since=days[0])
    judge = stats["judge"]
    gauntlet = gauntlet_latest_curve()
    return render(request, "dashboard/health.html", {
        "gauntlet_chart": line_chart([(f"gen {g}", float(steps)) for g, steps, _ in gauntlet],
                                     title="Gauntlet: steps per task, by generation")
        if gauntlet else None,
        "gauntlet_tokens_chart": line_chart(
            [(f"gen {g}", float(tokens)) for g, _, tokens in gauntlet],
            title="Gauntlet: tokens per task, by generation",
        ) if gauntlet else None,
        "stats": stats, "judge": judge, "journal": journal,
        "status_chart": bar_chart(by_status, title="Lessons by status"),
        "kind_chart": bar_chart(sorted((k, float(v)) for k, v in by_kind.items()),
                                title="Lessons by kind"),
        "journal_chart": bar_chart(sorted((k, float(v)) for k, v in by_rule.items()),
                                   title="Forgotten, by rule"),
        "learn_chart": line_chart([(d.strftime("%m-%d"), float(counted.get(d, 0))) for d in days],
                                  title=f"Learn requests per day, last {DAYS} days"),
    })  # fmt: skip


@curator_view
def evaluations(request: HttpRequest) -> HttpResponse:
    """The evaluation history: each gated metric across recorded runs, the
    blind figures apart from the training ones, against the baseline."""
    panels = eval_history()
    for panel in panels:
        panel["chart"] = history_chart(
            panel["series"], title=panel["title"], baseline=panel["baseline"],
            order=panel["order"],
        )  # fmt: skip
    return render(request, "dashboard/evaluations.html", {"panels": panels})


# --- tenant switch and login ---------------------------------------------------------


@require_POST
def switch_tenant(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return HttpResponseRedirect(LOGIN_URL)
    slug = request.POST.get("tenant", "")
    if slug not in [s for _, s in dashboard_tenants(request)]:
        raise Http404("no such tenant")
    request.session[SESSION_TENANT] = slug
    return HttpResponseRedirect(reverse("dashboard:feed"))
