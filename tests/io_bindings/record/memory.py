"""Recording in memory: a test browser whose requests go through a recording runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from io_bindings.anyio import Auth
from io_bindings.record import Recorder
from io_bindings.sync import SyncAuth
from sansio_auth import AuthConfig, Request, Response
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.providers import Credentials
from sansio_auth.testing import Performer
from tests.sansio_auth.driver import SECRET, Browser, Clock, seeded_entropy, users
from tests.sansio_auth.oauth.fake_op import FakeOP

ANN = {"id": "1", "name": "Ann", "email": "ann@example.com", "username": "ann", "password": "pw"}
PASSWORD = "pw-not-in-any-file"


class FakeTransport:
    """The runtime's HTTP transport answered by a :class:`FakeOP`."""

    def __init__(self, op: FakeOP) -> None:
        self.op = op

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        return self.op.handle(request)


class RuntimeBrowser(Browser):
    """The test browser, served by a runtime's ``respond`` (anyio's run to completion)."""

    def __init__(self, auth: Auth | SyncAuth, clock: Clock) -> None:
        super().__init__(auth.engine, Performer(), clock, "http://localhost:3000")
        self.auth = auth

    def send(self, request: Request) -> Response:
        if isinstance(self.auth, SyncAuth):
            response = self.auth.respond(request)
        else:
            response = anyio.run(self.auth.respond, request)
        assert response is not None
        self.store(response)
        self.history.append((request, response))
        self.url = request.url
        return response


def config(op: FakeOP | None = None, **options: Any) -> AuthConfig:
    """Credentials (ann / PASSWORD) and, given ``op``, its OIDC provider ``op``."""
    account = dict(ANN, password=PASSWORD)
    providers: list[Any] = [Credentials(authorize=users(account))]
    if op is not None:
        providers.append(op.provider())
    options.setdefault("events", {"sign_in": lambda **message: None})
    return AuthConfig(secret=SECRET, trust_host=True, providers=providers, **options)


def recording_browser(
    path: Path,
    auth_config: AuthConfig,
    op: FakeOP | None = None,
    *,
    redact: bool = True,
    redact_emails: bool = False,
    sync: bool = False,
) -> tuple[RuntimeBrowser, Recorder]:
    """A browser whose every request is recorded to ``path`` (through the anyio runtime,
    or with ``sync`` the sync one)."""
    clock = Clock()
    if op is not None:
        op.clock = clock
    recorder = Recorder(path, redact=redact, redact_emails=redact_emails)
    peer = op or FakeOP()
    entropy = seeded_entropy()
    auth: Auth | SyncAuth
    if sync:
        auth = recorder.sync_auth(auth_config, clock=clock, entropy=entropy, send_http=peer.handle)
    else:
        auth = recorder.auth(
            auth_config, clock=clock, entropy=entropy, transport=FakeTransport(peer)
        )
    return RuntimeBrowser(auth, clock), recorder
