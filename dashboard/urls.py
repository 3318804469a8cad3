from django.contrib.auth import views as auth_views
from django.urls import path

from dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.feed, name="feed"),
    path("lessons/", views.lessons, name="lessons"),
    path("lessons/<uuid:lesson_id>/", views.lesson, name="lesson"),
    path("lessons/<uuid:lesson_id>/<str:action>", views.lesson_action, name="lesson-action"),
    path("disputes/", views.disputes, name="disputes"),
    path("disputes/<uuid:dispute_id>/resolve", views.dispute_resolve_view, name="dispute-resolve"),
    path("decisions/", views.decisions, name="decisions"),
    path("decisions/<uuid:decision_id>/review", views.decision_review_view, name="decision-review"),
    path("health/", views.health, name="health"),
    path("evaluations/", views.evaluations, name="evaluations"),
    path("tenant", views.switch_tenant, name="switch-tenant"),
    path(
        "login/",
        # without ?next, to the feed (Django's default is /accounts/profile/: a 404 here)
        auth_views.LoginView.as_view(
            template_name="dashboard/login.html", next_page="dashboard:feed"
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(next_page="dashboard:login"), name="logout"),
]
