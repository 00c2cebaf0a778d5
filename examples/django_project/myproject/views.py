"""The pages: home (async), the protected account area, and sync/async session JSON."""

from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render

from io_bindings.django import AuthHttpRequest, auth_required


async def home(request: AuthHttpRequest) -> HttpResponse:
    """The session (read in the view, per page) and the sign-in/out buttons."""
    session = await request.auth()
    context = {
        "session": session,
        "error": request.GET.get("error"),
        "oidc": "op" in request.auth.runtime.settings.providers_by_id,
    }
    return render(request, "home.html", context)


def account(request: AuthHttpRequest) -> HttpResponse:
    """Under ``/account/``: ``protect_prefix`` lets only signed-in browsers here."""
    return render(request, "account.html", {"session": request.auth()})


@auth_required
def profile(request: AuthHttpRequest) -> JsonResponse:
    """A sync view protected per view: without ``session.user``, 303 to the sign-in page
    with ``callbackUrl=/profile`` (``settings.LOGIN_URL`` when the project sets one)."""
    return JsonResponse({"session": request.auth()})


@auth_required(redirect_to="/?signin=required")
async def profile_async(request: AuthHttpRequest) -> JsonResponse:
    """The same, async, with a target of its own (used as it is: no ``callbackUrl``)."""
    return JsonResponse({"session": await request.auth()})


def whoami(request: AuthHttpRequest) -> JsonResponse:
    """The session from a sync view (``null`` when signed out)."""
    return JsonResponse({"session": request.auth()})


async def awhoami(request: AuthHttpRequest) -> JsonResponse:
    """The session from an async view."""
    return JsonResponse({"session": await request.auth()})
