"""The Django project of the in-process framework figures (:mod:`bench.frameworks`): one
settings module for three middleware stacks, each a WSGI handler made with its own
``MIDDLEWARE``: none but Django's common ones (the bare endpoint, and the view that only
decrypts our cookie), plus our auth ``handle`` (``request.auth()``), or plus Django's
sessions and auth with django-allauth's account middleware (``request.user``, signed in
through allauth's login view).

Each protected view answers ``{"email": ...}`` or 401, as an API view would.
"""

from __future__ import annotations

import time
from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from django.urls import include, path

from sansio_auth import jwt
from sansio_auth.authorized import signed_in

from .app import SECRET, SESSION_COOKIE, USER
from .peer_apps import authorize_bench_user

COMMON = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]
STACKS = {
    "bare": COMMON,
    "ours": [*COMMON, "bench.django_peers.auth_handle"],
    "allauth": [*COMMON, "django.contrib.sessions.middleware.SessionMiddleware",
                "django.contrib.auth.middleware.AuthenticationMiddleware",
                "allauth.account.middleware.AccountMiddleware"],
}  # fmt: skip
auth_handle: Any = None
"""Our auth ``handle`` (made by :func:`configure`, once the settings are)."""
urlpatterns: list[Any] = []
"""The views, and allauth's (set by :func:`configure`: its URLs read the settings)."""


def configure(database: str) -> None:
    """Configure Django (the SQLite file ``database`` for allauth's users and sessions)."""
    import django
    from django.conf import settings

    from io_bindings.django import DjangoAuth
    from sansio_auth import AuthConfig
    from sansio_auth.providers import Credentials

    settings.configure(
        DEBUG=False,
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS=["testserver", "127.0.0.1"],
        ROOT_URLCONF="bench.django_peers",
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth",
                        "django.contrib.sessions", "allauth", "allauth.account"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": database}},
        MIDDLEWARE=STACKS["allauth"],  # allauth checks its middleware is there
        AUTHENTICATION_BACKENDS=["allauth.account.auth_backends.AuthenticationBackend"],
        ACCOUNT_LOGIN_METHODS={"email"},
        ACCOUNT_SIGNUP_FIELDS=["email*", "password1*"],
        ACCOUNT_EMAIL_VERIFICATION="none",
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates",
                    "APP_DIRS": True, "OPTIONS": {"context_processors": [
                        "django.template.context_processors.request"]}}],
        USE_TZ=True,
    )  # fmt: skip
    django.setup()
    global auth_handle
    urlpatterns[:] = [path("<slug:name>", view), path("accounts/", include("allauth.urls"))]
    credentials: dict[str, dict[str, str]] = {"username": {}, "password": {}}
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[Credentials(authorize=authorize_bench_user, credentials=credentials)],
    )
    auth_handle = DjangoAuth(config).handle


def _unauthorized() -> JsonResponse:
    return JsonResponse({"detail": "Not signed in"}, status=401)


def bare(request: HttpRequest) -> JsonResponse:
    """The floor: no auth."""
    return JsonResponse({"email": USER["email"]})


def ours(request: HttpRequest) -> JsonResponse:
    """``request.auth()``: the session, or 401."""
    session = request.auth()  # type: ignore[attr-defined]
    if not signed_in(session):
        return _unauthorized()
    return JsonResponse({"email": session["user"]["email"]})


def decrypt(request: HttpRequest) -> JsonResponse:
    """A JWE session read in Django that decrypts on every request: Django's own cookie
    parsing and our session cookie decrypted with :func:`sansio_auth.jwt.decode`, nothing else (the
    FastAPI row's ``create_decrypt``, in this stack), or 401."""
    try:
        claims = jwt.decode(request.COOKIES.get(SESSION_COOKIE, ""), SECRET, SESSION_COOKIE,
                            now=time.time())  # fmt: skip
    except jwt.InvalidToken:
        return _unauthorized()
    return JsonResponse({"email": claims["email"]})


def allauth(request: HttpRequest) -> JsonResponse:
    """Django's ``request.user`` (django-allauth signed it in), or 401."""
    if not request.user.is_authenticated:
        return _unauthorized()
    return JsonResponse({"email": getattr(request.user, "email", None)})


VIEWS = {"bare": bare, "ours": ours, "decrypt": decrypt, "allauth": allauth}
"""The measured views by path: one URL pattern routes them all, so that none pays for the
patterns tried before its own."""


def view(request: HttpRequest, name: str) -> JsonResponse:
    """The view at ``/<name>``."""
    if name not in VIEWS:
        raise Http404(name)
    return VIEWS[name](request)
