from django.urls import path

from memory import api

urlpatterns = [
    path("learn", api.learn_view, name="learn"),
    path("learn/<uuid:request_id>", api.learn_request_view, name="learn-request"),
    path("recall", api.RecallApi.as_view(), name="recall"),
    path("stats", api.StatsApi.as_view(), name="stats"),
    path("lessons", api.LessonsListApi.as_view(), name="lessons"),
    path("lessons/<uuid:lesson_id>", api.LessonApi.as_view(), name="lesson"),
    path("lessons/<uuid:lesson_id>/history", api.LessonHistoryApi.as_view(), name="lesson-history"),
    path(
        "lessons/<uuid:lesson_id>/reinforce",
        api.LessonReinforceApi.as_view(),
        name="lesson-reinforce",
    ),
    path("lessons/<uuid:lesson_id>/retire", api.LessonRetireApi.as_view(), name="lesson-retire"),
    path("lessons/<uuid:lesson_id>/pin", api.LessonPinApi.as_view(), name="lesson-pin"),
    path("lessons/<uuid:lesson_id>/unpin", api.LessonUnpinApi.as_view(), name="lesson-unpin"),
]
