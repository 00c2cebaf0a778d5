"""The engine's vocabulary: actions it asks for, events it is answered with.

A flow (see :class:`sansio_auth.Flow`) yields an :data:`Action`; the binding
performs it and sends back the matching :data:`Event`, until the action is
:class:`Respond`. Every action is self-contained: a binding needs nothing but
the action to perform it.

=======================  ==========================================================
action                   answered with
=======================  ==========================================================
:class:`InvokeCallback`  :class:`CallbackReturned` or :class:`Failed`
:class:`CallAdapter`     :class:`AdapterReturned` or :class:`Failed`
:class:`SendHTTP`        :class:`HTTPResponse` (any status) or :class:`Failed`
:class:`HashPassword`    :class:`PasswordHashed` or :class:`Failed`
:class:`VerifyPassword`  :class:`PasswordChecked` or :class:`Failed`
:class:`Log`             :class:`CallbackReturned` (``None``)
:class:`Respond`         nothing: the flow is over
=======================  ==========================================================

:class:`HashPassword` and :class:`VerifyPassword` are CPU work, not IO: a binding on an
event loop performs them in a worker thread (``async_performer(offload=...)``).

Answering with another event type raises :class:`~sansio_auth.errors.FlowProtocolError`.
The drivers in :mod:`sansio_auth.drivers` answer them all by these rules.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, ClassVar, Literal

import msgspec

from .http import Response
from .passwords import ARGON2ID, Argon2Params, Checked, PasswordHasher

LogLevel = Literal["error", "warn", "debug"]
"""The level of a :class:`Log` action."""


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


class PasswordHashed(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to :class:`HashPassword`: the hash, in PHC string format."""

    hash: str

    def __repr__(self) -> str:
        return "PasswordHashed(hash=...)"


class PasswordChecked(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to :class:`VerifyPassword`."""

    valid: bool
    needs_rehash: bool = False
    """The hash is not of the current scheme and parameters: store a new one."""


Event = (
    HTTPResponse | CallbackReturned | AdapterReturned | PasswordHashed | PasswordChecked | Failed
)
"""Everything a binding answers an action with."""


class OutboundRequest(msgspec.Struct, frozen=True, kw_only=True):
    """An HTTP request the engine needs made (token, userinfo, discovery, JWKS)."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    shown_url: str | None = None
    """The URL as logs and error messages show it when ``url`` holds a secret in its path
    (HubSpot takes the access token there); by default ``url`` without its query."""

    def shown(self) -> str:
        """The URL without secrets, for logs and error messages."""
        return self.shown_url or self.url.partition("?")[0]


class SendHTTP(msgspec.Struct, frozen=True, kw_only=True):
    """Send ``request``; answer with :class:`HTTPResponse` (any status) or :class:`Failed`."""

    answers: ClassVar[tuple[type, ...]] = (HTTPResponse, Failed)
    request: OutboundRequest
    single_flight: str | None = None
    """Set on a request that must not be made twice at once (a refresh-token grant: a
    rotated refresh token works once). Actions with the same key are the same action:
    a binding should perform one at a time and answer those that waited with the answer
    (not a failure) the first one got, for a short while. The key is a hash, no secret."""


class InvokeCallback(msgspec.Struct, frozen=True, kw_only=True):
    """Call user function ``function`` (sync or async): :meth:`call` does it.

    ``name`` says which it is: a callback (``jwt``, ``session``, ``sign_in``,
    ``redirect``, ``authorize``, ``profile``, ``encode``, ...), an event handler
    (``events.sign_in``, ...) or the custom logger (``logger.error``, ...).
    """

    answers: ClassVar[tuple[type, ...]] = (CallbackReturned, Failed)
    name: str
    function: Callable[..., Any]
    params: Mapping[str, Any]

    def call(self) -> Any:
        """Call the function with the params its signature names (all, with ``**kwargs``).

        The result may be awaitable (an ``async def`` callback): await it.
        """
        return call_with_params(self.function, self.params)

    def answer(self, value: Any) -> CallbackReturned:
        """The event that answers this action with ``value``."""
        return CallbackReturned(value=value)


class CallAdapter(msgspec.Struct, frozen=True, kw_only=True):
    """Call database adapter method ``method`` (the bound ``function``) with ``args``."""

    answers: ClassVar[tuple[type, ...]] = (AdapterReturned, Failed)
    method: str
    function: Callable[..., Any]
    args: tuple[Any, ...] = ()
    single_flight: str | None = None
    """As :attr:`SendHTTP.single_flight`: set on a call that concurrent requests would
    otherwise repeat (extending one session's expiry); one call per key at a time, its
    answer shared for a short while."""

    def call(self) -> Any:
        """Call the adapter method; the result may be awaitable."""
        return self.function(*self.args)

    def answer(self, value: Any) -> AdapterReturned:
        """The event that answers this action with ``value``."""
        return AdapterReturned(value=value)


class HashPassword(msgspec.Struct, frozen=True, kw_only=True):
    """Hash ``password`` with argon2id, ``salt`` and ``params``: :meth:`call` does it (CPU
    work for tens of milliseconds: run it off the event loop). The password never shows in
    ``repr``."""

    answers: ClassVar[tuple[type, ...]] = (PasswordHashed, Failed)
    password: str
    salt: bytes
    params: Argon2Params
    hasher: PasswordHasher = ARGON2ID
    """The store's scheme (:class:`~sansio_auth.passwords.PasswordHasher`)."""

    def __repr__(self) -> str:
        return f"HashPassword(params={self.params!r})"

    def call(self) -> PasswordHashed:
        """The hash (see :func:`sansio_auth.passwords.hash_password`)."""
        return PasswordHashed(hash=self.hasher.hash(self.password, self.salt, self.params))


class VerifyPassword(msgspec.Struct, frozen=True, kw_only=True):
    """Check ``password`` against the ``stored`` hash (``None``: against a hash of nothing,
    taking the same time, see :func:`sansio_auth.passwords.verify_password`)."""

    answers: ClassVar[tuple[type, ...]] = (PasswordChecked, Failed)
    password: str
    stored: str | None
    params: Argon2Params
    hasher: PasswordHasher = ARGON2ID
    """The store's scheme (:class:`~sansio_auth.passwords.PasswordHasher`)."""

    def __repr__(self) -> str:
        return f"VerifyPassword(params={self.params!r})"

    def call(self) -> PasswordChecked:
        """Whether it matches, and whether the hash should be replaced."""
        checked: Checked = self.hasher.verify(self.password, self.stored, self.params)
        return PasswordChecked(valid=checked.valid, needs_rehash=checked.needs_rehash)


class Log(msgspec.Struct, frozen=True, kw_only=True):
    """Write a line to the library's default log (a custom ``logger`` is invoked by the
    engine through :class:`InvokeCallback` instead).

    ``error`` is set for an error, logged at ``error`` or, when the client caused it (a
    refusal), at ``warn`` (``[auth][warn] CredentialsSignin: ...``); ``metadata`` for
    ``debug``. Never holds secrets.
    """

    answers: ClassVar[tuple[type, ...]] = (CallbackReturned, Failed)
    level: LogLevel
    code: str
    message: str = ""
    error: BaseException | None = None
    metadata: Any = None

    def __str__(self) -> str:
        """The line in Auth.js's format, e.g. ``[auth][error] AdapterError: ...``: one line,
        whatever the message holds (see :func:`escape_log_text`)."""
        if self.level == "error" or (self.level == "warn" and self.error is not None):
            line = f"[auth][{self.level}] {self.code}: {self.message}"
        elif self.level == "warn":
            suffix = f" {self.message}" if self.message else ""
            line = f"[auth][warn][{self.code}]{suffix} Read more: https://warnings.authjs.dev"
        else:
            line = f"[auth][debug]: {self.message} {self.metadata!r}"
        return escape_log_text(line)


_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_log_text(text: str) -> str:
    """``text`` with its control characters escaped (``\\n``, ``\\r``, ``\\x1b``...): what
    a browser or a provider sent can never start a log line of its own."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (
        f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    )


class Respond(msgspec.Struct, frozen=True, kw_only=True):
    """The flow is over: send ``response``."""

    answers: ClassVar[tuple[type, ...]] = ()
    response: Response


Action = SendHTTP | InvokeCallback | CallAdapter | HashPassword | VerifyPassword | Log | Respond
"""Everything a flow asks a binding to do; :class:`Respond` ends the flow."""
CPU_ACTIONS = (HashPassword, VerifyPassword)
"""Actions that are CPU work rather than IO (a binding on an event loop offloads them)."""


@lru_cache(maxsize=512)
def _accepted(function: Callable[..., Any]) -> frozenset[str] | None:
    """Keyword names ``function`` accepts, or ``None`` when it takes ``**kwargs``."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(
        p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )


def accepts(function: Callable[..., Any], name: str) -> bool:
    """Whether ``function`` takes the keyword ``name`` (or any keyword, ``**kwargs``)."""
    try:
        accepted = _accepted(function)
    except TypeError:  # an unhashable callable
        return True
    return accepted is None or name in accepted


def call_with_params(function: Callable[..., Any], params: Mapping[str, Any]) -> Any:
    """Call ``function`` with the keyword ``params`` its signature names.

    This is the calling contract of every user function (callbacks, provider
    functions, event handlers, loggers): a function names the keywords it wants.
    """
    try:
        accepted = _accepted(function)
    except TypeError:  # an unhashable callable
        accepted = None
    if accepted is None:
        return function(**params)
    return function(**{k: v for k, v in params.items() if k in accepted})
