"""Django's ``user_logged_in`` and ``user_logged_out`` signals for the engine's sign-ins and
sign-outs, when the config stores in the Django ORM (a
:class:`~io_bindings.django.orm.DjangoAdapter`): the runtime that
:func:`~io_bindings.django.DjangoAuth` makes runs them as ``events.sign_in`` and
``events.sign_out`` handlers, after the config's own. They are sent with the Django request
being served (``None`` outside one) and the user's model instance (not for an inactive or
deleted user), from one of the store's threads; like every event handler, a receiver that
raises is logged, never fatal.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

from django.contrib.auth import signals
from django.dispatch import Signal

from sansio_auth import AuthConfig
from sansio_auth.config import Events, as_record
from sansio_auth.events import call_with_params

from .._bridge import current_request
from .store import DjangoAdapter


def with_signals(config: AuthConfig) -> AuthConfig:
    """``config`` with event handlers that send ``user_logged_in`` and ``user_logged_out``
    (after its own ``sign_in`` / ``sign_out`` handlers), when it stores in the Django ORM;
    else ``config`` itself."""
    adapter = config.adapter
    if not isinstance(adapter, DjangoAdapter):
        return config
    events = as_record(Events, config.events, "events")
    signed_in = partial(_send, adapter, signals.user_logged_in, _signed_in_id)
    signed_out = partial(_send, adapter, signals.user_logged_out, _signed_out_id)
    return dataclasses.replace(
        config,
        events=dataclasses.replace(
            events,
            sign_in=_after(events.sign_in, signed_in),
            sign_out=_after(events.sign_out, signed_out),
        ),
    )


def _signed_in_id(message: dict[str, Any]) -> Any:
    return (message.get("user") or {}).get("id")


def _signed_out_id(message: dict[str, Any]) -> Any:
    if message.get("session"):  # a database session: the row
        return message["session"].get("user_id")
    return (message.get("token") or {}).get("sub")


def _after(handler: Callable[..., Any] | None, then: Callable[..., Any]) -> Callable[..., Any]:
    """An event handler running ``handler`` (if any), then ``then`` even if it failed."""

    async def both(**message: Any) -> None:
        try:
            if handler is not None:
                result = call_with_params(handler, message)
                if inspect.isawaitable(result):
                    await result
        finally:
            await then(**message)

    return both


async def _send(
    adapter: DjangoAdapter,
    signal: Signal,
    user_id_of: Callable[[dict[str, Any]], Any],
    **message: Any,
) -> None:
    """Send ``signal`` for the Django user of the event ``message``, with the Django request
    being served (``None`` outside one), from one of the store's threads."""
    user_id, request = user_id_of(message), current_request()

    def send() -> None:
        user = None if user_id is None else adapter.store.django_user(str(user_id))
        if user is not None:
            signal.send(sender=type(user), request=request, user=user)

    await adapter.call_in_thread(send)
