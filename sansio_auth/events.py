"""The engine's vocabulary: actions it asks for, events it is answered with.

A flow (see :class:`sansio_auth.Flow`) yields an :data:`Action`; the binding
performs it and sends back the matching :data:`Event`, until the action is
:class:`Respond`:

=====================  ===============================================
action                 answered with
=====================  ===============================================
:class:`SendHTTP`      :class:`HTTPResponse` or :class:`Failed`
:class:`InvokeCallback` :class:`CallbackReturned` or :class:`Failed`
:class:`CallAdapter`   :class:`AdapterReturned` or :class:`Failed`
:class:`EmitEvent`     :class:`CallbackReturned` (``None``) or :class:`Failed`
:class:`Log`           :class:`CallbackReturned` (``None``)
:class:`Respond`       nothing: the flow is over
=====================  ===============================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import msgspec

from .http import Response

LogLevel = Literal["error", "warn", "debug"]


class OutboundRequest(msgspec.Struct, frozen=True, kw_only=True):
    """An HTTP request the engine needs made (token, userinfo, discovery, JWKS)."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


class SendHTTP(msgspec.Struct, frozen=True, kw_only=True):
    """Send ``request``; answer with :class:`HTTPResponse` (any status) or :class:`Failed`."""

    request: OutboundRequest


class InvokeCallback(msgspec.Struct, frozen=True, kw_only=True):
    """Call user function ``function`` (sync or async) with keyword ``params``.

    ``name`` says which callback it is (``jwt``, ``session``, ``sign_in``,
    ``redirect``, ``authorize``, ``profile``, ``encode``, ...). The binding passes
    only the params the function's signature accepts (all, with ``**kwargs``).
    """

    name: str
    function: Callable[..., Any]
    params: Mapping[str, Any]


class CallAdapter(msgspec.Struct, frozen=True, kw_only=True):
    """Call database adapter method ``method`` with ``args``."""

    method: str
    args: tuple[Any, ...] = ()


class EmitEvent(msgspec.Struct, frozen=True, kw_only=True):
    """Call the ``events.<name>`` handler with keyword ``message``; its errors are logged."""

    name: str
    message: Mapping[str, Any]


class Log(msgspec.Struct, frozen=True, kw_only=True):
    """Write a log line (through ``logger`` if configured, else the binding's logger).

    ``error`` is set for level ``error``; ``metadata`` for ``debug``. Never holds secrets.
    """

    level: LogLevel
    code: str
    message: str = ""
    error: BaseException | None = None
    metadata: Any = None


class Respond(msgspec.Struct, frozen=True, kw_only=True):
    """The flow is over: send ``response``."""

    response: Response


Action = SendHTTP | InvokeCallback | CallAdapter | EmitEvent | Log | Respond


class HTTPResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to :class:`SendHTTP` (``headers`` lower-case)."""

    status: int
    headers: Mapping[str, str] = msgspec.field(default_factory=dict)
    body: bytes = b""


class CallbackReturned(msgspec.Struct, frozen=True, kw_only=True):
    """A user function (callback, event handler, logger) returned ``value``."""

    value: Any = None


class AdapterReturned(msgspec.Struct, frozen=True, kw_only=True):
    """An adapter method returned ``value``."""

    value: Any = None


class Failed(msgspec.Struct, frozen=True, kw_only=True):
    """Performing the action raised ``error`` (or timed out)."""

    error: BaseException


Event = HTTPResponse | CallbackReturned | AdapterReturned | Failed
