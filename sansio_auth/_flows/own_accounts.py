"""The signed-in user's own accounts (not in Auth.js; Better Auth's ``listAccounts``,
``linkSocial``, ``unlinkAccount``, ``deleteUser``): their linked accounts, linking another
provider explicitly, unlinking one, and deleting the user.

Linking: Auth.js links an OAuth account to the signed-in user whenever a sign-in's callback
arrives with a session (kept, see :func:`~.login.decide_link`). ``POST link/<provider>``
makes it explicit: it needs a session and a CSRF token, and seals the user's id in the
``link_account`` cookie for the provider; the callback then refuses to go on unless the
browser is still signed in as that user (never a sign-up or a sign-in as someone else), and
the user comes back to the security page.

Unlinking never removes the last way to sign in (:func:`ways_in`, :func:`can_unlink`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from .._context import Context
from .._flow import Step, call_adapter, emit, log_error
from ..errors import (
    Configuration,
    InvalidCheck,
    LastSignInMethod,
    MissingAdapter,
    RecordNotFound,
    SessionRequired,
)
from ..oauth.checks import unseal_claims
from ..providers import OAuthProvider, PasswordProvider
from ..settings import Settings
from .revocation import revoke
from .session_list import CurrentSession, current_session
from .session_records import drop, records_kept

SIGN_IN_TYPES = frozenset({"oauth", "oidc", "webauthn"})
"""The account types one signs in with (their provider must be configured)."""
EMAIL = "email"
"""The way in of a user with an address while an e-mail provider is configured."""
PASSWORD = "password"  # noqa: S105 - a name, not a password
"""The way in of a user with a password while a password provider is configured."""


def account_way(provider: str, provider_account_id: str) -> str:
    """The way in an account is, by :func:`ways_in`'s naming."""
    return f"account:{provider}:{provider_account_id}"


def ways_in(
    settings: Settings,
    user: Mapping[str, Any],
    accounts: Iterable[Mapping[str, Any]],
    *,
    password: bool = False,
) -> frozenset[str]:
    """The ways the user can sign in: each account of a configured OAuth, OIDC or passkey
    provider of its type, their address when an e-mail provider is configured, and their
    ``password`` (whether they have one) when a password provider is.

    A credentials provider is never counted: whom its ``authorize`` accepts is the app's.
    """
    ways = set()
    for account in accounts:
        provider = settings.providers_by_id.get(str(account.get("provider")))
        kind = account.get("type")
        if provider is not None and kind in SIGN_IN_TYPES and provider.type == kind:
            ways.add(account_way(provider.id, str(account["provider_account_id"])))
    if user.get("email") and any(p.type == "email" for p in settings.providers):
        ways.add(EMAIL)
    if password and any(isinstance(p, PasswordProvider) for p in settings.providers):
        ways.add(PASSWORD)
    return frozenset(ways)


def can_unlink(ways: Collection[str], way: str) -> bool:
    """Whether unlinking ``way`` leaves a way in: always when it is none of ``ways`` (it
    removes none), else when another remains."""
    return way not in ways or len(set(ways) - {way}) >= 1


def _accounts(ctx: Context, current: CurrentSession) -> Step[list[dict[str, Any]]]:
    if not current.stored:
        return []
    adapter = ctx.settings.adapter
    found = yield from call_adapter(adapter, "list_accounts_by_user_id", current.user_id)
    return [dict(a) for a in found or ()]


def _ways_in(
    ctx: Context, current: CurrentSession, accounts: Iterable[Mapping[str, Any]]
) -> Step[frozenset[str]]:
    """:func:`ways_in` of the user, asking the adapter whether they have a password."""
    password = False
    if current.stored and any(isinstance(p, PasswordProvider) for p in ctx.settings.providers):
        found = yield from call_adapter(ctx.settings.adapter, "get_password_hash", current.user_id)
        password = found is not None
    return ways_in(ctx.settings, current.user, accounts, password=password)


def list_accounts(ctx: Context, current: CurrentSession) -> Step[list[dict[str, Any]]]:
    """The user's linked accounts and their password (a way in too, type ``password``), each
    with whether it may be unlinked."""
    accounts = yield from _accounts(ctx, current)
    ways = yield from _ways_in(ctx, current, accounts)
    listed = []
    password = _password_provider(ctx.settings)
    if PASSWORD in ways and password is not None:
        accounts = [_password_account(password, current), *accounts]
    for account in accounts:
        provider = ctx.settings.providers_by_id.get(str(account["provider"]))
        way = (
            PASSWORD
            if account["type"] == PASSWORD
            else account_way(str(account["provider"]), str(account["provider_account_id"]))
        )
        listed.append(
            {
                "provider": account["provider"],
                "providerName": provider.name if provider is not None else account["provider"],
                "type": account["type"],
                "providerAccountId": str(account["provider_account_id"]),
                "canUnlink": can_unlink(ways, way),
            }
        )
    return listed


def unlink_account(
    ctx: Context, current: CurrentSession, provider: str, provider_account_id: str | None
) -> Step[dict[str, Any]]:
    """Unlink the user's account of ``provider`` (the one with ``provider_account_id``, or
    their only one); :class:`RecordNotFound` if they have no such account,
    :class:`LastSignInMethod` if it is their last way in. Emits ``unlink_account``."""
    password = _password_provider(ctx.settings)
    if password is not None and provider == password.id:
        return (yield from _remove_password(ctx, current, password))
    accounts = yield from _accounts(ctx, current)
    matches = [
        a
        for a in accounts
        if a["provider"] == provider
        and (provider_account_id is None or str(a["provider_account_id"]) == provider_account_id)
    ]
    if len(matches) != 1:
        raise RecordNotFound(
            f"no {provider} account of this user"
            if not matches
            else f"this user has several {provider} accounts: say which (providerAccountId)"
        )
    account = matches[0]
    account_id = str(account["provider_account_id"])
    way = account_way(provider, account_id)
    ways = yield from _ways_in(ctx, current, accounts)
    if not can_unlink(ways, way):
        raise LastSignInMethod("this is the user's last way to sign in")
    adapter = ctx.settings.adapter
    unlinked = yield from call_adapter(adapter, "unlink_account", provider, account_id)
    if unlinked is None:
        raise RecordNotFound(f"no {provider} account of this user")
    if way in ways:
        yield from _undo_if_last(ctx, current, unlinked)
    yield from emit(
        ctx.settings.events.unlink_account, "unlink_account", user=current.user, account=unlinked
    )
    return {"provider": provider, "providerAccountId": account_id}


def _password_provider(settings: Settings) -> PasswordProvider | None:
    return next((p for p in settings.providers if isinstance(p, PasswordProvider)), None)


def _password_account(provider: PasswordProvider, current: CurrentSession) -> dict[str, Any]:
    """The user's password as their list of accounts shows it."""
    return {
        "provider": provider.id,
        "type": PASSWORD,
        "provider_account_id": current.user_id,
        "user_id": current.user_id,
    }


def _remove_password(
    ctx: Context, current: CurrentSession, provider: PasswordProvider
) -> Step[dict[str, Any]]:
    """Unlink the user's password (:class:`LastSignInMethod` if it is their last way in)."""
    accounts = yield from _accounts(ctx, current)
    ways = yield from _ways_in(ctx, current, accounts)
    if PASSWORD not in ways:
        raise RecordNotFound("this user has no password")
    if not can_unlink(ways, PASSWORD):
        raise LastSignInMethod("this is the user's last way to sign in")
    yield from call_adapter(ctx.settings.adapter, "set_password_hash", current.user_id, None)
    account = _password_account(provider, current)
    yield from emit(
        ctx.settings.events.unlink_account, "unlink_account", user=current.user, account=account
    )
    return {"provider": provider.id, "providerAccountId": current.user_id}


def _undo_if_last(ctx: Context, current: CurrentSession, unlinked: Mapping[str, Any]) -> Step[None]:
    """A racing unlink of the user's other way in may have gone through meanwhile: look again,
    and link the account back (:class:`LastSignInMethod`) if no way in is left. The look is
    a check only: when it fails, the unlink stands."""
    try:
        after = yield from _accounts(ctx, current)
        ways = yield from _ways_in(ctx, current, after)
    except Exception as err:
        yield from log_error(err)
        return
    if not ways:
        yield from call_adapter(ctx.settings.adapter, "link_account", dict(unlinked))
        raise LastSignInMethod("this is the user's last way to sign in")


def delete_user(ctx: Context, current: CurrentSession) -> Step[dict[str, Any]]:
    """Delete the user and everything stored of them, and end all their sessions: JWT sessions
    are revoked first (with ``session.revocation``), then the adapter's ``delete_user`` removes
    the user with their accounts, sessions, authenticators and session records in one
    transaction. Emits ``delete_user``."""
    settings = ctx.settings
    adapter = settings.adapter
    if adapter is None:
        raise MissingAdapter("deleting a user needs an adapter")
    if current.stored and "delete_user" not in settings.adapter_extras:
        raise Configuration("deleting a user needs the adapter's delete_user")
    if settings.strategy == "jwt" and settings.session.revocation:
        yield from revoke(ctx, user_id=current.user_id)
    if current.stored:
        yield from call_adapter(adapter, "delete_user", current.user_id)
    elif records_kept(ctx):  # a user who is not stored (credentials) has records only
        records = yield from call_adapter(adapter, "list_session_records", current.user_id)
        for record in records or ():
            yield from drop(ctx, record["sid"])
    yield from emit(settings.events.delete_user, "delete_user", user=current.user)
    return {"deleted": current.user_id}


# -- linking -----------------------------------------------------------------------------------


def link_target(ctx: Context, current: CurrentSession) -> OAuthProvider:
    """The OAuth or OIDC provider ``POST link/<provider>`` links an account of to ``current``'s
    user (who must be stored)."""
    provider = ctx.settings.oauth_providers.get(ctx.provider_id or "")
    if provider is None:
        raise RecordNotFound(f"no OAuth or OpenID Connect provider {ctx.provider_id!r} to link")
    if ctx.settings.adapter is None:
        raise MissingAdapter("linking accounts needs an adapter")
    if not current.stored:
        raise RecordNotFound("the signed-in user is not stored: no account can be linked to them")
    return provider


def check_link(ctx: Context, provider: OAuthProvider) -> Step[None]:
    """In a callback of ``provider``: when a ``POST link`` started it (its cookie, made for this
    provider, came back), :class:`SessionRequired` unless the browser is still signed in as
    the user who asked (the account is then linked to them, or refused if it is another's)."""
    spec = ctx.cookie_specs.link_account
    if spec.name not in ctx.cookies:
        return
    try:
        user_id = unseal_claims(
            ctx.cookies,
            spec,
            what="link",
            provider_id=provider.id,
            secrets=ctx.settings.secrets,
            now=ctx.now,
        )["value"]
    except InvalidCheck:  # expired, or an abandoned link of another provider: a sign-in
        return
    current = yield from current_session(ctx)
    if current is None or not current.stored or current.user_id != user_id:
        raise SessionRequired("the session that asked to link this account has ended")
