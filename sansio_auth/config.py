"""User-facing configuration records: :class:`AuthConfig` and its parts.

Every option of Auth.js's options table, in snake_case. Nested options take a
record or a plain mapping with the same keys (``session={"max_age": 3600}``);
unknown keys are a :class:`~sansio_auth.errors.Configuration` error naming them.
The records hold user callables but never call them: the engine asks a binding
to (see :mod:`sansio_auth.events`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeVar

from .errors import Configuration

Strategy = Literal["jwt", "database"]
ColorScheme = Literal["auto", "dark", "light"]
Fn = Callable[..., Any]


class _SkipCSRFCheck:
    """The type of :data:`skip_csrf_check`."""

    def __repr__(self) -> str:
        return "skip_csrf_check"


skip_csrf_check = _SkipCSRFCheck()
"""Pass as ``AuthConfig(skip_csrf_check=skip_csrf_check)`` to turn CSRF checks off.

A named constant rather than ``True`` so that it cannot come from a JSON or
environment value by accident. Only for frameworks that check the origin
themselves.
"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionOptions:
    """Where and how long sessions are kept."""

    strategy: Strategy | None = None
    """``jwt`` or ``database``; default ``database`` when an adapter is set, else ``jwt``."""
    max_age: int = 30 * 24 * 60 * 60
    """Seconds until an idle session expires."""
    update_age: int = 24 * 60 * 60
    """Seconds between session refreshes (cookie re-issue, database write); 0 = every read."""
    generate_session_token: Fn | None = None
    """``() -> str`` for database session tokens; default a random UUID."""
    revocation: bool = False
    """JWT sessions: carry a ``sid`` and are refused once revoked (``revoke_sessions``,
    back-channel logout) through the adapter's "not before" marks. Needs an adapter."""
    revocation_cache_ttl: float = 5.0
    """Seconds a revocation check's answer is reused (another process's revocation takes
    effect within this; this process's at once)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class JWTOptions:
    """Session token options; ``encode``/``decode`` replace the built-in JWE."""

    max_age: int | None = None
    """Token lifetime in seconds; default ``session.max_age``."""
    encode: Fn | None = None
    """``(token, secret, salt, max_age) -> str`` (may be async)."""
    decode: Fn | None = None
    """``(token, secret, salt) -> dict | None`` (may be async)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Pages:
    """URLs of your own pages that replace the built-in ones."""

    sign_in: str | None = None
    sign_out: str | None = None
    error: str | None = None
    verify_request: str | None = None
    new_user: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Theme:
    """Look of the built-in pages."""

    color_scheme: ColorScheme = "auto"
    logo: str = ""
    """URL of an image shown above the card."""
    brand_color: str = ""
    """CSS colour of buttons and accents."""
    button_text: str = ""
    """CSS colour of button text."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Callbacks:
    """Functions that steer the flows; each may be sync or async.

    Each is called with keyword arguments; it receives only the ones its
    signature names (or all, with ``**kwargs``).
    """

    sign_in: Fn | None = None
    """``(user, account, profile, credentials, email) -> bool | str``."""
    redirect: Fn | None = None
    """``(url, base_url) -> str``; default keeps relative and same-origin URLs."""
    session: Fn | None = None
    """``(session, token, user, new_session, trigger) -> dict``: what clients see."""
    jwt: Fn | None = None
    """``(token, user, account, profile, trigger, is_new_user, session) -> dict | None``."""
    authorized: Fn | None = None
    """``(auth, request) -> bool | response | None`` for route protection."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Events:
    """Audit handlers, each called with keyword arguments; errors are logged, never fatal."""

    sign_in: Fn | None = None
    sign_out: Fn | None = None
    create_user: Fn | None = None
    update_user: Fn | None = None
    link_account: Fn | None = None
    session: Fn | None = None
    token_refreshed: Fn | None = None
    """``(account, token)``: a provider's access token was refreshed (``account``: the new
    token state; ``token``: the session token, ``None`` with database sessions)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Logger:
    """Replacements for log levels; a level left ``None`` uses the binding's logger."""

    error: Fn | None = None
    """``(error: AuthError)``."""
    warn: Fn | None = None
    """``(code: str)``."""
    debug: Fn | None = None
    """``(message: str, metadata)``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TwoFactorOptions:
    """Two-factor authentication (not in Auth.js; see docs/accounts.md).

    A user who set up an authenticator app is asked for a second factor after their first:
    a code of the app, one of their recovery codes, one of their passkeys (with a WebAuthn
    provider configured) or, with ``email_code``, a code sent to their address.
    """

    providers: Sequence[str] | Literal["all"] = ("password",)
    """The providers whose sign-ins ask for the second factor (ids), or ``"all"``."""
    require_two_factor: bool = False
    """Every user must set up a second factor: one who has none sets it up before their
    first session is issued."""
    issuer: str | None = None
    """The name authenticator apps show; default the site's host."""
    trust_device_days: int = 30
    """Days a "trust this device" cookie skips the challenge; 0 offers no such choice."""
    challenge_max_age: int = 5 * 60
    """Seconds the sign-in waits for its second factor."""
    email_code: bool = False
    """Offer a code sent by e-mail at the challenge (by the password provider's sender)."""
    email_code_max_age: int = 10 * 60
    """Seconds an e-mailed code stays valid."""


@dataclass(frozen=True, kw_only=True, slots=True)
class AuthConfig:
    """Every option of Auth.js's ``AuthConfig``, in snake_case.

    Options not given are read from the environment mapping the binding passes
    (``AUTH_SECRET``, ``AUTH_URL``, ``AUTH_TRUST_HOST``, ``AUTH_REDIRECT_PROXY_URL``,
    ``AUTH_<PROVIDER>_ID``/``_SECRET``/``_ISSUER``, legacy ``NEXTAUTH_SECRET``/``NEXTAUTH_URL``).
    """

    providers: Sequence[Any] = ()
    """Sign-in providers: built-ins (called or not), provider records or mappings."""
    adapter: Any = None
    """Database adapter (see :mod:`sansio_auth.adapters`)."""
    base_path: str | None = None
    """Path of the auth routes; default ``/auth`` (or the path of ``AUTH_URL``)."""
    callbacks: Callbacks | Mapping[str, Fn] = field(default_factory=Callbacks)
    cookies: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per-cookie overrides: ``{"session_token": {"name": ..., "options": {"domain": ...}}}``."""
    debug: bool = False
    """Log debug messages (ignored when ``logger.debug`` is set)."""
    events: Events | Mapping[str, Fn] = field(default_factory=Events)
    experimental: Mapping[str, bool] = field(default_factory=dict)
    """``{"enable_web_authn": bool}``."""
    jwt: JWTOptions | Mapping[str, Any] = field(default_factory=JWTOptions)
    logger: Logger | Mapping[str, Fn] | None = None
    pages: Pages | Mapping[str, str] = field(default_factory=Pages)
    redirect_proxy_url: str | None = None
    """Base of the OAuth ``redirect_uri`` for preview deployments; turns the state check on."""
    secret: str | Sequence[str] | None = None
    """Secret, or secrets newest first for rotation; default ``AUTH_SECRET``."""
    session: SessionOptions | Mapping[str, Any] = field(default_factory=SessionOptions)
    single_flight: Any = None
    """Where concurrent refreshes of one refresh token meet across processes (not in Auth.js:
    an object with the methods of :class:`sansio_auth.adapters.SingleFlightStore`, such as
    :class:`io_bindings.db.redis.RedisAdapter`); default: the adapter when it has them, else
    none (each process on its own: enough for one process, not for several)."""
    skip_csrf_check: _SkipCSRFCheck | None = None
    """Set to :data:`skip_csrf_check` to turn CSRF checks off."""
    theme: Theme | Mapping[str, str] = field(default_factory=Theme)
    two_factor: TwoFactorOptions | Mapping[str, Any] | None = None
    """Two-factor authentication (not in Auth.js); ``None``: off."""
    trust_host: bool | None = None
    """Trust the ``Host`` (and ``X-Forwarded-*``) header; default from ``AUTH_TRUST_HOST``."""
    use_secure_cookies: bool | None = None
    """``Secure`` and ``__Secure-`` cookies; default by the URL's scheme."""


R = TypeVar("R")


def as_record(kind: type[R], value: R | Mapping[str, Any] | None, option: str) -> R:
    """``value`` as a ``kind`` record; a mapping with unknown keys is a named config error."""
    if value is None:
        return kind()
    if isinstance(value, kind):
        return value
    if not isinstance(value, Mapping):
        raise Configuration(f"`{option}` must be a {kind.__name__} or a mapping")
    known = {f.name for f in fields(kind)}  # type: ignore[arg-type]
    unknown = sorted(set(value) - known)
    if unknown:
        raise Configuration(
            f"`{option}` has unknown keys: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    return kind(**value)
