"""Django's own user for the sansio-auth session: ``request.user`` and ``await request.auser()``.

With the Django ORM store (:class:`~io_bindings.django.orm.DjangoAdapter`) the session's
user is a row of ``settings.AUTH_USER_MODEL``. Put :class:`AuthenticationMiddleware` in
``MIDDLEWARE`` in place of Django's own: ``request.user`` is then that user (read lazily,
once per request), so ``login_required``, permissions and the admin see the sign-in. An
inactive user (``is_active`` false) is anonymous, as Django's ``ModelBackend`` has it.
Without a sansio-auth session, Django's own login (the admin's password form, through
``request.session``) still counts. (Django's ``user_logged_in`` and ``user_logged_out``
signals are sent by the runtime: :mod:`io_bindings.django.orm.signals`.)
"""

from __future__ import annotations

from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib import auth
from django.contrib.auth import middleware as django_middleware
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from ._handle import request_auth
from .orm import DjangoAdapter


class AuthenticationMiddleware(django_middleware.AuthenticationMiddleware):
    """Sets ``request.user`` and ``request.auser`` to the user of the sansio-auth session
    (else Django's own login, when ``SessionMiddleware`` runs before, else anonymous).

    A subclass of Django's, so the admin's checks accept it. ``request.user`` needs the
    auth ``handle`` to have run for the request (place this anywhere in ``MIDDLEWARE``;
    the user is read when first used, by then ``handle`` has set ``request.auth``).
    """

    def process_request(self, request: HttpRequest) -> None:
        request.user = SimpleLazyObject(lambda: get_user(request))  # type: ignore[assignment]
        request.auser = partial(aget_user, request)


def get_user(request: HttpRequest) -> Any:
    """The user of ``request`` (sync code; cached on the request)."""
    if not hasattr(request, "_cached_user"):
        state = request_auth(request)
        state.session()
        user = session_user(state.runtime.settings.adapter, state.state.user_id)
        if user is None:
            user = auth.get_user(request) if hasattr(request, "session") else AnonymousUser()
        request._cached_user = user  # type: ignore[attr-defined]
    return request._cached_user  # type: ignore[attr-defined]


async def aget_user(request: HttpRequest) -> Any:
    """The user of ``request`` (async code; cached on the request)."""
    if not hasattr(request, "_acached_user"):
        state = request_auth(request)
        await state.asession()
        load = sync_to_async(session_user)
        user = await load(state.runtime.settings.adapter, state.state.user_id)
        if user is None:
            user = await auth.aget_user(request) if hasattr(request, "session") else None
        request._acached_user = user or AnonymousUser()  # type: ignore[attr-defined]
    return request._acached_user  # type: ignore[attr-defined]


def session_user(adapter: Any, user_id: str | None) -> Any:
    """The active Django user of the session's ``user_id``; ``None`` when signed out, or when
    the sessions are not the Django ORM store's (their user ids are not Django's)."""
    if not isinstance(adapter, DjangoAdapter) or user_id is None:
        return None
    return adapter.store.django_user(user_id)
