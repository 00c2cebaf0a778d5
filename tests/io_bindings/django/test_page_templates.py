"""A Django project's own templates of the built-in pages (``sansio_auth/<name>.html``, as
django-allauth's ``account/login.html``): drawn from the page's context under Django's WSGI
and ASGI handlers, with the engine's status, headers and cookies; the built-in page where
the project has no template of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from io_bindings.django import DjangoAuth
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from tests.io_bindings.django.handle_client import handle_client

CONFIG = AuthConfig(
    secret="django-templates-secret-long-enough-0123456789",
    trust_host=True,
    providers=[Credentials(authorize=lambda credentials: None, credentials={"pin": {}})],
)
urlpatterns: list[Any] = []
SIGN_IN = """{% load i18n %}<h1>{% translate "Welcome back" %}: {{ page }}</h1>
{% for provider in providers %}<form method="post" action="{{ provider.callback_url }}">
<input type="hidden" name="csrfToken" value="{{ csrf_token }}">
{% for name in provider.fields %}<input name="{{ name }}">{% endfor %}
<button>{{ provider.name }}</button></form>{% endfor %}
<p>{{ request.path }} {{ error|default:"no error" }}</p>"""


def templates(directory: Path) -> list[dict[str, Any]]:
    (directory / "sansio_auth").mkdir()
    (directory / "sansio_auth" / "signin.html").write_text(SIGN_IN)
    return [
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [str(directory)],
            "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
        }
    ]


@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_the_project_s_template_draws_the_page(mode: str, tmp_path: Path) -> None:
    handle = DjangoAuth(CONFIG).handle
    with handle_client(handle, mode, __name__, TEMPLATES=templates(tmp_path)) as http:
        page = http.get("/auth/signin?error=CredentialsSignin")
        token = http.get("/auth/csrf").json()["csrfToken"]
        again = http.get("/auth/signin")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "<h1>Welcome back: signin</h1>" in page.text
    assert 'action="http://testserver/auth/callback/credentials"' in page.text
    assert '<input name="pin">' in page.text
    assert "/auth/signin CredentialsSignin" in page.text  # the request and the page's error
    assert f'name="csrfToken" value="{token}"' in again.text  # the engine's CSRF cookie's


@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_pages_without_a_template_are_the_built_in_ones(mode: str, tmp_path: Path) -> None:
    handle = DjangoAuth(CONFIG).handle
    with handle_client(handle, mode, __name__, TEMPLATES=templates(tmp_path)) as http:
        error = http.get("/auth/error?error=AccessDenied")
    assert error.status_code == 403
    assert "<h1>Access Denied</h1>" in error.text
