"""The built-in pages in the browser's language through real servers (uvicorn, the standard
library's threaded WSGI server): the sign-in page from ``Accept-Language`` with its
fallbacks, and a rate limit's refusal whose counters live in process memory, SQLite or
Redis (``tests/support/hardening_app.py``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from live_server import csrf_token

from tests.io_bindings.email_sign_in import new_database
from tests.io_bindings.test_hardening_e2e import hardening_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=["memory", "sqlite", "redis"])
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "memory":
        yield ""
        return
    with new_database(request.param, request, tmp_path_factory) as url:
        yield url


@pytest.mark.parametrize("server", ["uvicorn", "wsgi"])
def test_pages_in_the_browser_s_language(database: str, server: str) -> None:
    account = f"ada-{uuid.uuid4().hex[:8]}"
    with (
        hardening_server(server, database) as live,
        httpx.Client(base_url=live.url, timeout=10) as client,
    ):
        failed = "/auth/signin?error=CredentialsSignin"
        swiss = client.get(failed, headers={"accept-language": "de-CH, fr;q=0.8"})
        assert '<html lang="de">' in swiss.text
        assert "<title>Anmelden</title>" in swiss.text
        assert "Die Anmeldung ist fehlgeschlagen." in swiss.text
        assert swiss.headers["content-language"] == "de"
        assert swiss.headers["vary"] == "Accept-Language"
        other = client.get(failed, headers={"accept-language": "it, es;q=0.5"})
        assert "No se pudo iniciar sesión." in other.text
        english = client.get(failed).text
        assert "Sign in failed. Check the details you provided are correct." in english

        form = {"username": account, "password": "wrong"}
        for _ in range(3):
            data = {"csrfToken": csrf_token(client), **form}
            client.post("/auth/callback/credentials", data=data)
        limited = client.post(
            "/auth/callback/credentials",
            data={"csrfToken": csrf_token(client), **form},
            headers={"accept-language": "ja"},
        )
        assert limited.status_code == 429
        assert '<html lang="ja">' in limited.text
        assert "<h1>試行回数が多すぎます</h1>" in limited.text
        assert "1 分後にもう一度お試しください。" in limited.text
