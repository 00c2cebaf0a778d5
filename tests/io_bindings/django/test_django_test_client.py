"""Django's own test clients (``django.test.Client``, ``AsyncClient``) against a project with
the ORM store, the ``Password`` provider and ``request.user``: a user made by
``User.objects.create_user(..., "pw")`` signs in with that password through the engine's
form (the test client's cookie jar keeps the engine's cookies), Django's hashers check and
upgrade the hash, a sign-up's password is one Django's ``check_password`` accepts,
``@login_required``'s ``?next=`` is where the sign-in lands, and Django's ``logout()``
ends the session (JWT and database sessions alike)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import django_db
import pytest
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from django.contrib.auth import alogout, get_user_model, logout, signals
from django.contrib.auth.decorators import login_required
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.test import AsyncClient, Client, override_settings
from django.urls import path

from io_bindings.django import DjangoAuth, sequence
from io_bindings.django.orm import DjangoAdapter
from io_bindings.django.orm.models import Session
from io_bindings.django.testing import aforce_login, force_login
from sansio_auth import AuthConfig, AuthError
from sansio_auth.providers import Password
from tests.io_bindings.django.handle_client import hook

SECRET = "django-test-client-secret-that-is-long-enough-01234"
User = get_user_model()
STRATEGIES = ["database", "jwt"]
FAST = ["django.contrib.auth.hashers.MD5PasswordHasher"]
UPGRADED = [f"{__name__}.FastPBKDF2", *FAST]


class FastPBKDF2(PBKDF2PasswordHasher):
    """Django's ``pbkdf2_sha256``, at a cost for tests."""

    iterations = 1000


def who(user: Any) -> dict[str, Any]:
    return {"username": user.get_username() or None, "authenticated": user.is_authenticated}


def me(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(request.user))


async def ame(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(await request.auser()))


@login_required
def private(request: HttpRequest) -> JsonResponse:
    return JsonResponse(who(request.user))


def log_out(request: HttpRequest) -> HttpResponse:
    logout(request)
    return JsonResponse(who(request.user))


async def alog_out(request: HttpRequest) -> HttpResponse:
    await alogout(request)
    return JsonResponse(who(await request.auser()))


urlpatterns: list[Any] = [
    path("me", me),
    path("ame", ame),
    path("private/", private),
    path("logout", log_out),
    path("alogout", alog_out),
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "tests.io_bindings.django.handle_client.hook",
    "io_bindings.django.users.AuthenticationMiddleware",
]


class Outbox:
    """The provider's e-mails, kept."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def __call__(self, **message: Any) -> None:
        self.sent.append(message)


@pytest.fixture
def alias(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database, Django's ``default`` too (its sessions, the test client's)."""
    alias = django_db.fresh_database("sqlite", request, tmp_path)
    with django_db.as_default(alias):
        yield alias


def config(alias: str, strategy: str, **password: Any) -> AuthConfig:
    options = {"send_email": Outbox(), "require_verified_email": False, **password}
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=DjangoAdapter(alias),
        session={"strategy": strategy},
        providers=[Password(**options)],
    )


@pytest.fixture
def project(alias: str) -> Iterator[None]:
    """The URLs above behind the handle of the test (``serve``), Django's hashers fast."""
    with override_settings(
        ROOT_URLCONF=__name__,
        MIDDLEWARE=MIDDLEWARE,
        LOGIN_URL="/auth/signin",
        ALLOWED_HOSTS=["testserver"],
        PASSWORD_HASHERS=FAST,
    ):
        yield


def serve(auth_config: AuthConfig) -> None:
    hook.handle = DjangoAuth(auth_config).handle


def make_user(alias: str, email: str = "ada@example.com", password: str = "pw") -> Any:
    return User.objects.db_manager(alias).create_user(email.split("@")[0], email, password)


def sign_in(client: Client, email: str, password: str, **extra: str) -> Any:
    csrf = client.get("/auth/csrf").json()["csrfToken"]
    fields = {"csrfToken": csrf, "email": email, "password": password, **extra}
    return client.post("/auth/callback/password", fields)


@pytest.mark.usefixtures("project")
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_django_user_signs_in_with_their_password(alias: str, strategy: str) -> None:
    ada = make_user(alias)
    serve(config(alias, strategy))
    client = Client()
    wrong = sign_in(client, "ada@example.com", "not it")
    assert "error=CredentialsSignin" in wrong.headers["location"]
    assert client.get("/me").json()["authenticated"] is False
    done = sign_in(client, "ada@example.com", "pw")
    assert done.status_code == 302, done.content
    assert "error" not in done.headers["location"]
    assert client.get("/me").json() == {"username": "ada", "authenticated": True}
    assert client.get("/ame").json() == {"username": "ada", "authenticated": True}
    ada.refresh_from_db()
    assert ada.password.startswith("md5$")  # the preferred hasher's already: left alone


@pytest.mark.usefixtures("project")
def test_a_sign_in_upgrades_the_hash_as_django_does(alias: str) -> None:
    ada = make_user(alias)
    serve(config(alias, "database"))
    with override_settings(PASSWORD_HASHERS=UPGRADED):  # another preferred hasher
        assert "error" not in sign_in(Client(), "ada@example.com", "pw").headers["location"]
        ada.refresh_from_db()
        assert ada.password.startswith("pbkdf2_sha256$1000$")
        assert ada.check_password("pw")
    # pbkdf2_sha256 no longer listed: Django cannot read the hash, the engine can (replaced)
    assert "error" not in sign_in(Client(), "ada@example.com", "pw").headers["location"]
    ada.refresh_from_db()
    assert ada.password.startswith("md5$")
    assert "error=Cred" in sign_in(Client(), "ada@example.com", "pw!").headers["location"]


@pytest.mark.usefixtures("project")
def test_the_async_client_signs_in_too(alias: str) -> None:
    make_user(alias)
    serve(config(alias, "jwt"))

    async def visit() -> dict[str, Any]:
        client = AsyncClient()
        csrf = (await client.get("/auth/csrf")).json()["csrfToken"]
        fields = {"csrfToken": csrf, "email": "ada@example.com", "password": "pw"}
        done = await client.post("/auth/callback/password", fields)
        assert done.status_code == 302, done.content
        return (await client.get("/ame")).json()  # type: ignore[no-any-return]

    import asyncio

    assert asyncio.run(visit()) == {"username": "ada", "authenticated": True}


@pytest.mark.usefixtures("project")
def test_a_sign_up_sets_a_password_djangos_check_accepts(alias: str) -> None:
    serve(config(alias, "database"))
    client = Client()
    csrf = client.get("/auth/csrf").json()["csrfToken"]
    fields = {"csrfToken": csrf, "email": "bea@example.com", "password": "a long passphrase 7"}
    assert client.post("/auth/signup", fields).status_code == 302
    bea = User.objects.using(alias).get(email="bea@example.com")
    assert bea.password.startswith("md5$")  # PASSWORD_HASHERS' first: Django's own format
    assert bea.check_password("a long passphrase 7")
    assert not bea.check_password("a long passphrase 8")


@pytest.mark.usefixtures("project")
def test_login_requireds_next_is_where_the_sign_in_lands(alias: str) -> None:
    make_user(alias)
    serve(config(alias, "jwt"))
    client = Client()
    sent = client.get("/private/")
    assert sent.headers["location"] == "/auth/signin?next=/private/"
    page = client.get(sent.headers["location"])
    assert page.status_code == 200
    assert client.cookies["authjs.callback-url"].value == "http://testserver/private/"
    done = sign_in(client, "ada@example.com", "pw")
    assert done.headers["location"] == "http://testserver/private/"
    assert client.get("/private/").json()["username"] == "ada"


@pytest.mark.usefixtures("project")
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("view", ["/logout", "/alogout"])
def test_djangos_logout_ends_the_session(alias: str, strategy: str, view: str) -> None:
    make_user(alias)
    serve(config(alias, strategy))
    client = Client()
    sign_in(client, "ada@example.com", "pw")
    session_cookie = client.cookies["authjs.session-token"].value
    assert client.get("/me").json()["authenticated"] is True
    out = client.post(view)
    assert out.json() == {"username": None, "authenticated": False}  # in the view already
    deleted = out.cookies["authjs.session-token"]
    assert (deleted.value, deleted.output().count("Max-Age=0")) == ("", 1)
    assert client.get("/me").json()["authenticated"] is False
    assert client.get("/auth/session").json() is None
    # the old cookie, replayed: a database session's row is gone
    stale = Client()
    stale.cookies["authjs.session-token"] = session_cookie
    if strategy == "database":
        assert stale.get("/me").json()["authenticated"] is False
        assert not Session.objects.using(alias).exists()


hooks: Any = None
"""A ``MIDDLEWARE`` entry for :func:`force_login` to find its handle in."""


@pytest.mark.usefixtures("project")
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_force_login_makes_a_real_session(
    alias: str, strategy: str, received_logins: list[Any]
) -> None:
    global hooks
    ada = make_user(alias)
    auth = DjangoAuth(config(alias, strategy))
    hooks = sequence(auth.handle)
    with override_settings(MIDDLEWARE=[*MIDDLEWARE[:1], f"{__name__}.hooks", *MIDDLEWARE[2:]]):
        client = Client()
        force_login(client, ada)
        assert client.get("/me").json() == {"username": "ada", "authenticated": True}
        session = client.get("/auth/session").json()
        assert session["user"]["email"] == "ada@example.com"
        assert received_logins == [ada.pk]  # user_logged_in, as Django's force_login sends it
        if strategy == "database":
            assert Session.objects.using(alias).filter(user=ada).count() == 1
        client.post("/logout")
        assert client.get("/me").json()["authenticated"] is False
        with pytest.raises(AuthError, match="no user with id"):
            force_login(Client(), {"id": "4040"})


@pytest.mark.usefixtures("project")
def test_aforce_login_with_the_async_client(alias: str) -> None:
    ada = make_user(alias)
    serve(config(alias, "jwt"))

    async def visit() -> Any:
        client = AsyncClient()
        await aforce_login(client, ada, handle=hook.handle)
        return (await client.get("/ame")).json()

    import asyncio

    assert asyncio.run(visit()) == {"username": "ada", "authenticated": True}


@pytest.fixture
def received_logins() -> Iterator[list[Any]]:
    seen: list[Any] = []

    def logged_in(sender: Any, user: Any, **_: Any) -> None:
        seen.append(user.pk)

    signals.user_logged_in.connect(logged_in)
    yield seen
    signals.user_logged_in.disconnect(logged_in)
