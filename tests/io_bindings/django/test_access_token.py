"""``request.auth.access_token(provider)`` and ``revoke_sessions`` through Django's own WSGI
and ASGI handlers, with sync and async views: a refreshed token with its re-issued session
cookie on the view's response, ``None`` when signed out, ``revoke_sessions`` ending a
database session. The runtime is given the in-memory OP's transport and the test clock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import django_db
import httpx
import pytest
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, JsonResponse
from django.urls import path

from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.django import DjangoAuth
from sansio_auth import AuthConfig
from sansio_auth.testing import Clock, MemoryOP
from tests.io_bindings.django.handle_client import handle_client, hook
from tests.io_bindings.op_tokens import (
    OPTransport,
    check_access_token,
    check_revoke_sessions,
    make_config,
    make_op,
    sign_in,
)

BASE = "/auth"


def sync_token(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"token": request.auth.access_token("op")})  # type: ignore[attr-defined]


async def async_token(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"token": await request.auth.access_token("op")})  # type: ignore[attr-defined]


def sync_revoke(request: HttpRequest) -> JsonResponse:
    user_id = json.loads(request.body)["user_id"]
    deleted = request.auth.revoke_sessions(user_id=user_id)  # type: ignore[attr-defined]
    return JsonResponse({"deleted": deleted})


async def async_revoke(request: HttpRequest) -> JsonResponse:
    user_id = json.loads(request.body)["user_id"]
    deleted = await request.auth.revoke_sessions(user_id=user_id)  # type: ignore[attr-defined]
    return JsonResponse({"deleted": deleted})


VIEWS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "sync": (sync_token, sync_revoke),
    "async": (async_token, async_revoke),
}
urlpatterns: list[Any] = []


@contextmanager
def serving(
    config: AuthConfig, op: MemoryOP, clock: Clock, mode: str, views: str
) -> Iterator[httpx.Client]:
    """A client of Django's ``mode`` handler (``wsgi``/``asgi``) with ``views`` at ``/token``
    and ``/revoke``, behind the auth handle (its runtime on the OP's transport and ``clock``)."""
    handle = DjangoAuth(config).handle
    handle.runtimes.fixed = Auth(config, clock=clock, transport=OPTransport(op), env={})
    token, revoke = VIEWS[views]
    urlpatterns[:] = [path("token", token), path("revoke", revoke)]
    with handle_client(handle, mode, __name__) as http:
        yield http


@pytest.mark.parametrize("views", VIEWS)
@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
@pytest.mark.parametrize("strategy", ["jwt", "database"])
def test_access_token_is_refreshed_and_its_cookie_sent(
    strategy: str, mode: str, views: str
) -> None:
    op, clock = make_op()
    with serving(make_config(op, strategy), op, clock, mode, views) as http:
        check_access_token(http, op, clock, jwt=strategy == "jwt", base=BASE)


@pytest.mark.parametrize("views", VIEWS)
@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_revoke_sessions_ends_a_database_session(mode: str, views: str) -> None:
    op, clock = make_op()
    adapter = MemoryAdapter()
    with serving(make_config(op, "database", adapter=adapter), op, clock, mode, views) as http:
        check_revoke_sessions(http, op, adapter, base=BASE)


def test_handle_revoke_sessions_outside_a_request() -> None:
    """``handle.revoke_sessions`` (a management command, a task), on the caller's loop."""
    op, clock = make_op()
    adapter = MemoryAdapter()
    with serving(make_config(op, "database", adapter=adapter), op, clock, "wsgi", "sync") as http:
        sign_in(http, op, BASE)
        assert http.get("/token").json()["token"]
        [user_id] = adapter.store.users
        assert hook.handle is not None
        assert asyncio.run(hook.handle.revoke_sessions(user_id=user_id)) == 1
        assert http.get("/token").json() == {"token": None}


def test_handle_revoke_sessions_needs_a_fixed_config() -> None:
    op, _ = make_op()
    handle = DjangoAuth(lambda request: make_config(op)).handle
    with pytest.raises(ImproperlyConfigured, match="a config function"):
        asyncio.run(handle.revoke_sessions(user_id="u"))
