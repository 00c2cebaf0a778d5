"""The built-in pages under Django speak the site's language (what ``LocaleMiddleware``
chose for the request, else ``get_language()``: ``LANGUAGE_CODE``), not the browser's
``Accept-Language`` directly, through Django's own WSGI and ASGI handlers."""

from __future__ import annotations

from typing import Any

import pytest

from io_bindings.django import DjangoAuth
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from tests.io_bindings.django.handle_client import handle_client

CONFIG = AuthConfig(
    secret="django-language-secret-long-enough-0123456789",
    trust_host=True,
    providers=[Credentials(authorize=lambda credentials: None, credentials={"pin": {}})],
)
urlpatterns: list[Any] = []


@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_the_site_s_language_code_wins_over_the_browser_s(mode: str) -> None:
    handle = DjangoAuth(CONFIG).handle
    with handle_client(handle, mode, __name__, LANGUAGE_CODE="fr") as http:
        page = http.get("/auth/signin", headers={"accept-language": "de"})
    assert page.status_code == 200
    assert '<html lang="fr">' in page.text
    assert "Se connecter avec Credentials" in page.text
    assert page.headers["content-language"] == "fr"
    assert "vary" not in page.headers  # Django's language, not the header, chose it


@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_the_language_locale_middleware_chose(mode: str) -> None:
    handle = DjangoAuth(CONFIG).handle
    locale = ["django.middleware.locale.LocaleMiddleware"]
    with handle_client(handle, mode, __name__, before=locale, LANGUAGE_CODE="en-us") as http:
        assert '<html lang="en">' in http.get("/auth/signin").text
        page = http.get("/auth/error?error=AccessDenied", headers={"accept-language": "ja"})
    assert page.status_code == 403
    assert "<h1>アクセスが拒否されました</h1>" in page.text
