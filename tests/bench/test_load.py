"""The load generators against a real uvicorn: wrk and the asyncio fallback count requests,
and refuse to report a rate when the server answers anything but 200."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import anyio
import pytest

from bench import load
from bench.http_load import requests_per_second as asyncio_client
from bench.load import Target, first_visit, pooled, requests_per_second
from bench.servers import copies_of, running, uvicorn

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The bench's auth app on the pure-Python stack; its base URL."""
    with running({"app": uvicorn("bench.app:create_app", "h11 + asyncio")}) as urls:
        yield urls["app"]


def test_the_asyncio_client_counts_keep_alive_requests(server: str) -> None:
    rate = anyio.run(asyncio_client, server + "/auth/csrf", "", 0.3)
    assert rate > 10


def test_the_asyncio_client_refuses_a_non_200(server: str) -> None:
    with pytest.raises(RuntimeError, match="unexpected response"):
        anyio.run(asyncio_client, server + "/not-auth", "", 0.3)


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk not installed (make bench does)")
def test_wrk_measures_and_refuses_failed_requests(server: str) -> None:
    assert requests_per_second(Target(server + "/auth/csrf"), 1) > 10
    with pytest.raises(RuntimeError, match="failed requests"):
        requests_per_second(Target(server + "/not-auth"), 1)


def test_the_first_visit_checks_the_answer_and_keeps_the_cookies_set(server: str) -> None:
    with pytest.raises(RuntimeError, match="unexpected answer"):
        first_visit(server + "/auth/csrf", "", lambda body: "user" in body, keep=True)
    kept = first_visit(server + "/auth/csrf", "a=1", lambda body: "csrfToken" in body, keep=True)
    names = [pair.split("=")[0] for pair in kept.cookie.split("; ")]
    assert names == ["a", "authjs.csrf-token"]
    fresh = first_visit(server + "/auth/csrf", "", lambda body: "csrfToken" in body, keep=False)
    assert fresh.cookie == ""


def test_without_wrk_the_bench_runs_the_asyncio_client(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load, "generator", lambda: "asyncio client")
    assert load.requests_per_second(Target(server + "/auth/csrf"), 0.3) > 10
    with pytest.raises(RuntimeError, match="unexpected response"):
        load.requests_per_second(Target(server + "/not-auth"), 0.3)


def test_copies_of_a_server_are_processes_of_their_own_and_their_rounds_kept_apart() -> None:
    servers = {"app": uvicorn("bench.app:create_app", "h11 + asyncio")}
    with running(copies_of(servers, 2)) as urls:
        assert list(urls) == [("app", 0), ("app", 1)]
        assert urls["app", 0] != urls["app", 1]
        for url in urls.values():
            first_visit(url + "/auth/csrf", "", lambda body: "csrfToken" in body, keep=False)
    rates = {("a", 0): [1.0, 5.0], ("a", 1): [3.0], ("b", 0): [2.0]}
    assert pooled(rates) == {"a": [[1.0, 5.0], [3.0]], "b": [[2.0]]}
