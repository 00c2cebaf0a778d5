"""The bench's routes: the auth ``handle`` (middleware) serving ``/auth/session`` through the
Django ORM store, and the bare view ``/row``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path

from bench.app import SESSION_COOKIE, database_config
from io_bindings.django import DjangoAuth
from io_bindings.django.orm import DjangoAdapter
from io_bindings.django.orm.models import Session

handle = DjangoAuth(database_config(DjangoAdapter())).handle


async def row(request: HttpRequest) -> HttpResponse:
    """A session read written by hand: the session row of the cookie with its user, in one
    query of the async ORM, as JSON."""
    found = Session.objects.select_related("user").filter(
        session_token=request.COOKIES.get(SESSION_COOKIE, "")
    )
    session = await found.afirst()
    if session is None:
        return JsonResponse(None, safe=False)
    user = {"email": session.user.email}
    return JsonResponse({"user": user, "expires": session.expires.isoformat()})


urlpatterns = [path("row", row)]
