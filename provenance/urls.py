from django.urls import path

from provenance import api

urlpatterns = [
    path("observations", api.ObservationsApi.as_view(), name="observations"),
    path(
        "observations/<uuid:observation_id>/invalidate",
        api.ObservationInvalidateApi.as_view(),
        name="observation-invalidate",
    ),
    path("beliefs", api.BeliefsApi.as_view(), name="beliefs"),
    path("decisions", api.DecisionsApi.as_view(), name="decisions"),
    path(
        "decisions/<uuid:decision_id>/review",
        api.DecisionReviewApi.as_view(),
        name="decision-review",
    ),
    path("lessons/<uuid:lesson_id>/lineage", api.LessonLineageApi.as_view(), name="lesson-lineage"),
]
