"""The demo OpenID Provider as a tool (``python -m io_bindings.demo_op``, ``serving()``):
it prints its fixed client credentials (changed by flags or the environment) and says it is
not for production; an app configured as the banner says signs in through it over real
HTTP; Ctrl-C stops it."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx
import pytest
from live_server import ROOT, LiveServer, free_port, serve

from io_bindings.anyio import AuthApp
from io_bindings.demo_op import CLIENT_ID, CLIENT_SECRET, demo_provider, serving
from sansio_auth import AuthConfig

pytestmark = pytest.mark.e2e
COMMAND = [sys.executable, "-m", "io_bindings.demo_op"]


@contextmanager
def demo_op(*args: str, env: dict[str, str] | None = None) -> Iterator[LiveServer]:
    port = free_port()
    with serve([*COMMAND, "--port", str(port), *args], port, env=env) as live:
        yield live


def banner(live: LiveServer) -> dict[str, str]:
    """The ``name value`` lines of the banner."""
    return dict(re.findall(r"^  (issuer|client_id|client_secret) +(\S+)$", live.log, re.M))


async def sign_in(provider: dict[str, Any], email: str) -> Any:
    """Sign in through the demo provider's consent page, as a browser: the app in process,
    the provider over HTTP (the engine reaches it over HTTP too). The session."""
    app = AuthApp(AuthConfig(secret="d" * 32, trust_host=True, providers=[provider]))
    transport = httpx.ASGITransport(app=app)
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://localhost") as browser,
        httpx.AsyncClient() as at_provider,
    ):
        token = (await browser.get("/auth/csrf")).json()["csrfToken"]
        start = await browser.post("/auth/signin/demo-op", data={"csrfToken": token})
        authorize = start.headers["location"]
        assert "Demo provider" in (await at_provider.get(authorize)).text  # the consent page
        consent = dict(parse_qsl(urlsplit(authorize).query))
        form = {**consent, "decision": "allow", "name": "Ann", "email": email}
        answer = await at_provider.post(authorize.split("?")[0], data=form)
        callback = await browser.get(answer.headers["location"])
        assert callback.status_code == 302, callback.text
        session = (await browser.get("/auth/session")).json()
    await app.auth.aclose()
    return session


def test_the_command_prints_its_credentials_and_an_app_signs_in_through_it() -> None:
    with demo_op() as live:
        printed = banner(live)
        assert printed == {
            "issuer": live.url,
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
        }
        assert "never for production" in live.log
        assert f"AuthConfig(providers=[demo_provider('{live.url}')], ...)" in live.log
        assert f"Listening on {live.url}; press Ctrl-C to stop." in live.log
        session = anyio.run(sign_in, demo_provider(live.url), "ann@example.com")
        assert session["user"] == {"name": "Ann", "email": "ann@example.com"}


def test_ctrl_c_stops_it() -> None:
    with demo_op() as live:
        live.process.send_signal(signal.SIGINT)
        assert live.process.wait(timeout=15) == 0
        assert live.log.endswith("press Ctrl-C to stop.\nThe demo provider stopped.\n")
        port = int(live.url.rsplit(":", 1)[1])
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), 1).close()


def test_flags_and_the_environment_set_the_credentials() -> None:
    env = {"DEMO_OP_CLIENT_SECRET": "from-the-environment"}
    with demo_op("--client-id", "my-app", env=env) as live:
        assert banner(live) == {
            "issuer": live.url,
            "client_id": "my-app",
            "client_secret": "from-the-environment",
        }
        assert "client_id='my-app', client_secret='from-the-environment'" in live.log
        right = demo_provider(live.url, client_id="my-app", client_secret="from-the-environment")
        assert anyio.run(sign_in, right, "bo@example.com")["user"]["email"] == "bo@example.com"
        wrong = demo_provider(live.url)  # the default credentials: refused by the token endpoint
        assert anyio.run(sign_in_refused, wrong)


async def sign_in_refused(provider: dict[str, Any]) -> bool:
    try:
        await sign_in(provider, "eve@example.com")
    except AssertionError:
        return True
    return False


def test_serving_in_a_test() -> None:
    with serving() as op:
        assert (op.client_id, op.client_secret) == (CLIENT_ID, CLIENT_SECRET)
        discovery = httpx.get(f"{op.issuer}/.well-known/openid-configuration").json()
        assert discovery["issuer"] == op.issuer
        assert anyio.run(sign_in, op.provider(), "cy@example.com")["user"]["name"] == "Ann"
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{op.issuer}/jwks")


def test_help_and_a_busy_port() -> None:
    shown = subprocess.run([*COMMAND, "--help"], capture_output=True, text=True, check=True)
    assert "Never use it in production" in " ".join(shown.stdout.split())
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*COMMAND, "--port", str(port)], capture_output=True, text=True, check=False, cwd=ROOT
        )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"demo_op: port {port} on 127.0.0.1 is not free (Address already in use); "
        f"pick another with --port, e.g. --port {port + 1}"
    ]
