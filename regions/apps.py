from django.apps import AppConfig


class RegionsConfig(AppConfig):
    """Regions: each tenant's rows in its region's PostgreSQL, and the
    directory that routes to it (docs/regions.md)."""

    name = "regions"
    verbose_name = "Regions"

    def ready(self) -> None:
        from regions.connections import install

        install()
