from django.apps import AppConfig


class GauntletConfig(AppConfig):
    """The Gauntlet: a demo that measures what shared memory saves."""

    name = "gauntlet"
