"""The app every node of the fleet serves (``uvicorn soak.cluster.app:app --workers 2``).

Two sign-ins on one OpenID Provider, each with a refresh token the OP rotates:

* under ``/auth``: **database sessions** in PostgreSQL (users, accounts and their tokens,
  sessions), refreshed with a compare-and-swap on the account row;
* under ``/jwt/auth``: **JWT sessions** (the token state in the cookie) that can be revoked,
  users and accounts in a PostgreSQL database of their own.

Both keep their revocation and logout-token marks (:class:`MarksInRedis`), their single
flight and their rate-limit counters in Redis. Beside the
auth routes each serves ``GET <prefix>/api/token`` (the provider's access token, refreshed
when due: ``{"token", "node"}``), ``POST <prefix>/api/revoke`` ("sign out everywhere":
``{"revoked"}``) and ``GET /health`` (liveness only: a node whose stores are down still
answers, so the load balancer never takes the whole fleet out at once). Every answer carries
``x-fleet-node``, and so does every request to the OP (its ledger says who asked).

Configured by the JSON file named in ``FLEET_CONFIG`` (see :class:`NodeConfig`).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import anyio
import msgspec

from io_bindings.anyio import Auth, AuthApp
from io_bindings.db.postgres import PostgresAdapter
from io_bindings.db.redis import RedisAdapter
from io_bindings.http import AnyioBackend, HTTPClient
from io_bindings.translate import Receive, Scope, Send, request_from_scope
from sansio_auth import AuthConfig
from sansio_auth.events import HTTPResponse, OutboundRequest

PROVIDER_ID = "op"
NODE_HEADER = "x-fleet-node"
PREFIXES = {"database": "", "jwt": "/jwt"}
"""Strategy → the path prefix of its site (its auth routes are under ``<prefix>/auth``)."""


class NodeConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What one node is told (written by :mod:`soak.cluster.fleet`)."""

    node: str
    secrets: list[str]
    """Newest first: the first encrypts, all decrypt (a secret roll changes this list)."""
    public_url: str
    """The load balancer's URL: each site's ``AUTH_URL`` is it plus ``<prefix>/auth``."""
    postgres: dict[str, str]
    """Strategy → the DSN of its database."""
    redis: str
    issuer: str
    clients: dict[str, list[str]]
    """Strategy → ``[client_id, client_secret]`` of its client at the OP."""
    update_age: int
    revocation_cache_ttl: float
    refresh_skew: int
    pool_size: int = 4
    pool_timeout: float = 3.0
    """Seconds a request waits for a PostgreSQL connection before it fails closed."""
    stall: str = ""
    """The fault hook's file (see :class:`TaggedTransport`)."""


class MarksInRedis:
    """An adapter that is ``postgres`` except for the revocation and logout-token marks,
    which are kept in ``redis``: every node must see them within a second, and they expire."""

    def __init__(self, postgres: PostgresAdapter, redis: RedisAdapter) -> None:
        self.postgres, self.redis = postgres, redis

    def __getattr__(self, name: str) -> Any:
        return getattr(self.postgres, name)

    async def set_sessions_not_before(self, *args: Any) -> None:
        await self.redis.set_sessions_not_before(*args)

    async def get_sessions_not_before(self, *args: Any) -> Any:
        return await self.redis.get_sessions_not_before(*args)

    async def aclose(self) -> None:
        await self.postgres.aclose()
        await self.redis.aclose()


class TaggedTransport:
    """Our HTTP client, naming this node in every request (for the OP's ledger).

    The soak's fault hook: while the file ``stall`` exists, a refresh-token grant is not
    sent: the node writes ``stalled`` and waits there, mid-refresh, to be killed (the
    request never reaches the OP, as when a node dies with it still on the wire)."""

    def __init__(self, node: str, stall: str) -> None:
        self.client = HTTPClient(AnyioBackend(), proxy_env={})
        self.tag = (NODE_HEADER, node)
        self.stall = Path(stall) if stall else None

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        stall = self.stall
        if stall is not None and b"grant_type=refresh_token" in request.body and stall.exists():
            stall.with_suffix(".stalled").touch()
            await anyio.sleep_forever()
        tagged = msgspec.structs.replace(request, headers=(*request.headers, self.tag))
        return await self.client.send(tagged)


def expose_user_id(session: dict[str, Any], token: Any = None, user: Any = None) -> dict[str, Any]:
    """The ``session`` callback: the user id, for "sign out everywhere"."""
    user_id = (user or {}).get("id") or (token or {}).get("sub")
    return {**session, "user_id": None if user_id is None else str(user_id)}


def site_config(options: NodeConfig, strategy: str, adapter: MarksInRedis) -> AuthConfig:
    """The auth configuration of the ``strategy`` site."""
    client_id, client_secret = options.clients[strategy]
    provider = {
        "id": PROVIDER_ID,
        "name": "Test OP",
        "type": "oidc",
        "issuer": options.issuer,
        "client_id": client_id,
        "client_secret": client_secret,
        "authorization": {"params": {"scope": "openid email profile offline_access"}},
        "authorization_params": {"prompt": "consent"},
        "refresh_skew": options.refresh_skew,
        "backchannel_logout": True,
    }
    session: dict[str, Any] = {"strategy": strategy, "update_age": options.update_age}
    if strategy == "jwt":
        session |= {"revocation": True, "revocation_cache_ttl": options.revocation_cache_ttl}
    return AuthConfig(
        secret=options.secrets,
        adapter=adapter,
        session=session,
        providers=[provider],
        callbacks={"session": expose_user_id},
        single_flight=adapter.redis,
        rate_limits={"store": adapter.redis},
    )


class Site:
    """One strategy's auth routes and API under its prefix."""

    def __init__(self, options: NodeConfig, strategy: str) -> None:
        self.prefix = PREFIXES[strategy]
        postgres = PostgresAdapter(
            options.postgres[strategy], max_size=options.pool_size, timeout=options.pool_timeout
        )
        redis = RedisAdapter(
            options.redis, key_prefix=f"{strategy}:", socket_timeout=2, socket_connect_timeout=1
        )
        self.adapter = MarksInRedis(postgres, redis)
        env = {"AUTH_URL": f"{options.public_url}{self.prefix}/auth"}
        self.auth = Auth(
            site_config(options, strategy, self.adapter),
            env=env,
            transport=TaggedTransport(options.node, options.stall),
        )
        self.app = AuthApp(auth=self.auth)

    async def access_token(self, scope: Scope) -> tuple[int, Any, list[str]]:
        read = await self.auth.access_token(request_from_scope(scope, b""), provider=PROVIDER_ID)
        return 200, {"token": read.token}, read.set_cookie_headers()

    async def revoke(self, scope: Scope) -> tuple[int, Any, list[str]]:
        read = await self.auth.session(request_from_scope(scope, b""))
        if not read.data or not read.data.get("user_id"):
            return 401, {"revoked": 0}, []
        revoked = await self.auth.revoke_sessions(user_id=read.data["user_id"])
        return 200, {"revoked": revoked}, []

    async def aclose(self) -> None:
        await self.auth.aclose()
        assert isinstance(self.auth.transport, TaggedTransport)
        await self.auth.transport.client.aclose()
        await self.adapter.aclose()


Handler = Callable[[Site, Scope], Awaitable[tuple[int, Any, list[str]]]]
API: dict[tuple[str, str], Handler] = {
    ("GET", "/api/token"): Site.access_token,
    ("POST", "/api/revoke"): Site.revoke,
}


class FleetApp:
    """The node's ASGI app: both sites, their APIs and ``/health``."""

    def __init__(self, options: NodeConfig) -> None:
        self.node = options.node.encode()
        self.sites = [Site(options, strategy) for strategy in ("jwt", "database")]

    def site_of(self, path: str) -> Site:
        return next(site for site in self.sites if path.startswith(site.prefix + "/"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        tag = (NODE_HEADER.encode(), self.node)

        async def tagged(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), tag]}
            await send(message)

        path = scope["path"]
        if path == "/health":
            await respond(tagged, 200, "ok", [])
            return
        site = self.site_of(path)
        handler = API.get((scope["method"], path.removeprefix(site.prefix)))
        if handler is None:
            await site.app(scope, receive, tagged)
            return
        try:
            status, body, cookies = await handler(site, scope)
        except RuntimeError as error:  # revoke_sessions names why it could not
            logging.getLogger("sansio_auth").error("[auth][error] RevokeFailed: %s", error)
            status, body, cookies = 503, {"error": "unavailable"}, []
        await respond(tagged, status, body, cookies)

    async def lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for site in self.sites:
                    await site.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def respond(send: Send, status: int, body: Any, cookies: list[str]) -> None:
    data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    kind = b"text/plain" if isinstance(body, str) else b"application/json"
    headers = [(b"content-type", kind), (b"content-length", b"%d" % len(data))]
    headers += [(b"set-cookie", cookie.encode("latin-1")) for cookie in cookies]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


LOGGERS = ("sansio_auth", "psycopg.pool")


def timestamped_log() -> None:
    """The log lines of the library and of the PostgreSQL pool start with the Unix time and
    the logger (``1712345678.123 sansio_auth: [auth][error] ...``), so that the soak can tell
    the errors of an outage from the others."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(created).3f %(name)s: %(message)s"))
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False


def make_app() -> FleetApp:
    """The app for the configuration in ``FLEET_CONFIG``."""
    timestamped_log()
    options = msgspec.json.decode(Path(os.environ["FLEET_CONFIG"]).read_bytes(), type=NodeConfig)
    return FleetApp(options)


app = make_app() if "FLEET_CONFIG" in os.environ else None
