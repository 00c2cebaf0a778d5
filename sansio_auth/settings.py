"""Resolve an :class:`AuthConfig` and an environment mapping into checked :class:`Settings`.

Everything that can be wrong with a configuration fails here, at start-up, with
a named :class:`~sansio_auth.errors.AuthError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import msgspec

from ._settings_accounts import PASSWORD_METHODS, two_factor_options, with_senders
from ._webauthn import check_ceremony_options
from .config import (
    AuthConfig,
    Callbacks,
    Deadlines,
    Events,
    JWTOptions,
    Logger,
    Pages,
    SessionOptions,
    Strategy,
    Theme,
    TwoFactorOptions,
    as_record,
)
from .cookies import CookieSet, cookie_set
from .errors import (
    Configuration,
    DuplicateConditionalUI,
    ExperimentalFeatureNotEnabled,
    MissingAdapter,
    MissingAdapterMethods,
    MissingAuthorize,
    MissingSecretError,
    MissingWebAuthnAutocomplete,
    UnsupportedStrategy,
    UntrustedHost,
)
from .i18n import SHIPPED, Catalogue, offered
from .passwords import ARGON2ID, PasswordHasher
from .providers import (
    PROVIDER_KINDS,
    CredentialsProvider,
    OAuthProvider,
    Provider,
    WebAuthnProvider,
)
from .providers.oauth import merge_options
from .ratelimit import RateLimitSettings, resolve_rate_limits

DATABASE_METHODS = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "get_user_by_account",
    "update_user",
    "link_account",
    "create_session",
    "get_session_and_user",
    "update_session",
    "delete_session",
)
EXPERIMENTAL_FLAGS = frozenset({"enable_webauthn", "enable_web_authn"})
"""``enable_webauthn`` (``enable_web_authn``, the literal snake_case of Auth.js's
``enableWebAuthn``, is accepted too)."""
WEBAUTHN_METHODS = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "get_user_by_account",
    "link_account",
    "get_account",
    "get_authenticator",
    "create_authenticator",
    "list_authenticators_by_user_id",
    "update_authenticator_counter",
)
"""What WebAuthn needs of an adapter (Auth.js's list plus the two lookups its linking uses)."""
EMAIL_METHODS = (
    "create_verification_token",
    "use_verification_token",
    "get_user_by_email",
    "create_user",
    "update_user",
)
OAUTH_METHODS = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "get_user_by_account",
    "link_account",
)
"""What OAuth sign-in needs of an adapter (with JWT sessions too: users and accounts are stored)."""
SESSION_RECORD_METHODS = (
    "create_session_record",
    "touch_session_record",
    "list_session_records",
    "delete_session_record",
)
"""What revocable JWT sessions need of an adapter for the user's list of sessions."""
OPTIONAL_METHODS = ("create_user_and_account", "delete_user", "delete_sessions_by_sid")
"""Adapter methods the engine uses when present (atomic sign-up; undoing a failed sign-up;
back-channel logout of one database session by its provider session)."""
SINGLE_FLIGHT_METHODS = ("claim_refresh", "await_refresh", "finish_refresh")
"""What a shared single-flight store has (:class:`~sansio_auth.adapters.SingleFlightStore`)."""


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """The checked configuration the engine runs on (derived; do not build by hand)."""

    config: AuthConfig
    secrets: tuple[str, ...]
    base_path: str
    url_origin: str | None
    """Origin of ``AUTH_URL``: when set, the request's own host is never used."""
    trust_host: bool
    strategy: Strategy
    session: SessionOptions
    jwt: JWTOptions
    jwt_max_age: int
    secure_cookies: bool | None
    cookies: CookieSet
    secure_cookie_set: CookieSet
    callbacks: Callbacks
    events: Events
    logger: Logger
    pages: Pages
    theme: Theme
    providers: tuple[Provider, ...]
    providers_by_id: Mapping[str, Provider]
    oauth_providers: Mapping[str, OAuthProvider]
    """The OAuth and OIDC providers by id."""
    keeps_provider_tokens: bool
    """Whether a session read looks at provider tokens (an OAuth provider refreshes them or
    signs out at the provider)."""
    skip_csrf: bool
    debug: bool
    redirect_proxy_url: str | None
    adapter: Any
    warnings: tuple[str, ...]
    rate_limits: RateLimitSettings
    deadlines: Deadlines
    single_flight: Any = None
    """The shared single-flight store, or ``None`` (each process on its own)."""
    adapter_extras: frozenset[str] = frozenset()
    """Which of :data:`OPTIONAL_METHODS` the adapter has."""
    two_factor: TwoFactorOptions | None = None
    """Two-factor authentication's options; ``None`` when it is off."""
    password_hasher: PasswordHasher = ARGON2ID
    """How password hashes are made and checked: the adapter's ``password_hasher`` when it
    names one (its own scheme), else argon2id."""
    languages: tuple[str, ...] = SHIPPED
    """The languages the pages are offered in, the default first."""
    translations: Mapping[str, Catalogue] = msgspec.field(default_factory=dict)
    """The configuration's own catalogues, by language."""

    def cookies_for(self, secure: bool) -> CookieSet:
        """The cookie set of the given security mode."""
        return self.secure_cookie_set if secure else self.cookies


def resolve(config: AuthConfig, env: Mapping[str, str], *, counters: Any = None) -> Settings:
    """Check ``config``, fill what it leaves out from ``env``, and derive the settings.

    ``counters`` keeps the rate-limit counters when neither ``rate_limits.store`` nor the
    adapter does (the runtimes give process memory)."""
    if not isinstance(config, AuthConfig):
        raise Configuration("the configuration must be an AuthConfig")
    session = as_record(SessionOptions, config.session, "session")
    jwt = as_record(JWTOptions, config.jwt, "jwt")
    secrets = find_secrets(config.secret, env)
    auth_url = env.get("AUTH_URL") or env.get("NEXTAUTH_URL") or None
    url_origin, url_path = _parse_auth_url(auth_url)
    short_secret = _short_secret(secrets, env)
    base_path = _base_path(config.base_path, url_path)
    path_warning = _base_path_warning(config.base_path, url_path, auth_url)
    trust_host = _trust_host(config.trust_host, env)
    if not trust_host and url_origin is None:
        raise UntrustedHost(
            "Host must be trusted: set trust_host=True (or AUTH_TRUST_HOST=true) when a "
            "proxy you control sets the Host header, or set AUTH_URL to the public URL"
        )
    providers = with_senders(tuple(_provider(value, env) for value in config.providers))
    by_id: dict[str, Provider] = {}
    for provider in providers:
        if provider.id in by_id:
            raise Configuration(f"two providers have the id {provider.id!r}")
        by_id[provider.id] = provider
    oauth = {p.id: p for p in providers if isinstance(p, OAuthProvider)}
    strategy = _strategy(session, config.adapter, providers)
    _check_adapter(config.adapter, strategy, providers)
    webauthn = _check_webauthn(config.experimental, config.adapter, providers)
    _check_session_features(session, config.adapter, strategy, providers)
    two_factor = two_factor_options(config.two_factor, config.adapter, providers)
    for option, number in (
        ("session.max_age", session.max_age),
        ("session.update_age", session.update_age),
        ("session.fresh_age", session.fresh_age),
        ("jwt.max_age", 0 if jwt.max_age is None else jwt.max_age),
    ):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise Configuration(f"`{option}` must be a non-negative integer")
    unknown = sorted(set(config.experimental) - EXPERIMENTAL_FLAGS)
    if unknown:
        raise Configuration(f"`experimental` has unknown keys: {', '.join(unknown)}")
    secure = config.use_secure_cookies
    if secure is None and url_origin is not None:
        secure = url_origin.startswith("https://")
    overrides = dict(config.cookies)
    warnings = ["short-secret"] if short_secret else []
    if path_warning is not None:
        warnings.append(path_warning)
    if config.debug:
        warnings.append("debug-enabled")
    if config.skip_csrf_check is not None:
        warnings.append("csrf-disabled")
    if webauthn:
        warnings.append("experimental-webauthn")
    rate_limits = resolve_rate_limits(
        config.rate_limits, adapter=config.adapter, default_store=counters, secret=secrets[0]
    )
    languages, translations = offered(config.languages, config.translations)
    return Settings(
        config=config,
        secrets=secrets,
        base_path=base_path,
        url_origin=url_origin,
        trust_host=trust_host,
        strategy=strategy,
        session=session,
        jwt=jwt,
        jwt_max_age=jwt.max_age if jwt.max_age is not None else session.max_age,
        secure_cookies=secure,
        cookies=cookie_set(False, session.max_age, overrides),
        secure_cookie_set=cookie_set(True, session.max_age, overrides),
        callbacks=as_record(Callbacks, config.callbacks, "callbacks"),
        events=as_record(Events, config.events, "events"),
        logger=as_record(Logger, config.logger, "logger"),
        pages=as_record(Pages, config.pages, "pages"),
        theme=as_record(Theme, config.theme, "theme"),
        providers=providers,
        providers_by_id=by_id,
        oauth_providers=oauth,
        keeps_provider_tokens=any(p.refreshes or p.end_session for p in oauth.values()),
        skip_csrf=config.skip_csrf_check is not None,
        debug=config.debug,
        redirect_proxy_url=config.redirect_proxy_url or env.get("AUTH_REDIRECT_PROXY_URL") or None,
        adapter=config.adapter,
        warnings=tuple(warnings),
        rate_limits=rate_limits,
        deadlines=_deadlines(config.deadlines),
        single_flight=_single_flight(config.single_flight, config.adapter),
        adapter_extras=frozenset(
            m for m in OPTIONAL_METHODS if callable(getattr(config.adapter, m, None))
        ),
        two_factor=two_factor,
        password_hasher=getattr(config.adapter, "password_hasher", None) or ARGON2ID,
        languages=languages,
        translations=translations,
    )


def _single_flight(configured: Any, adapter: Any) -> Any:
    """The store refreshes meet in: the configured one (checked), else the adapter if it is
    one, else ``None``."""
    if configured is None:
        has_all = all(callable(getattr(adapter, m, None)) for m in SINGLE_FLIGHT_METHODS)
        return adapter if adapter is not None and has_all else None
    missing = [m for m in SINGLE_FLIGHT_METHODS if not callable(getattr(configured, m, None))]
    if missing:
        raise Configuration(f"`single_flight` has no {', '.join(missing)} method")
    return configured


def _deadlines(value: Deadlines | Mapping[str, Any] | None) -> Deadlines:
    deadlines = as_record(Deadlines, value, "deadlines")
    for name in ("callback", "adapter", "sign_in"):
        seconds = getattr(deadlines, name)
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0
        ):
            raise Configuration(f"`deadlines.{name}` must be a positive number of seconds or None")
    return deadlines


def find_secrets(secret: str | Sequence[str] | None, env: Mapping[str, str]) -> tuple[str, ...]:
    """The secrets, newest first: ``secret``, else ``AUTH_SECRET_3..1`` then ``AUTH_SECRET``
    (or ``NEXTAUTH_SECRET``); :class:`MissingSecretError` when there are none."""
    if isinstance(secret, str):
        found: tuple[str, ...] = (secret,) if secret else ()
    elif secret is not None:
        found = tuple(s for s in secret if s)
        if any(not isinstance(s, str) for s in found):
            raise Configuration("`secret` must be a string or a list of strings")
    else:
        primary = env.get("AUTH_SECRET") or env.get("NEXTAUTH_SECRET")
        numbered = [env.get(f"AUTH_SECRET_{n}") for n in (3, 2, 1)]
        found = tuple(s for s in (*numbered, primary) if s)
    if not found:
        raise MissingSecretError(
            "Please define a `secret` (or set AUTH_SECRET), e.g. from `openssl rand -base64 33`"
        )
    return found


MIN_SECRET_LENGTH = 32
"""Secrets shorter than this are refused in production and warned about otherwise."""


def is_production(env: Mapping[str, str]) -> bool:
    """An https ``AUTH_URL`` (or ``NEXTAUTH_URL``), or ``ENV``/``PYTHON_ENV`` = ``production``."""
    url_origin, _ = _parse_auth_url(env.get("AUTH_URL") or env.get("NEXTAUTH_URL") or None)
    return (url_origin or "").startswith("https://") or "production" in (
        env.get("ENV", "").lower(),
        env.get("PYTHON_ENV", "").lower(),
    )


def framework_defaults(
    config: AuthConfig,
    env: Mapping[str, str],
    *,
    base_path: str,
    development_secret: Callable[[], str] | None = None,
) -> AuthConfig:
    """``config`` with a framework's defaults for what it and ``env`` leave out:
    ``base_path`` (unless ``AUTH_URL`` has a path) and, outside production
    (:func:`is_production`), a trusted ``Host`` (unless ``AUTH_TRUST_HOST`` or ``AUTH_URL``
    says otherwise) and, when there is no secret, ``development_secret()``. In production
    a missing secret stays missing (:func:`resolve` names ``AUTH_SECRET``)."""
    changes: dict[str, Any] = {}
    auth_url = env.get("AUTH_URL") or env.get("NEXTAUTH_URL") or ""
    if config.base_path is None and not urlsplit(auth_url).path.strip("/"):
        changes["base_path"] = base_path
    if not is_production(env):
        if config.trust_host is None and not auth_url and env.get("AUTH_TRUST_HOST") is None:
            changes["trust_host"] = True
        if development_secret is not None and not _has_secret(config.secret, env):
            changes["secret"] = development_secret()
    return dataclasses.replace(config, **changes) if changes else config


def _has_secret(secret: str | Sequence[str] | None, env: Mapping[str, str]) -> bool:
    try:
        find_secrets(secret, env)
    except MissingSecretError:
        return False
    return True


def _short_secret(secrets: tuple[str, ...], env: Mapping[str, str]) -> bool:
    """Whether a secret is too short; in production (:func:`is_production`) that is a
    :class:`MissingSecretError`."""
    if all(len(secret) >= MIN_SECRET_LENGTH for secret in secrets):
        return False
    if is_production(env):
        raise MissingSecretError(
            f"a secret is shorter than {MIN_SECRET_LENGTH} characters; make one with "
            '`python -c "import secrets; print(secrets.token_urlsafe(32))"`'
        )
    return True


def _parse_auth_url(value: str | None) -> tuple[str | None, str | None]:
    if not value:
        return None, None
    parts = urlsplit(value if "://" in value else f"https://{value}")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise Configuration(f"AUTH_URL is not an http(s) URL: {value!r}")
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}".lower(), path or None


def _base_path(configured: str | None, url_path: str | None) -> str:
    path = configured if configured is not None else (url_path or "/auth")
    if not path.startswith("/") or "?" in path or "#" in path:
        raise Configuration(f"`base_path` must be an absolute path, got {path!r}")
    path = path.rstrip("/")
    if not path:
        raise Configuration("`base_path` cannot be the root path")
    return path


def _base_path_warning(
    configured: str | None, url_path: str | None, auth_url: str | None
) -> str | None:
    """Auth.js's warning when ``AUTH_URL`` has a path (``url_path``) and ``base_path`` is set
    as well: ``env-url-basepath-redundant`` when the URL's path is exactly ``base_path`` (it
    says it already), ``env-url-basepath-mismatch`` when it is not, a trailing slash counting
    as Auth.js counts it (``base_path`` wins)."""
    if configured is None or url_path is None or auth_url is None:
        return None
    exact = urlsplit(auth_url if "://" in auth_url else f"https://{auth_url}").path
    return "env-url-basepath-redundant" if exact == configured else "env-url-basepath-mismatch"


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _trust_host(configured: bool | None, env: Mapping[str, str]) -> bool:
    if configured is not None:
        return bool(configured)
    raw = env.get("AUTH_TRUST_HOST")
    if raw is None:
        return False
    value = raw.strip().lower()
    if value not in _TRUE | _FALSE:
        raise Configuration(f"AUTH_TRUST_HOST must be true or false, got {raw!r}")
    return value in _TRUE


def _provider(value: Any, env: Mapping[str, str]) -> Provider:
    """A provider record from a record, a mapping (Auth.js's provider object: its
    ``options`` deep-merged over the rest), or a function returning either (Auth.js's
    function providers, e.g. ``providers=[GitHub]``), filled from ``AUTH_<ID>_*`` and checked."""
    if callable(value) and not isinstance(value, Provider | Mapping):
        value = value()
        if not isinstance(value, Provider | Mapping):
            raise Configuration(f"a provider function returned {type(value).__name__}")
    if isinstance(value, Provider):
        provider = value
    elif isinstance(value, Mapping):
        provider = _from_mapping(value)
    else:
        raise Configuration(f"not a provider: {value!r}")
    provider = _fill_from_env(provider, env)
    provider.check()
    return provider


def _from_mapping(value: Mapping[str, Any]) -> Provider:
    options = value.get("options")
    if isinstance(options, Mapping):
        defaults = {k: v for k, v in value.items() if k != "options"}
        value = merge_options(defaults, options)
    kind = PROVIDER_KINDS.get(value.get("type", ""))
    if kind is None:
        known = ", ".join(sorted(PROVIDER_KINDS))
        raise Configuration(
            f"provider {value.get('id')!r} has unknown type {value.get('type')!r} (known: {known})"
        )
    return kind.from_mapping(value)


def _fill_from_env(provider: Provider, env: Mapping[str, str]) -> Provider:
    """``AUTH_<ID>_ID``/``_SECRET``/``_ISSUER``/``_KEY`` fill ``client_id``/``client_secret``/
    ``issuer``/``api_key`` (those of the four the provider has: ``api_key`` on e-mail API
    providers and on services that take a key, such as Bungie).

    A provider's built-in ``default_issuer`` comes last: configuration, then env, then it.
    """
    prefix = provider.env_prefix
    names = {f.name for f in dataclasses.fields(provider)}
    fill: dict[str, Any] = {
        field: env[prefix + suffix]
        for field, suffix in (
            ("client_id", "ID"),
            ("client_secret", "SECRET"),
            ("issuer", "ISSUER"),
            ("api_key", "KEY"),
        )
        if field in names and getattr(provider, field) is None and env.get(prefix + suffix)
    }
    default_issuer = getattr(provider, "default_issuer", None)
    if default_issuer is not None and getattr(provider, "issuer", None) is None:
        fill.setdefault("issuer", default_issuer)
    return dataclasses.replace(provider, **fill) if fill else provider


def _strategy(session: SessionOptions, adapter: Any, providers: Sequence[Provider]) -> Strategy:
    if session.strategy not in (None, "jwt", "database"):
        raise Configuration(
            f"`session.strategy` must be 'jwt' or 'database', got {session.strategy!r}"
        )
    strategy: Strategy = session.strategy or ("database" if adapter is not None else "jwt")
    for provider in providers:
        if isinstance(provider, CredentialsProvider):
            if provider.authorize is None:
                raise MissingAuthorize(
                    f"the credentials provider {provider.id!r} needs an `authorize` function"
                )
            if strategy == "database":
                raise UnsupportedStrategy(
                    "credentials sign-in only works with JWT sessions: set "
                    "session={'strategy': 'jwt'} (an adapter makes 'database' the default)"
                )
    return strategy


def _check_adapter(adapter: Any, strategy: Strategy, providers: Sequence[Provider]) -> None:
    needs_email = any(p.type == "email" for p in providers)
    needs_password = any(p.type == "password" for p in providers)
    if (needs_email or needs_password or strategy == "database") and adapter is None:
        feature = (
            "e-mail sign-in"
            if needs_email
            else "password accounts"
            if needs_password
            else "the database session strategy"
        )
        raise MissingAdapter(f"{feature} requires an adapter")
    required: list[str] = []
    if needs_email:
        required += EMAIL_METHODS
    if needs_password:
        required += PASSWORD_METHODS
    if adapter is not None and any(p.type in ("oauth", "oidc") for p in providers):
        required += OAUTH_METHODS
    if strategy == "database":
        required += DATABASE_METHODS
    missing = sorted({m for m in required if not callable(getattr(adapter, m, None))})
    if missing:
        raise MissingAdapterMethods(f"Required adapter methods were missing: {', '.join(missing)}")


def _check_webauthn(
    experimental: Mapping[str, bool], adapter: Any, providers: Sequence[Provider]
) -> bool:
    """Auth.js's WebAuthn assertions; whether there is a WebAuthn provider."""
    webauthn = [p for p in providers if isinstance(p, WebAuthnProvider)]
    for provider in webauthn:
        check_ceremony_options(provider)
    conditional = [p for p in webauthn if p.enable_conditional_ui]
    if len(conditional) > 1:
        raise DuplicateConditionalUI(
            f"the WebAuthn providers {', '.join(p.id for p in conditional)} all offer passkeys "
            "in the browser's autofill (`enable_conditional_ui`, on by default): only one may; "
            "set enable_conditional_ui=False on the others"
        )
    for provider in conditional:
        if not provider.has_webauthn_autocomplete:
            raise MissingWebAuthnAutocomplete(
                f"the WebAuthn provider {provider.id!r} offers passkeys in the browser's "
                "autofill (`enable_conditional_ui`, on by default), but none of its "
                "form_fields has 'webauthn' in its autocomplete: add it to one, or set "
                "enable_conditional_ui=False"
            )
    if not webauthn:
        return False
    if not any(experimental.get(flag) for flag in EXPERIMENTAL_FLAGS):
        raise ExperimentalFeatureNotEnabled(
            "WebAuthn is an experimental feature. To enable it, set "
            'experimental={"enable_webauthn": True} in your config'
        )
    if adapter is None:
        raise MissingAdapter("WebAuthn requires an adapter")
    missing = sorted({m for m in WEBAUTHN_METHODS if not callable(getattr(adapter, m, None))})
    if missing:
        raise MissingAdapterMethods(f"Required adapter methods were missing: {', '.join(missing)}")
    return True


def _check_session_features(
    session: SessionOptions, adapter: Any, strategy: Strategy, providers: Sequence[Provider]
) -> None:
    """Refresh-token rotation with database sessions and revocable sessions need adapter
    methods beyond Auth.js's."""
    required: list[str] = []
    refreshing = any(getattr(p, "refreshes", False) for p in providers)
    if strategy == "database" and refreshing:
        required += ["list_accounts_by_user_id", "update_account_tokens", "get_account"]
    if strategy == "database" and any(getattr(p, "end_session", False) for p in providers):
        required += ["list_accounts_by_user_id"]
    backchannel = [p.id for p in providers if getattr(p, "backchannel_logout", False)]
    if backchannel:
        if adapter is None:
            raise MissingAdapter("back-channel logout requires an adapter")
        if strategy == "jwt" and not session.revocation:
            raise Configuration(
                f"back-channel logout ({', '.join(backchannel)}) ends JWT sessions through "
                "revocation: set session={'revocation': True}"
            )
        required += ["get_user_by_account", "get_sessions_not_before", "set_sessions_not_before"]
        required += ["delete_sessions_by_user_id"] if strategy == "database" else []
    if session.revocation:
        if adapter is None:
            raise MissingAdapter("revocable sessions (session.revocation) require an adapter")
        required += ["set_sessions_not_before", "get_sessions_not_before"]
        required += ["delete_sessions_by_user_id"] if strategy == "database" else []
        required += list(SESSION_RECORD_METHODS) if strategy == "jwt" else []
    missing = sorted({m for m in required if not callable(getattr(adapter, m, None))})
    if missing:
        raise MissingAdapterMethods(f"Required adapter methods were missing: {', '.join(missing)}")
