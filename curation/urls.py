from django.urls import path

from curation import api

urlpatterns = [
    path("disputes", api.DisputesApi.as_view(), name="disputes"),
    path(
        "disputes/<uuid:dispute_id>/resolve",
        api.DisputeResolveApi.as_view(),
        name="dispute-resolve",
    ),
]
