"""The pages: home (async), the protected account area, and sync/async session JSON."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from io_bindings.django import auth_required


async def home(request: HttpRequest) -> HttpResponse:
    """The session (read in the view, per page) and the sign-in/out buttons."""
    session = await request.auth()  # type: ignore[attr-defined]
    return render(request, "home.html", {"session": session, "error": request.GET.get("error")})


def account(request: HttpRequest) -> HttpResponse:
    """Under ``/account/``: ``protect_prefix`` lets only signed-in browsers here."""
    return render(request, "account.html", {"session": request.auth()})  # type: ignore[attr-defined]


@auth_required
def profile(request: HttpRequest) -> JsonResponse:
    """A sync view protected per view (303 to ``/auth`` without ``session.user``)."""
    return JsonResponse({"session": request.auth()})  # type: ignore[attr-defined]


@auth_required(redirect_to="/auth/signin")
async def profile_async(request: HttpRequest) -> JsonResponse:
    """The same, async."""
    return JsonResponse({"session": await request.auth()})  # type: ignore[attr-defined]


def whoami(request: HttpRequest) -> JsonResponse:
    """The session from a sync view (``null`` when signed out)."""
    return JsonResponse({"session": request.auth()})  # type: ignore[attr-defined]


async def awhoami(request: HttpRequest) -> JsonResponse:
    """The session from an async view."""
    return JsonResponse({"session": await request.auth()})  # type: ignore[attr-defined]
