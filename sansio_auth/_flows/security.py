"""The routes of a user's own sessions and accounts (not in Auth.js), and the same operations
for the server (the runtime's ``list_sessions``, ``revoke_session``, ...).

==============================  =============================  ===============
route                           operation                      fresh sign-in
==============================  =============================  ===============
``GET security``                the page (sessions, accounts)
``GET sessions``                ``list-sessions``
``POST revoke-session``         ``revoke-session`` (``id``)
``POST revoke-other-sessions``  ``revoke-other-sessions``
``GET accounts``                ``list-accounts``
``POST link/<provider>``        starts linking (see :mod:`.own_accounts`)  yes
``POST unlink/<provider>``      ``unlink-account``             yes
``POST delete-user``            ``delete-user``                yes
==============================  =============================  ===============

Every POST needs the CSRF token. A POST with a JSON body (or ``Accept: application/json``)
is answered with JSON: the result, or ``{"error", "message"}`` with the refusal's status; a
form post (the page's buttons) is sent back to ``callbackUrl`` (default: the security page),
with ``?error=`` when refused, and to the sign-in page first when a fresh sign-in is due.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .._context import NO_CACHE, Context, Reply, add_query, json_reply, wants_json
from .._flow import Step, call_adapter, emit, log_error
from ..cookies import read_chunked
from ..errors import (
    AuthError,
    Configuration,
    MissingAdapter,
    MissingAdapterMethods,
    client_error_type,
)
from ..http import Response, iso_date
from ..pages.security import security_context
from . import own_accounts
from .accounts import STATUS, password_provider_or_none, security_url, sign_in_first
from .oauth import oauth_sign_in
from .session_list import (
    CurrentSession,
    ListedSession,
    chosen,
    current_session,
    others,
    require_current,
    session_list,
)
from .session_records import records_kept
from .webauthn import webauthn_provider

Params = Mapping[str, str | None]

_SIGN_IN_FIRST = frozenset({"SessionRequired", "SessionNotFresh"})


# -- the operations ----------------------------------------------------------------------------


def _listed(ctx: Context, current: CurrentSession) -> Step[list[ListedSession]]:
    if ctx.settings.adapter is None:
        raise MissingAdapter("listing sessions needs an adapter")
    _check_methods(ctx, _SESSION_METHODS[ctx.settings.strategy])
    return (yield from session_list(ctx).listed(ctx, current))


def _check_methods(ctx: Context, methods: tuple[str, ...]) -> None:
    """:class:`MissingAdapterMethods` naming those of ``methods`` the adapter lacks."""
    adapter = ctx.settings.adapter
    missing = [m for m in methods if not callable(getattr(adapter, m, None))]
    if missing:
        raise MissingAdapterMethods(f"Required adapter methods were missing: {', '.join(missing)}")


def session_json(session: ListedSession) -> dict[str, Any]:
    """A listed session as the JSON answers show it."""
    return {
        "id": session.id,
        "current": session.current,
        "createdAt": None if session.created_at is None else iso_date(session.created_at),
        "lastSeenAt": None if session.last_seen_at is None else iso_date(session.last_seen_at),
        "expires": iso_date(session.expires),
        "userAgent": session.user_agent,
        "ipAddress": session.ip_address,
    }


def list_sessions(ctx: Context, current: CurrentSession, params: Params) -> Step[Any]:
    """The user's live sessions."""
    return [session_json(s) for s in (yield from _listed(ctx, current))]


def _end(ctx: Context, current: CurrentSession, ending: list[ListedSession]) -> Step[Any]:
    yield from session_list(ctx).end(ctx, ending)
    if any(s.current for s in ending):
        _forget_cookie(ctx)
    ids = [s.id for s in ending]
    if ids:
        events = ctx.settings.events
        yield from emit(
            events.revoke_sessions, "revoke_sessions", user=current.user, session_ids=ids
        )
    return {"revoked": len(ids)}


def revoke_session(ctx: Context, current: CurrentSession, params: Params) -> Step[Any]:
    """End the session ``params["id"]`` (the current one too: then the cookie goes)."""
    listed = yield from _listed(ctx, current)
    session_id = params.get("id")
    return (yield from _end(ctx, current, chosen(listed, [session_id or ""])))


def revoke_other_sessions(ctx: Context, current: CurrentSession, params: Params) -> Step[Any]:
    """End every session of the user but this one."""
    listed = yield from _listed(ctx, current)
    return (yield from _end(ctx, current, others(listed, current.session_id)))


def list_accounts(ctx: Context, current: CurrentSession, params: Params) -> Step[Any]:
    """The user's linked accounts."""
    return (yield from own_accounts.list_accounts(ctx, current))


def unlink_account(ctx: Context, current: CurrentSession, params: Params) -> Step[Any]:
    """Unlink the account ``params["provider"]``/``params["providerAccountId"]``."""
    provider = params.get("provider") or ""
    account_id = params.get("providerAccountId") or None
    return (yield from own_accounts.unlink_account(ctx, current, provider, account_id))


def delete_user(ctx: Context, current: CurrentSession, params: Params) -> Step[Any]:
    """Delete the user; the session cookie goes too."""
    result = yield from own_accounts.delete_user(ctx, current)
    _forget_cookie(ctx)
    return result


def _forget_cookie(ctx: Context) -> None:
    """The browser's session is over: delete its cookie."""
    spec = ctx.cookie_specs.session_token
    _, present = read_chunked(ctx.cookies, spec.name)
    ctx.out_cookies.delete_chunks(spec, present)


class Operation(NamedTuple):
    """An operation on the user's own sessions or accounts."""

    run: Callable[[Context, CurrentSession, Params], Step[Any]]
    methods: tuple[str, ...] = ()
    """The adapter methods it needs (beyond those of listing sessions)."""


_SESSION_METHODS = {"database": ("list_sessions_by_user_id", "delete_session"), "jwt": ()}
"""What listing and ending sessions needs beyond start-up's checks (JWT session records are
checked there, with ``session.revocation``)."""
OPERATIONS: dict[str, Operation] = {
    "list-sessions": Operation(list_sessions),
    "revoke-session": Operation(revoke_session),
    "revoke-other-sessions": Operation(revoke_other_sessions),
    "list-accounts": Operation(list_accounts, methods=("list_accounts_by_user_id",)),
    "unlink-account": Operation(
        unlink_account, methods=("list_accounts_by_user_id", "unlink_account", "link_account")
    ),
    "delete-user": Operation(delete_user),
}
"""Every operation by name (the runtime's calls name them the same); those of
:data:`~.freshness.SENSITIVE` need a fresh sign-in."""


def perform(ctx: Context, name: str, params: Params) -> Step[Any]:
    """Run operation ``name`` for the browser's session (signed in, and fresh if it is
    sensitive)."""
    operation = OPERATIONS[name]
    if operation.methods:
        if ctx.settings.adapter is None:
            raise MissingAdapter(f"{name} needs an adapter")
        _check_methods(ctx, operation.methods)
    current = yield from require_current(ctx, operation=name)
    return (yield from operation.run(ctx, current, params))


def internal(ctx: Context, name: str, params: Params) -> Step[Response]:
    """The server's call of operation ``name``: its result as JSON, or a refusal as
    ``{"error": <type>, "message"}`` with its status (for the server only)."""
    try:
        result = yield from perform(ctx, name, params)
    except AuthError as err:
        yield from log_error(err)
        failure = json_reply({"error": err.type, "message": str(err)}, status=_status(err))
        return ctx.respond(failure, failed=True)
    return ctx.respond(json_reply(result))


def _status(error: Exception) -> int:
    return STATUS.get(client_error_type(error), 500)


# -- the routes --------------------------------------------------------------------------------


def _destination(ctx: Context, default: str) -> Step[str]:
    """Where a form post goes back to: its ``callbackUrl`` (through ``redirect``) or
    ``default``; remembered in the callback-url cookie (a link's callback goes there)."""
    resolved = yield from ctx.redirect(ctx.param("callbackUrl") or default)
    ctx.out_cookies.set(ctx.cookie_specs.callback_url.make(resolved, ctx.now))
    return resolved


def _refusal(ctx: Context, error: Exception, *, json: bool) -> Step[Reply]:
    """The answer to a refused action (logged): JSON, or back to a page with ``?error=``."""
    yield from log_error(error)
    kind = client_error_type(error)
    if json:
        return json_reply({"error": kind, "message": _client_message(error)}, _status(error))
    if kind in _SIGN_IN_FIRST:
        return sign_in_first(ctx, kind, security_url(ctx))
    return Reply(redirect=add_query(security_url(ctx), {"error": kind}))


def _client_message(error: Exception) -> str:
    if isinstance(error, AuthError) and error.client_safe:
        return error.message
    return "The server could not do this: see its logs."


def _refused(error: Exception, json: bool) -> bool:
    """Whether ``error`` is answered as a refusal (the rest goes to the engine's error page)."""
    return json or (isinstance(error, AuthError) and error.client_safe)


def _get(ctx: Context, name: str) -> Step[Reply]:
    try:
        result = yield from perform(ctx, name, {})
    except Exception as err:
        return (yield from _refusal(ctx, err, json=True))
    return json_reply(result, headers=NO_CACHE)


def _post(ctx: Context, name: str, params: Params, default: str | None = None) -> Step[Reply]:
    json = wants_json(ctx)
    try:
        ctx.check_csrf()
        result = yield from perform(ctx, name, params)
    except Exception as err:
        if not _refused(err, json):
            raise
        return (yield from _refusal(ctx, err, json=json))
    if json:
        return json_reply(result)
    return Reply(redirect=(yield from _destination(ctx, default or security_url(ctx))))


def sessions_route(ctx: Context) -> Step[Reply]:
    """``GET sessions``: the user's live sessions (JSON)."""
    return (yield from _get(ctx, "list-sessions"))


def accounts_route(ctx: Context) -> Step[Reply]:
    """``GET accounts``: the user's linked accounts (JSON)."""
    return (yield from _get(ctx, "list-accounts"))


def revoke_session_route(ctx: Context) -> Step[Reply]:
    """``POST revoke-session``: end the session ``id``."""
    return (yield from _post(ctx, "revoke-session", {"id": ctx.param("id")}))


def revoke_other_sessions_route(ctx: Context) -> Step[Reply]:
    """``POST revoke-other-sessions``: end every other session of the user."""
    return (yield from _post(ctx, "revoke-other-sessions", {}))


def unlink_route(ctx: Context) -> Step[Reply]:
    """``POST unlink/<provider>``: unlink the account ``providerAccountId`` of the provider."""
    params = {"provider": ctx.provider_id, "providerAccountId": ctx.param("providerAccountId")}
    return (yield from _post(ctx, "unlink-account", params))


def delete_user_route(ctx: Context) -> Step[Reply]:
    """``POST delete-user``: delete the user (then back to ``callbackUrl`` or the site)."""
    return (yield from _post(ctx, "delete-user", {}, default=ctx.origin))


def link_route(ctx: Context) -> Step[Reply]:
    """``POST link/<provider>``: go to the provider to link an account of it to the user."""
    json = wants_json(ctx)
    try:
        ctx.check_csrf()
        current = yield from require_current(ctx, operation="link-account")
        provider = own_accounts.link_target(ctx, current)
    except Exception as err:
        if not _refused(err, json):
            raise
        return (yield from _refusal(ctx, err, json=json))
    yield from _destination(ctx, security_url(ctx))
    return (yield from oauth_sign_in(ctx, provider, link_to=current.user_id))


def security_page(ctx: Context) -> Step[Reply]:
    """``GET security``: the user's sessions and linked accounts, with buttons to end, unlink,
    link and delete; the sign-in page first when signed out."""
    settings = ctx.settings
    if settings.pages.security is not None:
        return Reply(redirect=add_query(settings.pages.security, ctx.query))
    current = yield from current_session(ctx)
    if current is None:
        sign_in = ctx.page_url(settings.pages.sign_in, "signin")
        return Reply(redirect=add_query(sign_in, {"callbackUrl": ctx.url("security")}))
    listable = settings.adapter is not None and (
        settings.strategy == "database" or records_kept(ctx)
    )
    sessions = (yield from _listed(ctx, current)) if listable else None
    accounts = (yield from own_accounts.list_accounts(ctx, current)) if current.stored else []
    if not listable and not current.stored:
        raise Configuration("the security page needs an adapter (and JWT session revocation)")
    linkable = [
        {"id": p.id, "name": p.name, "url": ctx.url("link", p.id)}
        for p in settings.oauth_providers.values()
    ]
    actions = ("revoke-session", "revoke-other-sessions", "link", "unlink", "delete-user")
    urls: dict[str, str | None] = {action: ctx.url(action) for action in actions}
    urls["security"], urls["site"] = ctx.url("security"), ctx.origin
    passkey = webauthn_provider(ctx) if current.stored else None
    if passkey is not None:  # "Add a passkey": the provider's options, then its callback
        urls["passkey-options"] = ctx.url("webauthn-options", passkey.id)
        urls["add-passkey"] = ctx.url("callback", passkey.id)
    two_factor_enabled = None
    if current.stored:
        two_factor_enabled = yield from _account_pages(ctx, current, accounts, urls)
    context = security_context(
        user=current.user,
        sessions=None if sessions is None else [session_json(s) for s in sessions],
        accounts=accounts,
        linkable=linkable if current.stored else [],
        urls=urls,
        csrf_token=ctx.csrf_token(),
        error=ctx.query.get("error") or None,
        two_factor_enabled=two_factor_enabled,
    )
    reply = ctx.page_reply("security", context)
    reply.headers = (*reply.headers, *NO_CACHE)
    return reply


def _account_pages(
    ctx: Context, current: CurrentSession, accounts: list[dict[str, Any]], urls: dict[str, Any]
) -> Step[bool | None]:
    """Add to ``urls`` the account's pages the configuration offers: a new password (for a
    user who has one) and address with a password provider, two-factor set-up with
    two-factor authentication; whether the user has a second factor (``None``: not offered)."""
    password = password_provider_or_none(ctx)
    if password is not None:
        if any(a["provider"] == password.id for a in accounts):
            urls["change-password"] = ctx.url("change-password")
        urls["change-email"] = ctx.url("change-email")
    if ctx.settings.two_factor is None:
        return None
    urls["two-factor-setup"] = ctx.url("two-factor-setup")
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", current.user_id)
    return bool(record)
