"""``POST signin/<oauth id>`` and ``GET|POST callback/<oauth id>``: the authorization code flow.

Sign-in sends the browser to the provider with the check values (PKCE, state,
nonce) kept in their cookies. The callback checks the response, exchanges the
code, validates the ID token (oidc) or fetches userinfo (oauth), maps the profile
to a user and an account, asks the ``sign_in`` callback and issues the session.
Any failure ends on the error page (``OAuthCallbackError`` on the sign-in page)
with no session cookie and no ``sign_in`` event; the check cookies are deleted
whatever happens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import msgspec

from .._context import Context, Reply
from .._flow import Step, invoke, raise_deadline
from ..errors import (
    AuthError,
    CallbackRouteError,
    Configuration,
    InvalidCheck,
    InvalidEndpoints,
    OAuthCallbackError,
    OAuthProfileParseError,
)
from ..events import Failed, HTTPResponse, Log
from ..fetch import ProviderResponseError
from ..http import origin_and_path, repeated_params
from ..oauth.authorize_url import (
    OIDC_DEFAULT_SCOPE,
    authorization_url,
    is_form_post,
    request_params,
)
from ..oauth.callback import (
    AuthorizationCode,
    AuthorizationResponseError,
    ProviderDenied,
    StateMismatch,
    parse_authorization_response,
)
from ..oauth.checks import (
    new_state,
    pkce_challenge,
    random_value,
    read_state,
    seal,
    unseal_claims,
)
from ..oauth.discovery import AuthorizationServer, authorization_server, relies_on_pkce
from ..oauth.id_token import (
    IDTokenError,
    allowed_algorithms,
    provider_signed_claims,
    validate_id_token,
)
from ..oauth.refresh import single_flight_key
from ..oauth.tokens import TokenResponseError, TokenSet, parse_token_response, token_request
from ..providers.oauth import OAuthProvider, OIDCProvider, SignedUserinfo
from .login import as_user, finish_login, handle_login, run_sign_in_callback, user_by_account
from .own_accounts import check_link
from .refresh import renew_account_tokens
from .single_flight import forget, send_once

# -- sign-in -----------------------------------------------------------------------------------


def oauth_sign_in(
    ctx: Context, provider: OAuthProvider, *, link_to: str | None = None
) -> Step[Reply]:
    """Redirect to the provider's authorization endpoint, setting the check cookies (and, to
    link the account to the user with id ``link_to``, the link cookie: see
    :mod:`.own_accounts`)."""
    settings = ctx.settings
    server = yield from authorization_server(provider, ctx.cache, ctx.now, callback=False)
    endpoint = server.authorization_endpoint
    if endpoint is None:
        raise InvalidEndpoints(f"provider {provider.id!r} has no authorization endpoint")
    proxy = _redirect_proxy(ctx, provider)
    params = request_params(
        endpoint,
        client_id=provider.client_id or "",
        redirect_uri=_redirect_uri(ctx, provider, proxy),
        provider_params={**provider.authorization.params, **provider.authorization_params},
        request_query=ctx.query,
    )
    cross_site = is_form_post(params)
    checks = _checks(provider, proxy, server)
    max_age = _max_age(params)
    sent = {} if max_age is None else {"max_age": max_age}

    def keep(spec_name: str, value: str) -> None:
        spec = getattr(ctx.cookie_specs, spec_name)
        ctx.out_cookies.set(
            seal(
                spec,
                value,
                provider_id=provider.id,
                secrets=settings.secrets,
                now=ctx.now,
                entropy=ctx.entropy,
                cross_site=cross_site,
                extra=sent,
            )
        )

    state = challenge = nonce = None
    if "state" in checks:
        on_proxy = proxy is not None and _origin(proxy) == ctx.origin
        origin = ctx.url("callback", provider.id) if proxy is not None and not on_proxy else None
        state = new_state(settings.secrets, now=ctx.now, entropy=ctx.entropy, origin=origin)
        keep("state", state)
    if "pkce" in checks:
        verifier = random_value(ctx.entropy)
        challenge = pkce_challenge(verifier)
        keep("pkce_code_verifier", verifier)
    if "nonce" in checks:
        nonce = random_value(ctx.entropy)
        keep("nonce", nonce)
    if link_to is not None:
        keep("link_account", link_to)
    url = authorization_url(
        endpoint,
        params,
        state=state,
        code_challenge=challenge,
        nonce=nonce,
        default_scope=OIDC_DEFAULT_SCOPE if isinstance(provider, OIDCProvider) else None,
    )
    return Reply(redirect=provider.authorization_redirect(url))


def _configured_params(provider: OAuthProvider) -> dict[str, str]:
    """The authorization parameters the configuration gives (no request query)."""
    return request_params(
        provider.authorization.url or "",
        client_id="",
        redirect_uri="",
        provider_params={**provider.authorization.params, **provider.authorization_params},
        request_query={},
    )


def _configured_form_post(provider: OAuthProvider) -> bool:
    return is_form_post(_configured_params(provider))


def _max_age(params: Mapping[str, str]) -> int | None:
    """The ``max_age`` the authorization request sends, in seconds, if any."""
    text = params.get("max_age")
    if text is None:
        return None
    if not text.isascii() or not text.isdigit():
        raise Configuration(f"`max_age` must be a whole number of seconds, got {text[:20]!r}")
    return int(text)


def _redirect_proxy(ctx: Context, provider: OAuthProvider) -> str | None:
    """The redirect proxy base URL, unless the provider posts its response (``form_post``)."""
    proxy = provider.redirect_proxy_url or ctx.settings.redirect_proxy_url
    if proxy is None or _configured_form_post(provider):
        return None
    return proxy.rstrip("/")


def _redirect_uri(ctx: Context, provider: OAuthProvider, proxy: str | None) -> str:
    if proxy is not None:
        return f"{proxy}/callback/{provider.id}"
    return ctx.url("callback", provider.id)


def _checks(
    provider: OAuthProvider, proxy: str | None, server: AuthorizationServer
) -> frozenset[str]:
    """The provider's checks, with ``state`` added when the redirect proxy needs it or
    when PKCE is the only protection and the provider is not known to support S256
    (RFC 9700 §2.1.1: only PKCE the server enforces stops a forged callback)."""
    checks = set(provider.checks)
    if proxy is not None or (relies_on_pkce(provider) and not server.pkce_s256):
        checks.add("state")
    return frozenset(checks)


def _origin(url: str) -> str:
    return origin_and_path(url)[0]


# -- callback ----------------------------------------------------------------------------------


def oauth_callback(ctx: Context, provider: OAuthProvider) -> Step[Reply]:
    """Finish the sign-in the provider sent the browser back from."""
    params: Mapping[str, Any] = ctx.form if ctx.method == "POST" else ctx.query
    hop = _proxy_hop(ctx, provider, params)
    if hop is not None:
        return hop
    _delete_check_cookies(ctx)
    try:
        return (yield from _callback(ctx, provider, params))
    except AuthError:
        raise
    except Exception as err:
        raise CallbackRouteError(err, cause={"provider": provider.id}) from err


def _proxy_hop(ctx: Context, provider: OAuthProvider, params: Mapping[str, Any]) -> Reply | None:
    """On the redirect proxy, send a preview deployment's callback on to it (§6.10)."""
    proxy = _redirect_proxy(ctx, provider)
    state = params.get("state")
    if proxy is None or _origin(proxy) != ctx.origin or not isinstance(state, str):
        return None
    if repeated_params(params):
        return None  # refused here, by the callback: the hop would hide the repetition
    target = read_state(state, ctx.settings.secrets, now=ctx.now).get("origin")
    if not isinstance(target, str):
        return None
    parts = urlsplit(target)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        raise InvalidCheck("the state's origin is not a callback URL")
    if _origin(target) == ctx.origin:
        return None
    query = urlencode({k: v for k, v in params.items() if isinstance(v, str)})
    return Reply(redirect=f"{target}?{query}")


def _delete_check_cookies(ctx: Context) -> None:
    """Every check cookie the browser sent is used up by this callback."""
    specs = ctx.cookie_specs
    for spec in (specs.state, specs.pkce_code_verifier, specs.nonce, specs.link_account):
        if spec.name in ctx.cookies:
            cookie = spec.delete()
            if ctx.method == "POST":  # it was set cross-site (form_post): delete it alike
                options = msgspec.structs.replace(cookie.options, same_site="none", secure=True)
                cookie = msgspec.structs.replace(cookie, options=options)
            ctx.out_cookies.set(cookie)


def _callback(ctx: Context, provider: OAuthProvider, params: Mapping[str, Any]) -> Step[Reply]:
    """The callback's steps. Their order is part of the behaviour: the state cookie is checked
    before discovery (unless the checks depend on it), the PKCE and nonce cookies once the
    provider's answer is."""
    proxy = _redirect_proxy(ctx, provider)
    server: AuthorizationServer | None = None
    if relies_on_pkce(provider):  # whether the state is checked depends on the metadata
        server = yield from authorization_server(provider, ctx.cache, ctx.now, callback=True)
    checks = _checks(provider, proxy, server or AuthorizationServer())
    state = _checked(ctx, provider, checks, "state")
    if server is None:
        server = yield from authorization_server(provider, ctx.cache, ctx.now, callback=True)
    code = yield from _authorization_code(provider, server, params, _value(state))
    pkce = _checked(ctx, provider, checks, "pkce")
    nonce = _checked(ctx, provider, checks, "nonce")
    redirect_uri = _redirect_uri(ctx, provider, proxy)
    tokens, kept = yield from _exchange_code(
        ctx, provider, server, code, redirect_uri, _value(pkce)
    )
    max_age = _sent_max_age(provider, (state, pkce, nonce))
    profile = yield from _profile(ctx, provider, server, tokens, _value(nonce), max_age)
    profile = yield from provider.complete_profile(profile, tokens, params)
    user, account = yield from _user_and_account(ctx, provider, profile, tokens)
    reply = yield from _sign_in(ctx, provider, user, account, profile, tokens)
    yield from forget(ctx, kept)  # signed in: the code's answer is spent
    return reply


_CHECK_COOKIES = {"state": "state", "pkce": "pkce_code_verifier", "nonce": "nonce"}
"""The cookie (:class:`~sansio_auth.cookies.CookieSet` key) of each check."""


def _checked(
    ctx: Context, provider: OAuthProvider, checks: frozenset[str], what: str
) -> dict[str, Any] | None:
    """The claims sealed in the cookie of check ``what`` (``None`` if the provider skips
    it); :class:`InvalidCheck` when it is missing, expired or not this provider's."""
    if what not in checks:
        return None
    return unseal_claims(
        ctx.cookies,
        getattr(ctx.cookie_specs, _CHECK_COOKIES[what]),
        what=what,
        provider_id=provider.id,
        secrets=ctx.settings.secrets,
        now=ctx.now,
    )


def _value(claims: Mapping[str, Any] | None) -> str | None:
    return None if claims is None else str(claims["value"])


def _sent_max_age(
    provider: OAuthProvider, sealed: tuple[Mapping[str, Any] | None, ...]
) -> int | None:
    """The ``max_age`` the sign-in sent: kept in its check cookies (a sign-in request's
    query may set it), else (no check cookies) the configured one."""
    found = [claims for claims in sealed if claims is not None]
    if not found:
        return _max_age(_configured_params(provider))
    value = found[0].get("max_age")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _authorization_code(
    provider: OAuthProvider,
    server: AuthorizationServer,
    params: Mapping[str, Any],
    expected_state: str | None,
) -> Step[AuthorizationCode]:
    """The code of the provider's answer, once its state and issuer are checked.

    Everything here came through the browser, so a refusal is the browser's fault (logged
    without a traceback); the provider's own error text is logged at debug only."""
    try:
        return parse_authorization_response(
            params,
            expected_state=expected_state,
            issuer=server.issuer,
            iss_required=server.iss_parameter_supported,
            repeated=repeated_params(params),
        )
    except StateMismatch as err:
        raise InvalidCheck(str(err), cause={"provider": provider.id}) from err
    except ProviderDenied as err:
        details = {"error": err.error, "error_description": err.description, "error_uri": err.uri}
        yield Log(
            level="debug",
            code="OAuthCallbackError",
            message="OAuthCallbackError",
            metadata={"provider": provider.id, **details},
        )
        raise OAuthCallbackError(
            "OAuth Provider returned an error",
            cause={"provider": provider.id, **details},
            fault="browser",
        ) from err
    except AuthorizationResponseError as err:
        raise CallbackRouteError(err, cause={"provider": provider.id}, fault="browser") from err


def _exchange_code(
    ctx: Context,
    provider: OAuthProvider,
    server: AuthorizationServer,
    code: AuthorizationCode,
    redirect_uri: str,
    verifier: str | None,
) -> Step[tuple[TokenSet, str]]:
    """The token set the token endpoint gives for ``code``, and the single-flight key its
    answer is kept under (for a node that dies before answering the browser: the callback the
    load balancer sends again to another node finds it, see :mod:`.single_flight`)."""
    if server.token_endpoint is None:
        raise InvalidEndpoints(f"provider {provider.id!r} has no token endpoint")
    request = token_request(
        server.token_endpoint,
        code=code.code,
        redirect_uri=redirect_uri,
        code_verifier=verifier,
        client_id=provider.client_id or "",
        client_secret=provider.client_secret,
        auth_method=provider.client.token_endpoint_auth_method,
        extra={k: str(v) for k, v in provider.token.params.items()},
    )
    prepared = provider.prepare_token_request(request)
    secret = f"{code.code}\0{verifier or ''}"  # what the request sends; seals its answer
    key = single_flight_key(server.token_endpoint, secret, kind="code")
    event = yield from send_once(ctx, prepared, key, secret, store_optional=True, in_process=False)
    if not isinstance(event, HTTPResponse):
        error = event.error if isinstance(event, Failed) else None
        if error is not None:
            raise_deadline(error, prepared)
        raise ProviderResponseError(
            f"the token request to {prepared.shown()} failed: {error!r}",
            hint="provider-unreachable",
        ) from error
    response = event
    try:
        tokens = parse_token_response(
            provider.conform_token_status(response.status),
            response.body,
            now=ctx.now,
            conform=provider.conform_token_response,
        )
    except TokenResponseError as err:
        if provider.hooks.token_error is None or err.error is None:
            raise
        raise provider.hooks.token_error(provider, err) from err
    return tokens, key


def _profile(
    ctx: Context,
    provider: OAuthProvider,
    server: AuthorizationServer,
    tokens: TokenSet,
    nonce: str | None,
    max_age: int | None,
) -> Step[dict[str, Any]]:
    """oidc: the valid ID token's claims (or userinfo with the same ``sub``); oauth: userinfo."""
    if not isinstance(provider, OIDCProvider):
        return (yield from _userinfo(ctx, provider, server, tokens))
    claims = yield from _id_token_claims(ctx, provider, server, tokens, nonce, max_age)
    if provider.id_token:
        return claims
    profile = yield from _userinfo(ctx, provider, server, tokens)
    if profile.get("sub") != claims["sub"]:
        raise IDTokenError("the userinfo `sub` is not the ID token's")
    return profile


def _id_token_claims(
    ctx: Context,
    provider: OIDCProvider,
    server: AuthorizationServer,
    tokens: TokenSet,
    nonce: str | None,
    max_age: int | None,
) -> Step[dict[str, Any]]:
    """The claims of the token set's ID token, once its signature, issuer, audience, times,
    ``nonce`` and (with ``max_age`` sent) ``auth_time`` are checked."""
    id_token = tokens.get("id_token")
    if not isinstance(id_token, str):
        raise IDTokenError("the token response has no `id_token`")
    assert server.issuer is not None  # an oidc provider always has discovered metadata here
    return (
        yield from validate_id_token(
            id_token,
            jwks_uri=server.jwks_uri,
            algorithms=allowed_algorithms(
                provider.client.id_token_signed_response_alg, server.id_token_algorithms
            ),
            cache=ctx.cache,
            issuer=provider.id_token_issuer(server.issuer, id_token),
            client_id=provider.client_id or "",
            now=ctx.now,
            nonce=nonce,
            client_secret=provider.client_secret,
            max_age=max_age,
        )
    )


def _userinfo(
    ctx: Context, provider: OAuthProvider, server: AuthorizationServer, tokens: TokenSet
) -> Step[dict[str, Any]]:
    if provider.userinfo.request is not None:
        profile = yield from invoke(
            "userinfo", provider.userinfo.request, tokens=tokens, provider=provider
        )
    else:
        url = server.userinfo_endpoint
        if url is None:
            raise InvalidEndpoints(f"provider {provider.id!r} has no userinfo endpoint")
        if provider.userinfo.params:
            url += ("&" if "?" in url else "?") + urlencode(provider.userinfo.params)
        profile = yield from provider.request_userinfo(url, tokens)
    if isinstance(profile, SignedUserinfo):
        profile = yield from _signed_userinfo(ctx, provider, server, profile.jwt)
    elif provider.client.userinfo_signed_response_alg and provider.userinfo.request is None:
        raise IDTokenError(  # a declared signature is not optional: no downgrade to plain JSON
            "the userinfo response is not signed (`application/jwt`) although "
            f"{provider.client.userinfo_signed_response_alg} was declared"
        )
    if not isinstance(profile, Mapping):
        raise ValueError("the userinfo profile is not a mapping")
    return dict(profile)


def _signed_userinfo(
    ctx: Context, provider: OAuthProvider, server: AuthorizationServer, jwt: str
) -> Step[dict[str, Any]]:
    """The claims of a signed userinfo response (OpenID Connect Core §5.3.2): verified like
    an ID token, from the issuer, for this client."""
    what = "signed userinfo"
    claims = yield from provider_signed_claims(
        jwt,
        jwks_uri=server.jwks_uri,
        algorithms=allowed_algorithms(
            provider.client.userinfo_signed_response_alg, server.userinfo_algorithms
        ),
        cache=ctx.cache,
        now=ctx.now,
        client_secret=provider.client_secret,
        what=what,
    )
    if server.issuer is None or claims.get("iss") != server.issuer:
        raise IDTokenError(f"the {what}'s `iss` is not the issuer")
    aud = claims.get("aud")
    if provider.client_id not in ([aud] if isinstance(aud, str) else aud or []):
        raise IDTokenError(f"the {what} is not for this client (`aud`)")
    return claims


def default_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Auth.js's default ``profile()``: ``id``, ``name``, ``email``, ``image`` from OIDC claims."""
    values = {
        "id": _first(profile, "sub", "id"),
        "name": _first(profile, "name", "nickname", "preferred_username"),
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }
    return {key: value for key, value in values.items() if value is not None}


def _first(profile: Mapping[str, Any], *names: str) -> Any:
    return next((profile[n] for n in names if profile.get(n) is not None), None)


ACCOUNT_TOKEN_FIELDS = (
    "access_token",
    "id_token",
    "refresh_token",
    "expires_at",
    "scope",
    "token_type",
    "session_state",
)
"""Token fields a linked account keeps unless the provider's ``account`` callback says otherwise."""


def _account_to_store(
    ctx: Context, provider: OAuthProvider, account: Mapping[str, Any], tokens: TokenSet
) -> Step[dict[str, Any] | None]:
    """What is linked (with an adapter): ``provider.account(tokens)`` or the standard fields."""
    if ctx.settings.adapter is None:
        return None
    if provider.account is None:
        fields: Any = {k: tokens[k] for k in ACCOUNT_TOKEN_FIELDS if tokens.get(k) is not None}
    else:
        fields = yield from invoke("account", provider.account, tokens=tokens)
        if not isinstance(fields, Mapping):
            raise Configuration(f"the {provider.id} `account` callback must return a mapping")
    ids = ("provider", "type", "provider_account_id")
    return {**fields, **{key: account[key] for key in ids}}


def _user_and_account(
    ctx: Context, provider: OAuthProvider, profile: dict[str, Any], tokens: TokenSet
) -> Step[tuple[dict[str, Any], dict[str, Any]]]:
    """The user (a fresh random ``id``, e-mail lower-cased) and the account (token set + ids)."""
    if provider.profile is None:
        mapped: Any = default_profile(profile)
    else:
        try:
            mapped = yield from invoke("profile", provider.profile, profile=profile, tokens=tokens)
        except AuthError:
            raise
        except Exception as err:
            raise OAuthProfileParseError(err, cause={"provider": provider.id}) from err
    try:
        user = as_user(mapped)
    except Configuration as err:
        raise OAuthProfileParseError(err, cause={"provider": provider.id}) from err
    account_id = user.get("id")
    if account_id is None or account_id == "" or isinstance(account_id, bool):
        raise OAuthProfileParseError(
            f"the {provider.id} profile has no id: the account could not be recognised again",
            cause={"provider": provider.id},
        )
    user["id"] = ctx.random_uuid()
    if isinstance(user.get("email"), str):
        user["email"] = user["email"].lower()
    account = {
        **tokens,
        "provider": provider.id,
        "type": provider.type,
        "provider_account_id": str(account_id),
    }
    return user, account


def _sign_in(
    ctx: Context,
    provider: OAuthProvider,
    user: dict[str, Any],
    account: dict[str, Any],
    profile: dict[str, Any],
    tokens: TokenSet,
) -> Step[Reply]:
    """Ask the ``sign_in`` callback, find or create the user, issue the session."""
    yield from check_link(ctx, provider)
    known = yield from user_by_account(ctx, account)
    redirect = yield from run_sign_in_callback(
        ctx, user=known or user, account=account, profile=profile, credentials=None, email=None
    )
    if redirect is not None:
        return Reply(redirect=redirect)
    stored = yield from _account_to_store(ctx, provider, account, tokens)
    login = yield from handle_login(
        ctx, provider, user=user, account=account, profile=profile, stored_account=stored
    )
    if known is not None and stored is not None:
        yield from renew_account_tokens(ctx, provider, stored)
    return (yield from finish_login(ctx, login, profile=profile))
