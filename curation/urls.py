from django.urls import path

from curation import api

urlpatterns = [
    path("disputes", api.DisputesApi.as_view(), name="disputes"),
    path(
        "disputes/<uuid:dispute_id>/resolve",
        api.DisputeResolveApi.as_view(),
        name="dispute-resolve",
    ),
    path("curation/state", api.CurationStateApi.as_view(), name="curation-state"),
    path("curation/policies/<str:kind>", api.KindPolicyApi.as_view(), name="kind-policy"),
    path(
        "curation/corroboration-policy",
        api.CorroborationPolicyApi.as_view(),
        name="corroboration-policy",
    ),
]
