from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Lessons"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from memory import search_cost
        from memory.models import SearchCalibration

        # A threshold recorded in this process is in force here at once.
        post_save.connect(search_cost.forget, sender=SearchCalibration)
        post_delete.connect(search_cost.forget, sender=SearchCalibration)
