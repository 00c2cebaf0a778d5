"""Federated sign-out (differences from Auth.js, whose sign-out leaves the provider's
session alive so "sign in" signs the same user straight back in).

* RP-Initiated Logout 1.0: with the provider's ``end_session`` (or a sign-out posting
  ``federated=true``), ``POST signout`` ends our session, then sends the browser to the
  provider's ``end_session_endpoint`` with ``id_token_hint``, ``client_id``,
  ``post_logout_redirect_uri`` (``<base>/signout/callback/<id>``) and a ``state`` kept in
  a sealed cookie; ``GET signout/callback/<id>`` checks the ``state`` and goes on to the
  callback URL (validated by the ``redirect`` callback when it was given).
* Back-Channel Logout 1.0: ``POST backchannel-logout/<id>`` with a ``logout_token`` from a
  provider with ``backchannel_logout`` on (and ``backchannel_logout_supported`` in its
  metadata) ends the sessions it names: those of the provider session (``sid``), else of
  the user (``sub``). Database sessions are deleted (a row keeps the provider session it
  was signed in with), JWT sessions revoked (:mod:`.revocation`). Answers ``200``, or
  ``400`` with an OAuth error (``invalid_request``, or ``temporarily_unavailable`` when a
  store failed); never cached.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

import msgspec

from .._context import Context, Reply, add_query, json_reply
from .._flow import Step, call_adapter, log_error
from ..errors import AdapterError, AuthError, InvalidCheck, InvalidProvider
from ..jwt import CLOCK_TOLERANCE
from ..oauth.checks import random_value, seal, unseal_claims
from ..oauth.discovery import discover
from ..oauth.id_token import allowed_algorithms
from ..oauth.logout_token import MAX_AGE, LogoutTokenError, validate_logout_token
from ..providers.oauth import OAuthProvider, OIDCProvider
from .refresh import STATE_CLAIM, oauth_provider, provider_session_key
from .revocation import mark_expiry, revoke
from .strategies import session_and_user, utc

NO_STORE = (("cache-control", "no-store"),)


class Federation(msgspec.Struct, frozen=True, kw_only=True):
    """The provider session a sign-out also ends."""

    provider: OIDCProvider
    id_token: str | None


def _federation(
    provider: OAuthProvider | None, id_token: Any, *, requested: bool
) -> Federation | None:
    """The provider session to end, if ``provider`` is an OIDC one that signs out with us."""
    if not isinstance(provider, OIDCProvider) or not (provider.end_session or requested):
        return None
    return Federation(provider=provider, id_token=id_token if isinstance(id_token, str) else None)


def federation(ctx: Context, value: str, *, requested: bool) -> Step[Federation | None]:
    """The provider session behind the session cookie ``value`` that sign-out should end."""
    if ctx.settings.strategy == "jwt":
        token = yield from ctx.decode_token(value)
        state = (token or {}).get(STATE_CLAIM)
        if not isinstance(state, Mapping):
            return None
        provider = oauth_provider(ctx, state.get("provider"))
        return _federation(provider, state.get("id_token"), requested=requested)
    adapter = ctx.settings.adapter
    found = session_and_user((yield from call_adapter(adapter, "get_session_and_user", value)))
    if found is None:
        return None
    accounts = yield from call_adapter(adapter, "list_accounts_by_user_id", str(found[1]["id"]))
    for account in accounts or ():
        provider = oauth_provider(ctx, account.get("provider"))
        chosen = _federation(provider, account.get("id_token"), requested=requested)
        if chosen is not None:
            return chosen
    return None


def end_session_url(ctx: Context, federation: Federation) -> Step[str | None]:
    """Where to send the browser to end the provider's session (``None``: it has no
    ``end_session_endpoint``); sets the sealed ``state`` cookie checked on return."""
    provider = federation.provider
    metadata = yield from discover(provider, ctx.cache, ctx.now)
    if metadata.end_session_endpoint is None:
        return None
    state = random_value(ctx.entropy)
    ctx.out_cookies.set(
        seal(
            ctx.cookie_specs.state,
            state,
            provider_id=provider.id,
            secrets=ctx.settings.secrets,
            now=ctx.now,
            entropy=ctx.entropy,
        )
    )
    params = {
        "client_id": provider.client_id or "",
        "post_logout_redirect_uri": ctx.url("signout/callback", provider.id),
        "state": state,
    }
    if federation.id_token is not None:
        params = {"id_token_hint": federation.id_token, **params}
    return add_query(metadata.end_session_endpoint, params)


def signout_callback(ctx: Context) -> Step[Reply]:
    """``GET signout/callback/<id>``: the provider ended its session; check ``state`` and go
    on to the callback URL."""
    provider = oauth_provider(ctx, ctx.provider_id)
    if provider is None:
        raise InvalidProvider(f"no OAuth provider {ctx.provider_id!r}")
    spec = ctx.cookie_specs.state
    ctx.out_cookies.delete(spec)
    expected = unseal_claims(
        ctx.cookies,
        spec,
        what="state",
        provider_id=provider.id,
        secrets=ctx.settings.secrets,
        now=ctx.now,
    )["value"]
    given = ctx.query.get("state", "")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise InvalidCheck("the sign-out `state` does not match", cause={"provider": provider.id})
    return Reply(redirect=(yield from ctx.callback_url()))


# -- back-channel logout -----------------------------------------------------------------------


def backchannel_logout(ctx: Context) -> Step[Reply]:
    """``POST backchannel-logout/<id>``: ``200`` once the named sessions are ended, ``400``
    (``invalid_request``) for a token or provider we refuse, ``400``
    (``temporarily_unavailable``) when they could not be ended now (a store is down): the
    provider is a server, never sent to the error page."""
    try:
        yield from _logout(ctx)
    except (LogoutTokenError, InvalidProvider, InvalidCheck) as err:
        yield from log_error(err if isinstance(err, AuthError) else InvalidCheck(err))
        body = {"error": "invalid_request", "error_description": str(err)[:200]}
        return json_reply(body, status=400, headers=NO_STORE)
    except Exception as err:
        yield from log_error(err)
        description = "the sessions could not be ended now"
        body = {"error": "temporarily_unavailable", "error_description": description}
        return json_reply(body, status=400, headers=NO_STORE)
    return Reply(status=200, headers=NO_STORE)


def _logout(ctx: Context) -> Step[None]:
    provider = oauth_provider(ctx, ctx.provider_id)
    if not isinstance(provider, OIDCProvider) or not provider.backchannel_logout:
        raise InvalidProvider(f"back-channel logout is not on for {ctx.provider_id!r}")
    token = ctx.form.get("logout_token")
    if not isinstance(token, str) or not token:
        raise LogoutTokenError("the request has no `logout_token`")
    metadata = yield from discover(provider, ctx.cache, ctx.now)
    if not metadata.backchannel_logout_supported:
        raise LogoutTokenError("the provider does not announce back-channel logout")
    facts = yield from validate_logout_token(
        token,
        jwks_uri=metadata.jwks_uri,
        algorithms=allowed_algorithms(
            provider.client.id_token_signed_response_alg,
            metadata.id_token_signing_alg_values_supported,
        ),
        cache=ctx.cache,
        issuer=metadata.issuer,
        client_id=provider.client_id or "",
        now=ctx.now,
    )
    yield from _first_use(ctx, f"jti:{provider.id}:{facts.jti}")
    if facts.sid is not None:
        key = provider_session_key(provider.id, facts.sid)
        if ctx.settings.strategy == "jwt":
            # the provider session's mark is enough: no user to look up (the users' store may
            # be down while the marks' answers)
            yield from revoke(ctx, key=key)
            return
        if "delete_sessions_by_sid" in ctx.settings.adapter_extras:
            # the rows keep the provider session they were signed in with
            yield from call_adapter(ctx.settings.adapter, "delete_sessions_by_sid", key)
            return
    if facts.sub is None:
        raise LogoutTokenError(
            "the token names a provider session (`sid`) only, and the adapter has no "
            "delete_sessions_by_sid: database sessions are ended by `sub`"
        )
    user = yield from call_adapter(
        ctx.settings.adapter, "get_user_by_account", provider.id, facts.sub
    )
    if user is not None:
        yield from revoke(ctx, user_id=str(user["id"]))


def _first_use(ctx: Context, key: str) -> Step[None]:
    """Refuse a ``jti`` seen before (this process's cache, then the adapter's marks). When
    the marks cannot be read or written, the failure is logged and the logout goes on: a
    replayed logout token can only end the sessions it ended already."""
    cache = ctx.cache.revocations
    seen: Any = cache.get(key, ctx.now)
    adapter = ctx.settings.adapter
    try:
        if seen is None:
            seen = yield from call_adapter(adapter, "get_sessions_not_before", [key])
        if seen is None:
            expires = mark_expiry(ctx, MAX_AGE + CLOCK_TOLERANCE)  # older tokens are refused
            yield from call_adapter(adapter, "set_sessions_not_before", key, utc(ctx.now), expires)
    except AdapterError as err:
        yield from log_error(err)
    if seen is not None:
        raise LogoutTokenError("the logout token was used before (`jti`)")
    cache.put(key, True, now=ctx.now, ttl=600)
