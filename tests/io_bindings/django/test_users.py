"""``request.user`` and ``await request.auser()`` from the sansio-auth session, through Django's
own WSGI and ASGI handlers: ``login_required`` and ``permission_required`` see the sign-in,
an inactive or unknown user is anonymous, ids of another store never name a Django user, and
a sign-in and sign-out through the engine send ``user_logged_in`` (``last_login`` set) and
``user_logged_out`` with the request being served."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import django_db
import httpx
import pytest
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from django.contrib.auth import get_user_model, signals
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.models import Permission
from django.http import HttpRequest, JsonResponse
from django.urls import path

from io_bindings.db.memory import MemoryAdapter
from io_bindings.django import DjangoAuth
from io_bindings.django.orm import DjangoAdapter
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from tests.io_bindings.django.handle_client import handle_client

MODES = ["wsgi", "asgi"]
SECRET = "django-users-secret-that-is-long-enough-0123456789"
SESSION = "authjs.session-token"
User = get_user_model()


def who(user: Any) -> dict[str, Any]:
    return {"username": user.get_username() or None, "authenticated": user.is_authenticated}


def me(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(request.user))


async def ame(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(await request.auser()))


@login_required(login_url="/login")
def private(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(request.user))


@permission_required("auth.view_user", raise_exception=True)
def staff_only(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(request.user))


urlpatterns: list[Any] = [
    path("me", me),
    path("ame", ame),
    path("private", private),
    path("staff", staff_only),
]
AFTER = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "io_bindings.django.users.AuthenticationMiddleware",
]


@pytest.fixture
def alias(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database, Django's ``default`` too (its permissions, sessions)."""
    alias = django_db.fresh_database("sqlite", request, tmp_path)
    with django_db.as_default(alias):
        yield alias


def make_user(alias: str, username: str, **fields: Any) -> Any:
    user = User(username=username, email=f"{username}@example.com", **fields)
    user.set_password("pw")
    user.save(using=alias)
    return user


def serve(mode: str, config: AuthConfig) -> Any:
    return handle_client(DjangoAuth(config).handle, mode, __name__, after=AFTER)


def database_sessions(alias: str) -> AuthConfig:
    return AuthConfig(secret=SECRET, trust_host=True, adapter=DjangoAdapter(alias))


def session_for(alias: str, user: Any) -> str:
    token = uuid.uuid4().hex
    expires = datetime.now(UTC) + timedelta(days=30)  # fresh: not slid, no cookie re-issued
    user.auth_sessions.create(session_token=token, expires=expires)
    return f"{SESSION}={token}"


def get(http: httpx.Client, path: str, cookie: str | None = None) -> httpx.Response:
    return http.get(path, headers={} if cookie is None else {"cookie": cookie})


@pytest.mark.parametrize("mode", MODES)
def test_request_user_is_the_sessions_django_user(alias: str, mode: str) -> None:
    ada = make_user(alias, "ada")
    cookie = session_for(alias, ada)
    with serve(mode, database_sessions(alias)) as http:
        for page in ("/me", "/ame", "/private"):
            assert get(http, page, cookie).json() == {"username": "ada", "authenticated": True}
        for page in ("/me", "/ame"):
            assert get(http, page).json() == {"username": None, "authenticated": False}
        assert get(http, "/private").headers["location"] == "/login?next=/private"
        assert get(http, "/staff", cookie).status_code == 403
        ada.user_permissions.add(Permission.objects.using(alias).get(codename="view_user"))
        assert get(http, "/staff", cookie).json()["username"] == "ada"
        User.objects.using(alias).filter(pk=ada.pk).update(is_active=False)
        assert get(http, "/me", cookie).json()["authenticated"] is False


@pytest.fixture
def received() -> Iterator[list[tuple[str, Any, Any]]]:
    """``(signal, request, user)`` of each ``user_logged_in`` / ``user_logged_out`` sent."""
    seen: list[tuple[str, Any, Any]] = []

    def logged_in(sender: Any, request: Any, user: Any, **_: Any) -> None:
        seen.append(("in", request, user))

    def logged_out(sender: Any, request: Any, user: Any, **_: Any) -> None:
        seen.append(("out", request, user))

    signals.user_logged_in.connect(logged_in)
    signals.user_logged_out.connect(logged_out)
    yield seen
    signals.user_logged_in.disconnect(logged_in)
    signals.user_logged_out.disconnect(logged_out)


def password_sign_in(alias: str) -> AuthConfig:
    """JWT sessions of Django users: ``authorize`` checks the Django password."""

    async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
        found = User.objects.db_manager(alias).filter(username=credentials.get("username"))
        user = await found.afirst()
        if user is None or not await user.acheck_password(credentials.get("password")):
            return None
        return {"id": str(user.pk), "name": user.get_username(), "email": user.email}

    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=DjangoAdapter(alias),
        session={"strategy": "jwt"},
        providers=[Credentials(authorize=authorize, credentials={"username": {}, "password": {}})],
    )


def post_form(http: httpx.Client, path: str, **fields: str) -> httpx.Response:
    csrf = http.get("/auth/csrf").json()["csrfToken"]
    return http.post(path, data={"csrfToken": csrf, **fields})


@pytest.mark.parametrize("mode", MODES)
def test_signing_in_and_out_sends_djangos_signals(
    alias: str, mode: str, received: list[tuple[str, Any, Any]]
) -> None:
    ada = make_user(alias, "ada")
    with serve(mode, password_sign_in(alias)) as http:
        wrong = post_form(http, "/auth/callback/credentials", username="ada", password="no")
        assert "error=CredentialsSignin" in wrong.headers["location"]
        assert received == []
        done = post_form(http, "/auth/callback/credentials", username="ada", password="pw")
        assert done.status_code == 302, done.text
        assert http.get("/ame").json() == {"username": "ada", "authenticated": True}
        post_form(http, "/auth/signout")
        assert http.get("/me").json()["authenticated"] is False
    assert [(kind, user.pk) for kind, _, user in received] == [("in", ada.pk), ("out", ada.pk)]
    for _, request, _ in received:
        assert isinstance(request, HttpRequest)
        assert request.path.startswith("/auth/")
    assert User.objects.using(alias).get(pk=ada.pk).last_login is not None  # Django's receiver


@pytest.mark.parametrize("mode", MODES)
def test_another_stores_user_ids_are_never_django_users(alias: str, mode: str) -> None:
    """With another store the session's user id is that store's: it names no Django user,
    even when it reads as one of their primary keys."""
    ada = make_user(alias, "ada")
    memory = MemoryAdapter()
    eve = {"id": str(ada.pk), "email": "eve@example.com", "email_verified": None}
    memory.store.create_user(eve)
    expires = datetime.now(UTC) + timedelta(days=30)
    memory.store.create_session({"session_token": "t", "user_id": eve["id"], "expires": expires})
    config = AuthConfig(secret=SECRET, trust_host=True, adapter=memory)
    with serve(mode, config) as http:
        assert get(http, "/me", f"{SESSION}=t").json()["authenticated"] is False
