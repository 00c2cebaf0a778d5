"""The Django app of :mod:`parity_apps`: its ``handle`` and its URLs (the settings name this
module as both ``MIDDLEWARE`` entry and ``ROOT_URLCONF``)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import path
from parity_apps import BASE_PATH, config

from io_bindings.django import DjangoAuth, sign_in, sign_out

assert BASE_PATH == "/auth"  # Django's default, as the others are configured
handle, _, _ = DjangoAuth(config())


async def whoami(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"session": await request.auth()})  # type: ignore[attr-defined]


async def update(request: HttpRequest) -> JsonResponse:
    new = await request.auth.update({"name": request.POST["name"]})  # type: ignore[attr-defined]
    return JsonResponse({"session": new})


urlpatterns = [
    path("whoami", whoami),
    path("signin", sign_in),
    path("signout", sign_out),
    path("update", update),
]
