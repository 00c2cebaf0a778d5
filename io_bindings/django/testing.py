"""Signing a user in for Django's test clients, as ``Client.force_login`` does for Django's own
login: a real session (JWT or database, as the config has it) for the user, its cookie in the
client's jar, no sign-in form.

>>> from io_bindings.django.testing import force_login, aforce_login
>>> force_login(client, user)                  # django.test.Client
>>> await aforce_login(async_client, user)     # django.test.AsyncClient

``user`` is a model instance of ``AUTH_USER_MODEL`` (or a user record with its ``id``: with
the Django ORM store, the stored user of that id). The session is issued as a sign-in issues
it (the ``jwt`` callback, ``events.sign_in`` and so Django's ``user_logged_in``), with an
account of provider ``"server"``. The auth ``handle`` is found in ``settings.MIDDLEWARE``
(alone or in a ``sequence``); pass ``handle=`` otherwise.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django.test import AsyncRequestFactory, RequestFactory
from django.utils.module_loading import import_string

from .. import anyio as _anyio
from .._runtime import SessionRead
from . import _bridge
from ._handle import Handle, Sequence
from ._translate import cookie_morsel, engine_request


def force_login(client: Any, user: Any, *, handle: Handle | None = None) -> None:
    """Sign ``user`` in for the test ``client`` (``django.test.Client``)."""
    request = _request(RequestFactory, client)
    read = _bridge.run(request, lambda: _start(request, user, handle))
    _keep(client, read)


async def aforce_login(client: Any, user: Any, *, handle: Handle | None = None) -> None:
    """Sign ``user`` in for the test ``client`` (``django.test.AsyncClient``)."""
    request = _request(AsyncRequestFactory, client)
    read = await _bridge.arun(request, lambda: _start(request, user, handle))
    _keep(client, read)


def _request(factory: type[RequestFactory] | type[AsyncRequestFactory], client: Any) -> Any:
    """A request as ``client`` would send it (its defaults, its cookies)."""
    cookies = "; ".join(f"{m.key}={m.coded_value}" for m in client.cookies.values())
    return factory(**client.defaults).get("/", HTTP_COOKIE=cookies)


async def _start(request: HttpRequest, user: Any, handle: Handle | None) -> SessionRead:
    runtime: Any = (handle or _handle_in_middleware()).runtimes.resolve(request)
    if inspect.isawaitable(runtime):
        runtime = await runtime
    assert isinstance(runtime, _anyio.Auth)
    return await runtime.start_session(engine_request(request), _record(user))


def _record(user: Any) -> Mapping[str, Any]:
    if isinstance(user, Mapping):
        return user
    if isinstance(user, str | int):
        return {"id": str(user)}
    email = getattr(user, user.get_email_field_name(), None) if hasattr(user, "pk") else None
    full_name = getattr(user, "get_full_name", None)
    name = full_name() if callable(full_name) else None
    return {"id": str(user.pk), "email": email or None, "name": name or None}


def _keep(client: Any, read: SessionRead) -> None:
    """The session's cookies into the client's jar (a deleted one out of it)."""
    for cookie in read.cookies:
        if cookie.value and cookie.options.max_age != 0:
            dict.__setitem__(client.cookies, cookie.name, cookie_morsel(cookie))
        else:
            client.cookies.pop(cookie.name, None)


def _handle_in_middleware() -> Handle:
    for entry in settings.MIDDLEWARE:
        found = import_string(entry)
        members = found.factories if isinstance(found, Sequence) else (found,)
        for member in members:
            if isinstance(member, Handle):
                return member
    raise ImproperlyConfigured(
        "sansio-auth: no auth handle in settings.MIDDLEWARE; pass it: "
        "force_login(client, user, handle=handle)"
    )
