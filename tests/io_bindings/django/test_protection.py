"""``auth_required`` and ``protect_prefix`` through Django's own WSGI and ASGI handlers,
followed as a browser follows them: a signed-out request lands on a working sign-in page
(200) with ``callbackUrl`` = the path it asked for — the project's ``LOGIN_URL`` when set,
else the engine's page — and an explicit ``redirect_to`` is used as it is."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path

from io_bindings.django import DjangoAuth, auth_required, protect_prefix
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from tests.io_bindings.django.handle_client import handle_client

MODES = ["wsgi", "asgi"]
CONFIG = AuthConfig(
    secret="django-protection-secret-long-enough-0123456789",
    trust_host=True,
    providers=[Credentials(authorize=lambda credentials: None, credentials={"password": {}})],
)


@auth_required
def sync_page(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"page": "sync"})


@auth_required
async def async_page(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"page": "async"})


@auth_required(redirect_to="/elsewhere")
def own_target(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"page": "own"})


def page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(f"the page at {request.path}")


protect_account = protect_prefix("/account/")
protect_everything = protect_prefix("/")
urlpatterns: list[Any] = [
    path("sync", sync_page),
    path("async", async_page),
    path("own", own_target),
    path("account/settings", page),
    path("login/", page, name="login"),
    path("elsewhere", page),
]


def serving(mode: str, protect: str = "protect_account", **settings: Any) -> Any:
    handle = DjangoAuth(CONFIG).handle
    return handle_client(handle, mode, __name__, after=[f"{__name__}.{protect}"], **settings)


def land(http: httpx.Client, path: str) -> httpx.Response:
    """Follow the redirects from ``path`` to the page they end on (which must be a 200)."""
    response = http.get(path, follow_redirects=True)
    assert response.status_code == 200, (path, response.status_code, response.text)
    assert [r.status_code for r in response.history] == [303]
    return response


@pytest.mark.parametrize("mode", MODES)
def test_the_engines_sign_in_page_by_default(mode: str) -> None:
    with serving(mode) as http:
        for path in ("/sync", "/async?tab=2", "/account/settings"):
            landed = land(http, path)
            assert landed.url.path == "/auth/signin"
            assert landed.url.params["callbackUrl"] == path
            assert "/auth/callback/credentials" in landed.text  # the engine's sign-in form


@pytest.mark.parametrize("login_url", ["/login/", "login"])  # a path or a URL name
@pytest.mark.parametrize("mode", MODES)
def test_the_projects_login_url_when_it_sets_one(mode: str, login_url: str) -> None:
    with serving(mode, LOGIN_URL=login_url) as http:
        for path in ("/sync", "/async", "/account/settings"):
            landed = land(http, path)
            assert (
                str(landed.url)
                == f"http://testserver/login/?callbackUrl={path.replace('/', '%2F')}"
            )
            assert landed.text == "the page at /login/"


@pytest.mark.parametrize("mode", MODES)
def test_an_explicit_target_wins(mode: str) -> None:
    with serving(mode, LOGIN_URL="/login/") as http:
        assert land(http, "/own").url == "http://testserver/elsewhere"


@pytest.mark.parametrize("mode", MODES)
def test_the_login_page_itself_is_never_redirected(mode: str) -> None:
    with serving(mode, "protect_everything", LOGIN_URL="/login/") as http:
        assert http.get("/login/").text == "the page at /login/"
        assert land(http, "/elsewhere").url.path == "/login/"


def test_a_custom_sign_in_page_of_the_config() -> None:
    custom = AuthConfig(
        secret=CONFIG.secret,
        trust_host=True,
        providers=CONFIG.providers,
        pages={"sign_in": "/login/"},
    )
    handle = DjangoAuth(custom).handle
    with handle_client(handle, "wsgi", __name__) as http:
        assert http.get("/sync").headers["location"] == "/login/?callbackUrl=%2Fsync"


def test_the_former_names_are_aliases() -> None:
    import io_bindings.django as django_binding

    assert django_binding.AdapterCAuth is django_binding.DjangoAuth
    assert django_binding.AdapterCAuthConfig is django_binding.DjangoAuthConfig is AuthConfig
    assert django_binding.AdapterCAuthResult is django_binding.DjangoAuthResult
