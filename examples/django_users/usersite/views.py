"""The pages: home (async, ``await request.auser()``), the account page (``login_required``,
``request.user`` and what the store keeps for it) and the signed-in user as JSON."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from members.models import User

from io_bindings.django import AuthHttpRequest


async def home(request: AuthHttpRequest) -> HttpResponse:
    """Who is signed in, and the sign-in or sign-out buttons."""
    user = await request.auser()
    oidc = "op" in request.auth.runtime.settings.providers_by_id
    return render(request, "home.html", {"user": user, "oidc": oidc})


@login_required  # to LOGIN_URL?next=/account/, and back here once signed in
def account(request: HttpRequest) -> HttpResponse:
    """The member's page: their linked accounts, passkeys and sessions."""
    user = request.user
    context = {
        "accounts": user.auth_accounts.all(),  # type: ignore[union-attr]
        "passkeys": user.auth_authenticators.all(),  # type: ignore[union-attr]
        "sessions": user.auth_sessions.count(),  # type: ignore[union-attr]
    }
    return render(request, "account.html", context)


def whoami(request: HttpRequest) -> JsonResponse:
    """The signed-in user (sync view): ``request.user`` as JSON."""
    user = request.user
    if not isinstance(user, User):
        return JsonResponse({"user": None})
    fields = {"id": user.pk, "email": user.email, "name": user.name, "staff": user.is_staff}
    return JsonResponse({"user": fields})
