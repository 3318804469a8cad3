from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The curators' HTMX pages at /dashboard/."""

    name = "dashboard"
