from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class ConfigConfig(AppConfig):
    """Holds the service-wide management commands (``up``, ``doctor``)."""

    name = "config"
    label = "config"
    verbose_name = "Tributary service"


class TributaryAdminConfig(AdminConfig):
    default_site = "config.admin_site.TributaryAdminSite"
