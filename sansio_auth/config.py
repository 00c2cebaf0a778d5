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
    fresh_age: int = 24 * 60 * 60
    """Seconds after signing in during which a session may do sensitive things (unlink an
    account, delete the user); an older session must sign in again first. 0: no check."""
    track_ip_address: bool = False
    """Keep each session's client address, to show in the user's list of sessions (as the
    rate limits read it: ``X-Forwarded-For`` only behind ``rate_limits.trusted_proxies``)."""


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
    security: str | None = None
    """The page listing the user's sessions and linked accounts (default: the built-in one)."""


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
    revoke_sessions: Fn | None = None
    """``(user, session_ids)``: the user ended sessions of theirs (the security page, the
    runtime's ``revoke_session``/``revoke_other_sessions``)."""
    unlink_account: Fn | None = None
    """``(user, account)``: the user unlinked one of their accounts."""
    delete_user: Fn | None = None
    """``(user)``: the user deleted themselves (with everything stored of them)."""
    rate_limited: Fn | None = None
    """``(limit, provider, identifier, client, retry_after)``: a rate limit refused an
    attempt for the first time in its window (``limit``: its name, e.g.
    ``"credentials_per_account"``; ``identifier``: the account or address the attempt named,
    if any; ``client``: the client address, if known; ``retry_after``: seconds)."""


Limit = tuple[int, int]
"""``(attempts, seconds)``: at most ``attempts`` in each window of ``seconds``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RateLimits:
    """Brute-force protection (not in Auth.js): attempts allowed per key and window.

    Each limit is ``(attempts, seconds)`` or ``None`` (off); ``enabled=False`` turns them all
    off. An attempt over a limit is answered ``429`` with ``Retry-After``. See
    ``docs/security.md``.
    """

    enabled: bool = True
    credentials_per_account: Limit | None = (10, 15 * 60)
    """Password checks of one account: credentials and password sign-ins naming it
    (``account_field``), the current password asked by ``change-password``/``change-email``."""
    credentials_per_client: Limit | None = (100, 15 * 60)
    """Credentials and password sign-ins from one client address."""
    credentials_per_device: Limit | None = (10, 15 * 60)
    """Password checks from one known device (a browser where the account signed in before,
    by its device cookie) for the accounts it names: these count here, not against
    ``credentials_per_account``, so others' attempts never lock a known device out.
    ``None``: known devices count against the account like any other browser."""
    email_per_address: Limit | None = (5, 15 * 60)
    """E-mails requested for one address: sign-in links, and the password provider's
    sign-up, reset, change-of-address and second-factor e-mails."""
    email_per_client: Limit | None = (30, 15 * 60)
    """E-mails requested from one client address (the same requests)."""
    email_per_device: Limit | None = (5, 15 * 60)
    """E-mails requested from one known device for the addresses it names (instead of
    ``email_per_address``; ``None``: as any other browser)."""
    device_max_age: int = 365 * 24 * 60 * 60
    """Seconds a device cookie lasts after the last sign-in that set it; ``0``: no device
    cookies (every browser counts against the account's limits)."""
    passkey_per_client: Limit | None = (30, 15 * 60)
    """Passkey (WebAuthn) sign-in attempts from one client address."""
    two_factor_per_user: Limit | None = (10, 15 * 60)
    """Second-factor codes (authenticator app, recovery, e-mailed) checked for one user."""
    account_field: str | None = None
    """The credentials form field that names the account; default: the provider's first
    ``credentials`` field that is not a password, else ``email`` or ``username``."""
    trusted_proxies: int = 0
    """How many proxies of yours, in front of the app, append to ``X-Forwarded-For``: the
    client address is then the entry that many from its end. ``0``: the address the server
    saw (``X-Forwarded-For`` is ignored: any client can write it)."""
    store: Any = None
    """Where the counters are kept (an object with ``increment_counter``, see
    :class:`sansio_auth.adapters.Counters`); default: the adapter when it has that method,
    else the runtime's process memory."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Deadlines:
    """Seconds allowed (not in Auth.js; ``None``: no limit). Past one, the binding stops
    waiting and the request ends with :class:`~sansio_auth.errors.DeadlineExceeded`."""

    callback: float | None = 10.0
    """Each call of a user function (callbacks, ``authorize``, ``send_verification_request``,
    event handlers, ...)."""
    adapter: float | None = 15.0
    """Each database adapter call (above the stores' own 10 s timeouts, whose errors say more)."""
    sign_in: float | None = 45.0
    """A whole sign-in request (``signin/<id>``, ``callback/<id>``, ``signup``,
    ``two-factor``)."""


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

    providers: Sequence[str] | Literal["all", "single-factor"] = "single-factor"
    """The providers whose sign-ins ask for the second factor (ids), ``"all"``, or
    ``"single-factor"``: every way in that is one factor, a password or an e-mailed link."""
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
    max_failures: int | None = 100
    """Wrong codes in a row after which the user's authenticator app (and e-mailed codes) are
    locked until they sign in with a recovery code or a passkey and set the app up again
    (``None``: never). Counted in the rate limits' store."""


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
    deadlines: Deadlines | Mapping[str, Any] = field(default_factory=Deadlines)
    """How long callbacks, adapter calls and a whole sign-in may take (not in Auth.js)."""
    debug: bool = False
    """Log debug messages (ignored when ``logger.debug`` is set)."""
    events: Events | Mapping[str, Fn] = field(default_factory=Events)
    experimental: Mapping[str, bool] = field(default_factory=dict)
    """``{"enable_web_authn": bool}``."""
    jwt: JWTOptions | Mapping[str, Any] = field(default_factory=JWTOptions)
    languages: Sequence[str] | None = None
    """The languages of the built-in pages and account e-mails, the default first (not in
    Auth.js): each request gets the framework's active language or the best its
    ``Accept-Language`` asks for among them; one language fixes it. Default: every language
    with a catalogue, English first (see ``docs/languages.md``)."""
    logger: Logger | Mapping[str, Fn] | None = None
    pages: Pages | Mapping[str, str] = field(default_factory=Pages)
    rate_limits: RateLimits | Mapping[str, Any] = field(default_factory=RateLimits)
    """Brute-force protection of sign-ins (not in Auth.js); on by default."""
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
    translations: Mapping[str, Any] = field(default_factory=dict)
    """Catalogues of your own (not in Auth.js), by language tag: each an object with
    ``gettext`` and ``ngettext`` (a ``gettext.GNUTranslations``), adding a language or
    replacing a shipped one's messages."""
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
