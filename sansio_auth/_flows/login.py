"""Steps every sign-in method shares: the ``sign_in`` callback, finding or creating the
user (with an adapter), issuing the session (:mod:`.strategies`), and where to go next.

A provider's callback flow ends with::

    known = yield from user_by_account(ctx, account)          # OAuth: for the sign_in callback
    redirect = yield from run_sign_in_callback(ctx, user=known or user, account=account, ...)
    login = yield from handle_login(ctx, provider, user=user, account=account, profile=profile)
    return (yield from finish_login(ctx, login, profile=profile))
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

import msgspec

from .._context import Context, Reply, add_query
from .._flow import Step, call_adapter, emit, invoke, is_conflict, log_error
from ..errors import (
    AccessDenied,
    AccountNotLinked,
    AdapterError,
    AuthError,
    Configuration,
    OAuthAccountNotLinked,
)
from ..settings import Settings
from . import second_factor
from .address_claim import claim_address
from .limits import remember_sign_in
from .session_list import check_operation, current_session
from .strategies import LoginResult, session_strategy, utc


def as_user(value: Any) -> dict[str, Any]:
    """A user record as a plain dict, from a mapping, a dataclass or a msgspec struct."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, msgspec.Struct):
        return msgspec.structs.asdict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise Configuration(f"expected a user mapping, got {type(value).__name__}")


def run_sign_in_callback(ctx: Context, **params: Any) -> Step[str | None]:
    """Ask the ``sign_in`` callback; ``None`` to go on, or the URL it redirects to.

    False (or any falsy value) and exceptions other than :class:`AuthError` deny
    access with :class:`AccessDenied`.
    """
    callback = ctx.settings.callbacks.sign_in
    if callback is None:
        return None
    try:
        allowed = yield from invoke("sign_in", callback, **params)
    except AuthError:
        raise
    except Exception as err:
        raise AccessDenied(err) from err
    if not allowed:
        raise AccessDenied("the sign_in callback refused the sign-in")
    if isinstance(allowed, str):
        return (yield from ctx.redirect(allowed))
    return None


# -- users and accounts (with an adapter) ------------------------------------------------------


def user_by_account(ctx: Context, account: Mapping[str, Any]) -> Step[dict[str, Any] | None]:
    """The stored user an account is linked to (``None`` without an adapter), under its
    provider's id or that of another provider of the same OpenID Connect issuer
    (:func:`same_issuer`: two clients of one issuer see one subject as one account)."""
    if ctx.settings.adapter is None:
        return None
    subject = str(account["provider_account_id"])
    for provider_id in same_issuer(ctx.settings, str(account["provider"])):
        found = yield from call_adapter(
            ctx.settings.adapter, "get_user_by_account", provider_id, subject
        )
        if found:
            return dict(found)
    return None


def same_issuer(settings: Settings, provider_id: str) -> list[str]:
    """``provider_id`` first, then the other OpenID Connect providers configured with the
    same issuer (``google`` and ``google-mobile``: two clients of one service)."""
    provider = settings.oauth_providers.get(provider_id)
    issuer = _issuer(provider)
    others = [
        other.id
        for other in settings.oauth_providers.values()
        if other.id != provider_id and issuer is not None and _issuer(other) == issuer
    ]
    return [provider_id, *others]


def _issuer(provider: Any) -> str | None:
    if provider is None or provider.type != "oidc" or not provider.issuer:
        return None
    return str(provider.issuer).rstrip("/")


def vouches(profile: Mapping[str, Any] | None, email: Any) -> bool:
    """Whether a provider's ``profile`` vouches for ``email``: it says ``email_verified`` (the
    OpenID Connect claim; ``"true"`` as some services send it) of that very address."""
    if profile is None or not isinstance(email, str) or not email:
        return False
    said = profile.get("email_verified")
    claimed = profile.get("email")
    return (
        (said is True or said == "true")
        and isinstance(claimed, str)
        and claimed.strip().casefold() == email.strip().casefold()
    )


def _verified_by(
    ctx: Context,
    current: dict[str, Any],
    user: Mapping[str, Any],
    profile: Mapping[str, Any] | None,
) -> Step[dict[str, Any]]:
    """The signed-in user, their address marked verified when the account being linked to
    them vouches for it (the user proved it at the provider)."""
    email = current.get("email")
    if current.get("email_verified") or not vouches(profile, email):
        return current
    if not isinstance(user.get("email"), str) or user["email"].casefold() != str(email).casefold():
        return current
    updated = yield from call_adapter(
        ctx.settings.adapter, "update_user", {"id": current["id"], "email_verified": utc(ctx.now)}
    )
    stored = dict(updated) if updated else {**current, "email_verified": utc(ctx.now)}
    yield from emit(ctx.settings.events.update_user, "update_user", user=stored)
    return stored


def handle_login(
    ctx: Context,
    provider: Any,
    *,
    user: Mapping[str, Any],
    account: Mapping[str, Any],
    profile: Mapping[str, Any] | None = None,
    stored_account: Mapping[str, Any] | None = None,
) -> Step[LoginResult]:
    """Find or create the user ``account`` signs in as (authjs-facts §6.5, §6.6).

    Without an adapter the user is the one given. An ``email`` account signs in as
    the user with that address (created if there is none; the address is marked
    verified). Any other account: the user it is linked to; else it is linked to
    the signed-in user (freshly signed in); else, when a user has its e-mail address,
    :class:`OAuthAccountNotLinked` (:class:`AccountNotLinked` for WebAuthn; unless the
    provider sets ``allow_dangerous_email_account_linking`` and that user's address is
    verified: then it is linked to that user); else a new user is created with it. An
    account of another provider with the same OpenID Connect issuer counts as this one (one
    subject of an issuer is one account). ``stored_account`` is what gets linked (default
    ``account``). Writes are all or nothing: a failed sign-up deletes the user it created.
    An unverified address proved by an e-mail link is claimed (:mod:`.address_claim`); a
    provider that vouches for the address (:func:`vouches`) verifies it on sign-up and link.
    """
    if ctx.settings.adapter is None:
        return LoginResult(user=dict(user), account=dict(account))
    if account.get("type") == "email":
        return (yield from _email_login(ctx, user, account, retry=True))
    link = dict(stored_account or account)
    return (yield from _account_login(ctx, provider, user, account, link, profile, retry=True))


class Link(enum.Enum):
    """What an OAuth sign-in with an adapter does with its account: a row of the
    account-linking table (docs/database.md, authjs-facts §6.5)."""

    SIGN_IN_AS_OWNER = "sign in as the user the account is linked to"
    REFUSE_LINKED_ELSEWHERE = "the account is linked to another user than the signed-in one"
    LINK_TO_CURRENT = "link the account to the signed-in user"
    REFUSE_EMAIL_TAKEN = "a user has the address and the provider may not link by it"
    LINK_BY_EMAIL = "link the account to the user with its address"
    SIGN_UP = "create a user with the account"


def decide_link(
    *,
    signed_in: object,
    linked_to: object,
    email_taken: bool,
    dangerous_email_linking: bool,
    email_verified: bool = True,
) -> Link:
    """The account-linking table.

    ``signed_in`` is the id of the browser's user and ``linked_to`` the id of the
    user the account is linked to (``None``: none); ``email_taken`` whether a user
    has the profile's address, ``email_verified`` whether that user verified it;
    ``dangerous_email_linking`` the provider's ``allow_dangerous_email_account_linking``,
    which never links to an unverified address (whoever made that account may not own it).
    """
    if linked_to is not None:
        if signed_in is not None and signed_in != linked_to:
            return Link.REFUSE_LINKED_ELSEWHERE
        return Link.SIGN_IN_AS_OWNER
    if signed_in is not None:
        return Link.LINK_TO_CURRENT
    if email_taken:
        if dangerous_email_linking and email_verified:
            return Link.LINK_BY_EMAIL
        return Link.REFUSE_EMAIL_TAKEN
    return Link.SIGN_UP


def _account_login(
    ctx: Context,
    provider: Any,
    user: Mapping[str, Any],
    account: Mapping[str, Any],
    link: dict[str, Any],
    profile: Mapping[str, Any] | None,
    *,
    retry: bool,
) -> Step[LoginResult]:
    """Gather the facts :func:`decide_link` needs, then do what it decided."""
    session = yield from current_session(ctx)
    current = session.user if session is not None and session.stored else None
    owner = yield from user_by_account(ctx, account)
    try:
        by_email = None
        if owner is None and current is None:  # the only case where the address matters
            by_email = yield from _user_by_email(ctx, user.get("email"))
        decision = decide_link(
            signed_in=_id(current),
            linked_to=_id(owner),
            email_taken=by_email is not None,
            email_verified=bool(by_email and by_email.get("email_verified")),
            dangerous_email_linking=getattr(
                provider, "allow_dangerous_email_account_linking", False
            ),
        )
        match decision:
            case Link.REFUSE_EMAIL_TAKEN if retry:
                # A concurrent sign-up may have created the address's user with this very
                # account after we looked for its owner: look once more before refusing.
                return (
                    yield from _account_login(
                        ctx, provider, user, account, link, profile, retry=False
                    )
                )
            case Link.REFUSE_LINKED_ELSEWHERE | Link.REFUSE_EMAIL_TAKEN:
                cause = {"provider": account["provider"]}
                refusal = (
                    AccountNotLinked if account.get("type") == "webauthn" else OAuthAccountNotLinked
                )
                raise refusal(_REFUSALS[decision], cause=cause)
            case Link.SIGN_IN_AS_OWNER:
                assert owner is not None
                return LoginResult(user=owner, account=_owned(account, owner))
            case Link.LINK_TO_CURRENT:
                assert session is not None
                assert current is not None
                check_operation(ctx, session, "link-account")  # a new way in: a fresh sign-in only
                current = yield from _verified_by(ctx, current, user, profile)
                return (yield from _link_to(ctx, current, account, link, profile, keep=True))
            case Link.LINK_BY_EMAIL:
                assert by_email is not None
                return (yield from _link_to(ctx, by_email, account, link, profile, keep=False))
            case Link.SIGN_UP:
                verified = utc(ctx.now) if vouches(profile, user.get("email")) else None
                created, linked = yield from _sign_up(
                    ctx, {**user, "email_verified": verified}, link
                )
                return LoginResult(
                    user=created,
                    account=_owned(account, created),
                    is_new_user=True,
                    events=(("create_user", {"user": created}), _linked(created, linked, profile)),
                )
    except AdapterError as err:
        if not (retry and is_conflict(err)):
            raise
        # A concurrent request linked this account (or took this address) first: decide again.
        return (yield from _account_login(ctx, provider, user, account, link, profile, retry=False))


_REFUSALS = {
    Link.REFUSE_LINKED_ELSEWHERE: "The account is already associated with another user",
    Link.REFUSE_EMAIL_TAKEN: "Another account already exists with the same e-mail address",
}


def _id(user: Mapping[str, Any] | None) -> object:
    return None if user is None else user["id"]


def _user_by_email(ctx: Context, email: Any) -> Step[dict[str, Any] | None]:
    if not isinstance(email, str) or not email:
        return None
    found = yield from call_adapter(ctx.settings.adapter, "get_user_by_email", email)
    return dict(found) if found else None


def _link_to(
    ctx: Context,
    user: dict[str, Any],
    account: Mapping[str, Any],
    link: dict[str, Any],
    profile: Mapping[str, Any] | None,
    *,
    keep: bool,
) -> Step[LoginResult]:
    """Link the account to ``user`` (``keep``: the browser's session stays)."""
    linked = yield from _link(ctx, link, user)
    return LoginResult(
        user=user,
        account=_owned(account, user),
        keep_session=keep,
        events=(_linked(user, linked, profile),),
    )


def _email_login(
    ctx: Context, user: Mapping[str, Any], account: Mapping[str, Any], *, retry: bool
) -> Step[LoginResult]:
    """The user with the verified address: ``email_verified`` set now, created if needed."""
    identifier = str(account["provider_account_id"])
    verified = utc(ctx.now)
    found = yield from call_adapter(ctx.settings.adapter, "get_user_by_email", identifier)
    if found:
        kept_at = yield from claim_address(ctx, found)
        updated = yield from call_adapter(
            ctx.settings.adapter, "update_user", {"id": found["id"], "email_verified": verified}
        )
        stored = dict(updated) if updated else {**found, "email_verified": verified}
        return LoginResult(
            user=stored,
            account=_owned(account, stored),
            events=(("update_user", {"user": stored}),),
            kept_at=kept_at,
        )
    try:
        created = yield from call_adapter(
            ctx.settings.adapter,
            "create_user",
            {**user, "email": identifier, "email_verified": verified},
        )
    except AdapterError as err:
        if not (retry and is_conflict(err)):
            raise
        return (yield from _email_login(ctx, user, account, retry=False))
    stored = dict(created)
    return LoginResult(
        user=stored,
        account=_owned(account, stored),
        is_new_user=True,
        events=(("create_user", {"user": stored}),),
    )


def _link(
    ctx: Context, account: Mapping[str, Any], user: Mapping[str, Any]
) -> Step[dict[str, Any]]:
    record = {**account, "user_id": user["id"]}
    linked = yield from call_adapter(ctx.settings.adapter, "link_account", record)
    return dict(linked) if isinstance(linked, Mapping) else record


def _sign_up(
    ctx: Context, user: dict[str, Any], account: dict[str, Any]
) -> Step[tuple[dict[str, Any], dict[str, Any]]]:
    """Create the user and link its first account, all or nothing."""
    if "create_user_and_account" in ctx.settings.adapter_extras:
        both = yield from call_adapter(
            ctx.settings.adapter, "create_user_and_account", user, account
        )
        created, linked = (both["user"], both["account"]) if isinstance(both, Mapping) else both
        return dict(created), dict(linked)
    created = dict((yield from call_adapter(ctx.settings.adapter, "create_user", user)))
    try:
        linked = yield from _link(ctx, account, created)
    except Exception:
        yield from undo_sign_up(ctx, created["id"])
        raise
    return created, linked


def undo_sign_up(ctx: Context, user_id: str) -> Step[None]:
    """Delete a user created by a sign-in that then failed (accounts and sessions go too)."""
    if "delete_user" not in ctx.settings.adapter_extras:
        yield from log_error(
            AdapterError(
                "a failed sign-up left a user behind: the adapter has no delete_user",
                cause={"user_id": user_id},
            )
        )
        return
    try:
        yield from call_adapter(ctx.settings.adapter, "delete_user", user_id)
    except Exception as err:
        yield from log_error(err)


def _owned(account: Mapping[str, Any], user: Mapping[str, Any]) -> dict[str, Any]:
    return {**account, "user_id": user["id"]}


def _linked(
    user: Mapping[str, Any], account: Mapping[str, Any], profile: Mapping[str, Any] | None
) -> tuple[str, dict[str, Any]]:
    return ("link_account", {"user": user, "account": account, "profile": profile})


# -- the session and the way out -----------------------------------------------------------------


def finish_login(
    ctx: Context, login: LoginResult, *, profile: Mapping[str, Any] | None = None
) -> Step[Reply]:
    """Stop at the second factor when it applies (:mod:`.second_factor`), else
    :func:`complete_login`."""
    challenge = yield from second_factor.intercept(ctx, login, profile)
    if challenge is not None:
        return challenge
    return (yield from complete_login(ctx, login, profile=profile))


def complete_login(
    ctx: Context, login: LoginResult, *, profile: Mapping[str, Any] | None = None
) -> Step[Reply]:
    """Issue the session, mark the browser a known device of the user (the rate limits'
    device cookie), emit the events, and redirect (to ``pages.new_user`` on sign-up).

    If issuing the session fails, a user this sign-in created is deleted again.
    """
    try:
        yield from session_strategy(ctx).issue(ctx, login, profile=profile)
    except Exception:
        if login.is_new_user:
            yield from undo_sign_up(ctx, str(login.user["id"]))
        raise
    remember_sign_in(ctx, login)
    events = ctx.settings.events
    for name, message in login.events:
        yield from emit(getattr(events, name), name, **message)
    yield from emit(
        events.sign_in,
        "sign_in",
        user=login.user,
        account=login.account,
        profile=profile,
        is_new_user=login.is_new_user,
    )
    destination = yield from ctx.callback_url()
    new_user_page = ctx.settings.pages.new_user
    if login.is_new_user and new_user_page is not None:
        return Reply(redirect=add_query(new_user_page, {"callbackUrl": destination}))
    return Reply(redirect=destination)
