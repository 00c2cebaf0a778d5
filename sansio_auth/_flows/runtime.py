"""Flows a binding runs for the server itself, never routed from a browser: the server-side
actions (sign in, sign out, update and read the session, the ``authorized`` callback; their
rules are in :mod:`sansio_auth.actions`), the session's provider access token, the session
token (Auth.js's ``getToken``), and ending
sessions ("sign out everywhere")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._context import Context, Reply, add_query, json_reply
from .._flow import Step, call_adapter, emit, invoke, log_error
from ..actions import (
    REFUSED,
    ActionResult,
    AuthorizedResult,
    Options,
    SessionResult,
    TokenResult,
    answer,
    back_to_form,
    callback_url,
    cross_site,
)
from ..authorized import decide
from ..errors import AuthError, Configuration
from ..http import Response
from ..jwt import InvalidToken
from ..oauth.refresh import usable_access_token
from ..session_token import find_session_token
from .csrf import csrf as csrf_route
from .kinds import KINDS
from .login import as_user
from .revocation import is_revoked, revoke
from .session import current_session
from .signin import sign_in as sign_in_route
from .signout import sign_out as sign_out_route
from .strategies import LoginResult, session_strategy


def read_session(ctx: Context) -> Step[Response]:
    """The session of ``ctx``'s browser, as ``GET session`` reads it, and whose it is."""
    return _session_result(ctx, (yield from current_session(ctx)))


def update_session(ctx: Context, data: Any) -> Step[Response]:
    """The session updated with ``data`` (``trigger="update"``), as ``POST session`` does."""
    if cross_site(ctx.request, ctx.origin):
        return SessionResult(status=403, body=REFUSED.body, headers=REFUSED.headers)
    return _session_result(ctx, (yield from current_session(ctx, update=True, data=data)))


def _session_result(ctx: Context, session: Any) -> SessionResult:
    user_id = None if session is None else ctx.session_user_id
    return SessionResult(data=session, user_id=user_id, cookies=tuple(ctx.out_cookies))


SERVER_ACCOUNT = "server"
"""The ``provider`` and ``type`` of the account a session the server starts is made with."""


def start_session(ctx: Context, user: Mapping[str, Any]) -> Step[Response]:
    """A new session for ``user`` (with an adapter, the stored user of its ``id``), issued
    as a sign-in issues it (the ``jwt`` callback, ``events.sign_in``) but with no provider,
    no second factor and no redirect: the session and its cookies."""
    user_id = str(user.get("id") or "")
    if not user_id:
        raise Configuration("a session needs a user with an `id`")
    if ctx.settings.adapter is not None:
        found = yield from call_adapter(ctx.settings.adapter, "get_user", user_id)
        if not found:
            raise LookupError(f"no user with id {user_id!r}")
        user = as_user(found)
    account = {
        "provider": SERVER_ACCOUNT,
        "type": SERVER_ACCOUNT,
        "provider_account_id": user_id,
        "user_id": user_id,
    }
    login = LoginResult(user=dict(user), account=account)
    yield from session_strategy(ctx).issue(ctx, login, profile=None)
    yield from emit(
        ctx.settings.events.sign_in,
        "sign_in",
        user=login.user,
        account=account,
        profile=None,
        is_new_user=False,
    )
    return SessionResult(user_id=user_id, cookies=tuple(ctx.out_cookies))


def sign_in(ctx: Context, options: Options, *, form_post: bool) -> Step[Response]:
    """Start (or, for credentials, complete) a sign-in with ``ctx.provider_id``; without a
    provider, or with one not configured when the server acts, go to the sign-in page."""
    if cross_site(ctx.request, ctx.origin):
        return REFUSED
    callback = ctx.form["callbackUrl"] = callback_url(options.redirect_to, ctx.request, ctx.origin)
    provider = ctx.settings.providers_by_id.get(ctx.provider_id or "")
    if provider is None and not (form_post and ctx.provider_id):
        page = add_query(ctx.url("signin"), {"callbackUrl": callback})
        return answer(page, (), redirect=options.redirect)
    kind = KINDS.get(provider.type) if provider is not None else None
    if provider is not None and kind is not None and kind.sign_in is None:
        flow = kind.finish(ctx, provider)  # credentials: the form is checked at once
    else:
        flow = sign_in_route(ctx)
    return (yield from _act(ctx, flow, options, form_post=form_post))


def sign_out(ctx: Context, options: Options, *, form_post: bool) -> Step[Response]:
    """End the session (and, when asked, the provider's) and go to the callback URL."""
    if cross_site(ctx.request, ctx.origin):
        return REFUSED
    ctx.form["callbackUrl"] = callback_url(options.redirect_to, ctx.request, ctx.origin)
    return (yield from _act(ctx, sign_out_route(ctx), options, form_post=form_post))


def _act(ctx: Context, flow: Step[Reply], options: Options, *, form_post: bool) -> Step[Response]:
    """Run an action's route flow with the CSRF decision made: a form post's token is
    checked, the server's own action needs none. A failure answers its error and the page
    that shows it; a route that answers the attempt itself instead of sending the browser on
    (``429`` over a rate limit) is answered as the route answers it."""
    try:
        if form_post:
            ctx.check_csrf()
        ctx.csrf_checked = True
        reply = yield from flow
    except Exception as err:
        yield from log_error(err)
        error = err if isinstance(err, AuthError) else AuthError(err)
        page = ctx.error_reply(err).redirect
        assert page is not None  # errors of these routes go to a page
        url = back_to_form(page, error, ctx.request, ctx.origin)
        return answer(url, ctx.out_cookies.deletions_only(), redirect=True, error=error)
    if reply.redirect is None:
        return ActionResult(
            status=reply.status,
            headers=reply.headers,
            body=reply.body,
            cookies=tuple(ctx.out_cookies),
        )
    return answer(reply.redirect, ctx.out_cookies, redirect=options.redirect)


def authorized(ctx: Context, framework_request: Any) -> Step[Response]:
    """The ``authorized`` callback's decision for ``ctx``'s request (outside ``base_path``),
    given the session and ``framework_request``; without the callback, allowed (and the
    session is not read). A callback that raises is logged and answers 500."""
    callback = ctx.settings.callbacks.authorized
    if callback is None:
        return AuthorizedResult()
    session = yield from current_session(ctx)
    try:
        result = yield from invoke("authorized", callback, auth=session, request=framework_request)
    except Exception as err:
        yield from log_error(
            AuthError("the `authorized` callback raised", cause={"err": err}, fault="callback")
        )
        return AuthorizedResult(
            status=500, headers=(("content-type", "text/plain"),), body=b"Internal Server Error"
        )
    decision = decide(result, request_url=ctx.request.url, settings=ctx.settings)
    cookies = tuple(ctx.out_cookies)
    user_id = None if session is None else ctx.session_user_id
    return AuthorizedResult(
        decision=decision, data=session, user_id=user_id, read=True, cookies=cookies
    )


def access_token(ctx: Context, provider_id: str) -> Step[Response]:
    """The provider's valid access token for the session of ``ctx`` (refreshed if due), or
    ``None``, with the session read's cookies."""
    yield from current_session(ctx)
    state = ctx.token_states.get(provider_id)
    token = None if state is None else usable_access_token(state, ctx.now)
    return TokenResult(token=token, cookies=tuple(ctx.out_cookies))


def csrf_token(ctx: Context) -> Step[Response]:
    """The CSRF token for the forms of ``ctx``'s page, as ``GET csrf`` gives it (``None``
    when CSRF checks are off), with its cookie."""
    reply = yield from csrf_route(ctx)
    token = None if reply.status != 200 else ctx.csrf_token()
    return TokenResult(token=token, cookies=tuple(ctx.out_cookies))


def revoke_sessions(ctx: Context, user_id: str | None, sid: str | None) -> Step[Response]:
    """``{"deleted": n}``: the sessions of ``user_id`` and/or ``sid`` are ended (database rows
    deleted, JWT sessions refused from now on)."""
    deleted = yield from revoke(ctx, user_id=user_id, sid=sid)
    return ctx.respond(json_reply({"deleted": deleted}))


def session_token(ctx: Context, raw: bool) -> Step[Response]:
    """``{"token": ...}``: the session token of ``ctx``'s request (its session cookie, else
    its ``Authorization: Bearer``) decoded, or as sent with ``raw``; ``null`` when there is
    none, it does not decode, or (``session.revocation``) it was revoked."""
    value = find_session_token(ctx.request, ctx.cookie_specs.session_token.name)
    if value is None or raw:
        return ctx.respond(json_reply({"token": value}))
    try:
        token = yield from ctx.decode_token(value)
    except InvalidToken:
        token = None
    if token is not None and ctx.settings.session.revocation:
        token = None if (yield from is_revoked(ctx, token)) else token
    return ctx.respond(json_reply({"token": token}))
