from django.urls import path

from accounts.api import WhoAmIApi

urlpatterns = [
    path("whoami", WhoAmIApi.as_view(), name="whoami"),
]
