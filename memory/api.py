"""The lessons API: learn, recall, lessons. Thin views: validate, call one
service or selector, serialize."""

from __future__ import annotations

import uuid
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import IsCurator, IsReader, IsWriter
from config.rest import request_principal
from config.serializers import StrictCharField, StrictSerializer
from memory.inputs import EvidenceIn, LearnInput, RecallInput, learn_arguments, parse_wait
from memory.models import Kind, LearnRequest, LessonStatus, RequestStatus
from memory.presenters import (
    LearnRequestOut,
    LearnRequestPendingOut,
    LessonOut,
    RecallOut,
    StatsOut,
    learn_request_out,
    lesson_out_now,
    lessons_out,
    recall_answer,
    wait_for_outcome,
)
from memory.selectors import learn_request_get, lesson_history, lessons_browse
from memory.services.learn import lesson_learn
from memory.services.lessons import lesson_forget, lesson_pin, lesson_reinforce, lesson_retire
from memory.stats import memory_stats


class LearnApi(APIView):
    """Learn a lesson: recorded now, classified by a worker."""

    permission_classes = [IsWriter]
    query_parameters = frozenset({"wait"})

    InputSerializer = LearnInput

    @extend_schema(
        request=InputSerializer,
        parameters=[OpenApiParameter("wait", float, description="seconds to wait (0–30)")],
        responses={200: LearnRequestOut, 202: LearnRequestPendingOut},
        operation_id="learn",
    )
    def post(self, request: Request) -> Response:
        wait = parse_wait(request.query_params.get("wait"))
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        learn_request, _ = lesson_learn(
            principal=request_principal(request), **learn_arguments(serializer.validated_data)
        )
        body = learn_request_out(learn_request)
        response = Response(body, status=202 if body["status"] == "pending" else 200)
        return _may_wait(response, learn_request, request, wait)


class LearnRequestApi(APIView):
    """A learn request: pending, or its outcome. ``?wait=`` (0–30 s) waits
    for the worker's outcome, as ``POST /learn`` does."""

    permission_classes = [IsReader]
    query_parameters = frozenset({"wait"})

    @extend_schema(
        parameters=[OpenApiParameter("wait", float, description="seconds to wait (0–30)")],
        responses=LearnRequestOut,
        operation_id="learn_request_get",
    )
    def get(self, request: Request, request_id: uuid.UUID) -> Response:
        wait = parse_wait(request.query_params.get("wait"))
        learn_request = learn_request_get(request_id=request_id)
        return _may_wait(Response(learn_request_out(learn_request)), learn_request, request, wait)


def _may_wait(
    response: Response, learn_request: LearnRequest, request: Request, wait: float
) -> Response:
    """Mark a pending answer for the waiting view around it (see ``_waiting``)."""
    if learn_request.status == RequestStatus.PENDING and wait > 0:
        tenant_id = request_principal(request).tenant_id
        response.tributary_wait = (learn_request.id, tenant_id, wait)  # type: ignore[attr-defined]
    return response


def _waiting(view_class: type[APIView]) -> Any:
    """The view as an async one that, when it answered a pending learn
    request with ``?wait=``, waits up to that many seconds for the worker's
    outcome without holding a thread. The view itself runs in one
    transaction, committed before any waiting starts."""
    view = view_class.as_view()

    def run(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        with transaction.atomic():
            return view(request, **kwargs)  # type: ignore[no-any-return]

    @csrf_exempt
    @transaction.non_atomic_requests
    async def waiting(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        response = await sync_to_async(run)(request, **kwargs)
        pending = getattr(response, "tributary_wait", None)
        if pending is None:
            return response
        payload = await wait_for_outcome(*pending)
        return response if payload is None else JsonResponse(payload, status=200)

    # The schema generator documents DRF views only; the waiting view
    # answers what the view declares (it runs it).
    waiting.cls = view_class  # type: ignore[attr-defined]
    waiting.initkwargs = {}  # type: ignore[attr-defined]
    return waiting


learn_view = _waiting(LearnApi)  # POST /api/v1/learn
learn_request_view = _waiting(LearnRequestApi)  # GET /api/v1/learn/<id>


class RecallApi(APIView):
    permission_classes = [IsReader]

    InputSerializer = RecallInput

    @extend_schema(request=InputSerializer, responses=RecallOut, operation_id="recall")
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(recall_answer(request_principal(request), serializer.validated_data))


class LessonApi(APIView):
    def get_permissions(self) -> list[Any]:
        return [IsWriter()] if self.request.method == "DELETE" else [IsReader()]

    @extend_schema(responses=LessonOut, operation_id="lesson_get")
    def get(self, request: Request, lesson_id: uuid.UUID) -> Response:
        return Response(lesson_out_now(request_principal(request), lesson_id))

    @extend_schema(responses={204: None}, operation_id="lesson_forget")
    def delete(self, request: Request, lesson_id: uuid.UUID) -> Response:
        lesson_forget(principal=request_principal(request), lesson_id=lesson_id)
        return Response(status=204)


class LessonsListApi(APIView):
    """The tenant's lessons, newest first, narrowed by exact fields (a
    browse, not a search: ``recall`` ranks by meaning)."""

    permission_classes = [IsReader]

    class QuerySerializer(StrictSerializer):
        kind = serializers.ChoiceField(choices=Kind.choices, required=False)
        status = serializers.ChoiceField(
            choices=[s for s in LessonStatus.values if s != LessonStatus.ERASED] + ["all"],
            default=LessonStatus.ACTIVE,
        )
        situation = StrictCharField(max_length=2000, required=False)
        situation_prefix = StrictCharField(max_length=2000, required=False)
        author = StrictCharField(max_length=100, required=False)
        limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
        page = serializers.IntegerField(min_value=1, max_value=100_000, default=1)

    query_parameters = frozenset(QuerySerializer().fields)

    @extend_schema(
        parameters=[QuerySerializer],
        responses=inline_serializer(
            "LessonPage",
            {
                "results": LessonOut(many=True),
                "next_page": serializers.IntegerField(allow_null=True),
            },
        ),
        operation_id="lessons_list",
    )
    def get(self, request: Request) -> Response:
        query = self.QuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        params = query.validated_data
        rows, more = lessons_browse(
            curator=request_principal(request).has_role(Role.CURATOR),
            status=params["status"], kind=params.get("kind"), situation=params.get("situation"),
            situation_prefix=params.get("situation_prefix"), author=params.get("author"),
            page=params["page"], limit=params["limit"],
        )  # fmt: skip
        return Response(
            {
                "results": lessons_out(rows),
                "next_page": params["page"] + 1 if more else None,
            }
        )


class LessonHistoryApi(APIView):
    permission_classes = [IsReader]

    @extend_schema(responses=LessonOut(many=True), operation_id="lesson_history")
    def get(self, request: Request, lesson_id: uuid.UUID) -> Response:
        return Response(lessons_out(lesson_history(lesson_id=lesson_id)))


class LessonReinforceApi(APIView):
    permission_classes = [IsWriter]

    class InputSerializer(StrictSerializer):
        evidence = EvidenceIn(required=False)

    @extend_schema(request=InputSerializer, responses=LessonOut, operation_id="lesson_reinforce")
    def post(self, request: Request, lesson_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        lesson_reinforce(
            principal=request_principal(request), lesson_id=lesson_id,
            evidence=serializer.validated_data.get("evidence"),
        )  # fmt: skip
        return Response(lesson_out_now(request_principal(request), lesson_id))


class LessonRetireApi(APIView):
    permission_classes = [IsCurator]

    class InputSerializer(StrictSerializer):
        reason = StrictCharField(max_length=500, allow_blank=True, default="")

    @extend_schema(request=InputSerializer, responses=LessonOut, operation_id="lesson_retire")
    def post(self, request: Request, lesson_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        lesson_retire(
            principal=request_principal(request),
            lesson_id=lesson_id,
            reason=serializer.validated_data["reason"],
        )
        return Response(lesson_out_now(request_principal(request), lesson_id))


class LessonPinApi(APIView):
    """Curator: pin (``pin``) or unpin (``unpin``) a lesson. A pinned lesson
    is never decayed, expired, evicted or merged away. Audited with the
    reason."""

    permission_classes = [IsCurator]
    pinned = True

    class InputSerializer(StrictSerializer):
        reason = StrictCharField(max_length=1000)

    @extend_schema(request=InputSerializer, responses=LessonOut, operation_id="lesson_pin")
    def post(self, request: Request, lesson_id: uuid.UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        lesson_pin(
            principal=request_principal(request), lesson_id=lesson_id, pinned=self.pinned,
            reason=serializer.validated_data["reason"],
        )  # fmt: skip
        return Response(lesson_out_now(request_principal(request), lesson_id))


@extend_schema_view(post=extend_schema(operation_id="lesson_unpin"))
class LessonUnpinApi(LessonPinApi):
    pinned = False


class StatsApi(APIView):
    """Counts, learn latency, judge spend, escalation rate and latency."""

    permission_classes = [IsReader]

    @extend_schema(responses=StatsOut, operation_id="stats")
    def get(self, request: Request) -> Response:
        return Response(memory_stats(request_principal(request).tenant_id))
