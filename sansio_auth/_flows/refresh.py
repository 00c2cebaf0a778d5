"""Refresh-token rotation on session reads (a difference from Auth.js, which leaves it to
a hand-written ``jwt`` callback).

When a session is read, each provider token state it holds (see
:mod:`sansio_auth.oauth.refresh`) is refreshed at the token endpoint once it is within
the provider's ``refresh_skew`` of expiring. The refresh request carries a single-flight
key (a hash of the refresh token) so a binding makes one request for all the concurrent
reads of a session; the database strategy also writes the new tokens with a
compare-and-swap on the old refresh token, and the loser of a race between processes
re-reads the row. A refusal (``invalid_grant``) is logged and remembered in the state
(never asked again); any other failure keeps the old tokens until they expire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

from .._context import Context
from .._flow import Step, call_adapter, emit, log_error
from ..errors import AuthError, InvalidEndpoints, RefreshAccessTokenError
from ..events import Failed, HTTPResponse
from ..fetch import ProviderResponseError
from ..oauth.discovery import AuthorizationServer, authorization_server
from ..oauth.id_token import (
    IDTokenError,
    allowed_algorithms,
    check_claims,
    provider_signed_claims,
)
from ..oauth.refresh import (
    REFUSED,
    REFUSED_MARK,
    check_refreshed_claims,
    reference_claims,
    refresh_decision,
    refresh_request,
    refreshed_state,
    refused_state,
    single_flight_key,
    state_error,
    usable_access_token,
)
from ..oauth.tokens import TokenResponseError, TokenSet, parse_token_response
from ..providers.oauth import OAuthProvider, OIDCProvider
from .single_flight import send_once

STATE_CLAIM = "oauth"
"""The session token claim holding the sign-in provider's token state (JWT strategy)."""
STATE_FIELDS = ("access_token", "refresh_token", "expires_at")
ACCOUNT_TOKEN_FIELDS = (*STATE_FIELDS, "id_token", "scope", "token_type")
"""What a refresh or a returning sign-in changes on a database session's account row."""
Outcome = Literal["refreshed", "refused", "failed", "elsewhere"]
"""``elsewhere``: another process is refreshing it and the old access token is still valid."""


def oauth_provider(ctx: Context, provider_id: Any) -> OAuthProvider | None:
    """The configured OAuth/OIDC provider with this id, or ``None``."""
    if not isinstance(provider_id, str):
        return None
    return ctx.settings.oauth_providers.get(provider_id)


def sign_in_state(
    provider: OAuthProvider, account: Mapping[str, Any], profile: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The token state a JWT session keeps after signing in with ``provider`` when it
    refreshes (default for OIDC: the access token, its expiry and the refresh token, if
    any, and the ``sub`` a refreshed ID token must keep) or signs out at the provider (and
    the ``id_token``, ``sid``)."""
    federated = provider.end_session or provider.backchannel_logout
    if not (provider.refreshes or federated):
        return None
    state: dict[str, Any] = {"provider": provider.id}
    fields = (*STATE_FIELDS, "id_token") if provider.end_session else STATE_FIELDS
    state.update({k: account[k] for k in fields if account.get(k) is not None})
    sid = (profile or {}).get("sid")
    if isinstance(sid, str) and provider.backchannel_logout:
        state["sid"] = sid
    sub = (profile or {}).get("sub")
    if provider.refreshes and "id_token" not in state and isinstance(sub, str):
        state["sub"] = sub  # what a refreshed ID token must still name (OIDC Core §12.2)
    return state


def provider_sid(
    ctx: Context, account: Mapping[str, Any], profile: Mapping[str, Any] | None
) -> str | None:
    """The provider session (``op:<provider>:<sid>``, from the ID token's ``sid``) a database
    session keeps when its provider does back-channel logout, else ``None``."""
    provider = oauth_provider(ctx, account.get("provider"))
    sid = (profile or {}).get("sid")
    if provider is None or not provider.backchannel_logout or not isinstance(sid, str):
        return None
    return provider_session_key(provider.id, sid)


def provider_session_key(provider_id: str, sid: str) -> str:
    """The key of a provider's session (the ``sid`` of its ID and logout tokens): what
    revocation marks and database session rows name it by."""
    return f"op:{provider_id}:{sid}"


def refresh_tokens(
    ctx: Context, provider: OAuthProvider, state: Mapping[str, Any], *, wait: bool = True
) -> Step[tuple[Outcome, TokenSet | None]]:
    """Ask the token endpoint for new tokens for ``state``; logs any failure. An ID token in
    the answer is validated as at sign-in, and against ``state``'s (OpenID Connect Core
    §12.2); a plain OAuth provider's is not kept (nothing can verify it). ``wait=False``:
    when another process is asking already, do not wait for its answer (``elsewhere``)."""
    refresh_token = state["refresh_token"]
    try:
        server = yield from authorization_server(provider, ctx.cache, ctx.now, callback=True)
        if server.token_endpoint is None:
            raise InvalidEndpoints(f"provider {provider.id!r} has no token endpoint")
        request = provider.prepare_token_request(
            refresh_request(
                server.token_endpoint,
                refresh_token,
                client_id=provider.client_id or "",
                client_secret=provider.client_secret,
                auth_method=provider.client.token_endpoint_auth_method,
            )
        )
        key = single_flight_key(server.token_endpoint, refresh_token)
        event = yield from send_once(ctx, request, key, refresh_token, wait=wait)
        if event is None:
            return "elsewhere", None
        if isinstance(event, Failed):
            raise ProviderResponseError(f"the refresh request failed: {event.error!r}")
        assert isinstance(event, HTTPResponse)
        tokens = parse_token_response(
            provider.conform_token_status(event.status),
            event.body,
            now=ctx.now,
            conform=provider.conform_token_response,
        )
        if isinstance(provider, OIDCProvider) and isinstance(tokens.get("id_token"), str):
            yield from _check_id_token(ctx, provider, server, tokens["id_token"], state)
        elif "id_token" in tokens:
            tokens = cast(TokenSet, {k: v for k, v in tokens.items() if k != "id_token"})
    except TokenResponseError as err:
        refused = err.error in REFUSED
        yield from log_error(RefreshAccessTokenError(err, cause={"provider": provider.id}))
        return ("refused" if refused else "failed"), None
    except AuthError as err:
        yield from log_error(err)
        return "failed", None
    except Exception as err:  # transport, discovery: keep the old tokens
        yield from log_error(RefreshAccessTokenError(err, cause={"provider": provider.id}))
        return "failed", None
    return "refreshed", tokens


def _check_id_token(
    ctx: Context,
    provider: OIDCProvider,
    server: AuthorizationServer,
    id_token: str,
    state: Mapping[str, Any],
) -> Step[None]:
    """Raise :class:`~sansio_auth.oauth.id_token.IDTokenError` unless the refreshed
    ``id_token`` is signed by the issuer (as at sign-in), for this client, current, and goes
    on from the one the session began with (:func:`check_refreshed_claims`)."""
    if server.issuer is None:
        raise IDTokenError("the issuer's metadata is unknown: ID tokens cannot be verified")
    claims = yield from provider_signed_claims(
        id_token,
        jwks_uri=server.jwks_uri,
        algorithms=allowed_algorithms(
            provider.client.id_token_signed_response_alg, server.id_token_algorithms
        ),
        cache=ctx.cache,
        now=ctx.now,
        client_secret=provider.client_secret,
    )
    issuer = provider.id_token_issuer(server.issuer, id_token)
    without_nonce = {k: v for k, v in claims.items() if k != "nonce"}  # checked below
    check_claims(
        without_nonce, issuer=issuer, client_id=provider.client_id or "", now=ctx.now, nonce=None
    )
    check_refreshed_claims(claims, reference_claims(state))


def fresh_state(
    ctx: Context, provider: OAuthProvider, state: Mapping[str, Any]
) -> Step[dict[str, Any] | None]:
    """``state`` refreshed if it is due (refused: marked so), or ``None`` when unchanged.
    While its access token is valid, a refresh another process is making is not waited for."""
    if refresh_decision(state, ctx.now, provider.refresh_skew) != "refresh":
        return None
    valid = usable_access_token(state, ctx.now) is not None
    outcome, tokens = yield from refresh_tokens(ctx, provider, state, wait=not valid)
    if outcome in ("failed", "elsewhere"):
        return None
    if outcome == "refused":
        return refused_state(state)
    assert tokens is not None
    return refreshed_state(state, tokens)


def jwt_token_state(ctx: Context, token: Mapping[str, Any]) -> Step[dict[str, Any] | None]:
    """The session token's state refreshed (and emitted) if due; ``None`` when unchanged.
    Records the current state in ``ctx.token_states``."""
    state = token.get(STATE_CLAIM)
    if not isinstance(state, Mapping):
        return None
    provider = oauth_provider(ctx, state.get("provider"))
    if provider is None:
        return None
    ctx.token_states[provider.id] = dict(state)
    if not provider.refreshes:
        return None
    new = yield from fresh_state(ctx, provider, state)
    if new is None:
        return None
    ctx.token_states[provider.id] = new
    yield from _emit_refreshed(ctx, new, token=token)
    return new


def database_token_states(ctx: Context, user_id: str) -> Step[None]:
    """Refresh the due accounts of ``user_id`` (compare-and-swap on the old refresh token;
    the loser of a race re-reads the row); records them in ``ctx.token_states``."""
    if not ctx.settings.keeps_provider_tokens:
        return
    adapter = ctx.settings.adapter
    accounts = yield from call_adapter(adapter, "list_accounts_by_user_id", user_id)
    for account in accounts or ():
        provider = oauth_provider(ctx, account.get("provider"))
        if provider is None:
            continue
        state = dict(account)
        ctx.token_states[provider.id] = state
        if not provider.refreshes:
            continue
        new = yield from fresh_state(ctx, provider, state)
        if new is None:
            continue
        changes = {k: new.get(k) for k in ACCOUNT_TOKEN_FIELDS}
        key = (provider.id, str(account["provider_account_id"]), state["refresh_token"])
        stored = yield from call_adapter(adapter, "update_account_tokens", *key, changes)
        if stored is None:  # another process refreshed it first: use what it stored
            stored = yield from call_adapter(
                adapter, "get_account", provider.id, str(account["provider_account_id"])
            )
        else:
            yield from _emit_refreshed(ctx, dict(stored), token=None)
        if stored is not None:
            ctx.token_states[provider.id] = dict(stored)


def renew_account_tokens(
    ctx: Context, provider: OAuthProvider, account: Mapping[str, Any]
) -> Step[None]:
    """A returning user signed in with ``provider``: with database sessions its fresh tokens
    replace the account's (a compare-and-swap on the stored refresh token), which may have
    been refused or revoked at the provider since; without this, such an account would never
    refresh again. A concurrent refresh that wins the swap leaves its own, live tokens."""
    if ctx.settings.strategy != "database" or not (provider.refreshes or provider.end_session):
        return
    changes = {k: account.get(k) for k in ACCOUNT_TOKEN_FIELDS}
    if not changes.get("access_token"):
        return
    adapter, account_id = ctx.settings.adapter, str(account["provider_account_id"])
    stored = yield from call_adapter(adapter, "get_account", provider.id, account_id)
    if stored is not None:
        expected = stored.get("refresh_token")
        yield from call_adapter(
            adapter, "update_account_tokens", provider.id, account_id, expected, changes
        )


def session_error(ctx: Context) -> str | None:
    """``"RefreshAccessTokenError"`` when a state of this read cannot be refreshed any more."""
    for state in ctx.token_states.values():
        error = state_error(state, ctx.now)
        if error is not None:
            return error
    return None


def _emit_refreshed(
    ctx: Context, state: dict[str, Any], *, token: Mapping[str, Any] | None
) -> Step[None]:
    """``events.token_refreshed(account=<the new state>, token=<the session token or None>)``."""
    if state.get("refresh_token") != REFUSED_MARK:
        handler = ctx.settings.events.token_refreshed
        yield from emit(handler, "token_refreshed", account=state, token=token)
