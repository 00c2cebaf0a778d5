"""The sync runtime: the engine's sync driver, no event loop of its own.

:class:`SyncAuth` is :class:`io_bindings.anyio.Auth` for synchronous servers (WSGI,
threads): the same engine and the same rules for answering actions
(:func:`sansio_auth.drivers.sync_performer`), with outbound HTTP sent by the bindings'
h11 client on blocking sockets (:class:`~io_bindings.http.HTTPClient` over the blocking
backend: one client code, run without a loop, one per thread).

Sync callbacks and adapter methods run in the calling thread. An ``async def`` callback
or an async adapter (every ``io_bindings.db`` adapter) runs on one process-wide
background loop (:mod:`io_bindings._loop`) so its pools live on a single loop.

>>> auth = SyncAuth(config)
>>> response = auth.respond(request)      # None when not an auth route
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from sansio_auth import AuthConfig, Engine, NotAnAuthRoute, Request, Response
from sansio_auth.drivers import SyncSendHTTP, sync_performer
from sansio_auth.events import Action, Event, HTTPResponse, OutboundRequest, SendHTTP
from sansio_auth.oauth.cache import ProviderCache

from ._driver_io import log_writer
from ._loop import wait
from ._single_flight import ThreadSingleFlight
from .anyio import (
    AccessToken,
    SessionRead,
    access_token_of,
    revoked_count,
    session_read,
    session_request,
)
from .http import HTTPClient
from .http._blocking import BlockingBackend, run_blocking

__all__ = ["BlockingHTTP", "SyncAuth"]


class BlockingHTTP:
    """Sends the engine's HTTP requests from sync code: an :class:`HTTPClient` per thread
    on the blocking backend (a pool is never shared between threads)."""

    def __init__(self, env: Mapping[str, str] | None = None, **client_options: Any) -> None:
        self._env = env
        self._options = client_options
        self._local = threading.local()
        self._clients: list[HTTPClient] = []

    def client(self) -> HTTPClient:
        """This thread's client."""
        client: HTTPClient | None = getattr(self._local, "client", None)
        if client is None:
            client = HTTPClient(BlockingBackend(), proxy_env=self._env, **self._options)
            self._local.client = client
            self._clients.append(client)
        return client

    def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request``; raises :class:`~io_bindings.http.HTTPError` on failure."""
        return run_blocking(self.client().send(request))

    def close(self) -> None:
        """Close every thread's idle connections."""
        for client in self._clients:
            run_blocking(client.aclose())


class SyncAuth:
    """The runtime for sync servers: engine, clock, entropy, cache, blocking HTTP.

    ``send_http`` replaces the default :class:`BlockingHTTP` (a function from
    :class:`~sansio_auth.events.OutboundRequest` to
    :class:`~sansio_auth.events.HTTPResponse`).
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], bytes] = secrets.token_bytes,
        cache: ProviderCache | None = None,
        send_http: SyncSendHTTP | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if env is None else env
        self.engine = Engine(config, clock=clock, entropy=entropy, env=env, cache=cache)
        self.settings = self.engine.settings
        self.http: BlockingHTTP | None = None
        if send_http is None:
            self.http = BlockingHTTP(env)
            send_http = self.http.send
        self._perform = sync_performer(
            send_http=send_http, log=log_writer(self.settings.debug), wait=wait
        )
        self._single_flight = ThreadSingleFlight(clock)

    def perform(self, action: Action) -> Event:
        """Perform one action (exceptions become :class:`~sansio_auth.events.Failed`);
        requests marked ``single_flight`` go one at a time per key, sharing the response."""
        if isinstance(action, SendHTTP) and action.single_flight is not None:
            return self._single_flight.run(action.single_flight, lambda: self._perform(action))
        return self._perform(action)

    def serves(self, raw_path: str) -> bool:
        """Whether ``raw_path`` (percent-encoded, as sent) is an auth route."""
        return self.engine.serves(raw_path)

    def respond(self, request: Request) -> Response | None:
        """The response to ``request``, or ``None`` when it is not an auth route."""
        flow = self.engine.handle(request)
        if isinstance(flow, NotAnAuthRoute):
            return None
        return flow.run_sync(self.perform)

    def session(self, request: Request) -> SessionRead:
        """The session of the browser that sent ``request``, with the cookies to set."""
        return session_read(self.respond(session_request(request, self.settings.base_path)))

    def access_token(self, request: Request, *, provider: str) -> AccessToken:
        """The access token of ``provider`` for the session of ``request``, refreshed if due
        (concurrent refreshes of one token share one token-endpoint call), and the cookies
        the response to the browser must carry."""
        flow = self.engine.access_token(session_request(request, self.settings.base_path), provider)
        return access_token_of(flow.run_sync(self.perform))

    def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"), as
        :meth:`io_bindings.anyio.Auth.revoke_sessions`."""
        return revoked_count(
            self.engine.revoke_sessions(user_id=user_id, sid=sid).run_sync(self.perform)
        )

    def close(self) -> None:
        """Close the default HTTP client's idle connections."""
        if self.http is not None:
            self.http.close()
