"""``POST signin/<email id>`` and ``GET callback/<email id>``: sign-in with a link sent by e-mail.

Sign-in normalises the address, asks the ``sign_in`` callback, stores a one-time
token (only its hash: ``sha256(token + secret)``, as Auth.js, so both can share
one database) and has the provider send the link. The callback uses the token up
(once), then signs the user with that address in, creating it on first use. The
answers never depend on whether an address has an account.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

from .._context import Context, Reply, add_query
from .._flow import Step, call_adapter, invoke, log_error, log_warning, send_http
from ..email import VerificationMessage, link_host, verification_message
from ..errors import (
    AuthError,
    CallbackRouteError,
    Configuration,
    DeadlineExceeded,
    EmailSignInError,
    Verification,
)
from ..providers import EmailProvider
from ..providers.email import normalize_email
from ..providers.email_apis import HTTPEmailProvider, Letter, api_error, sender_of
from .limits import email_attempt
from .login import finish_login, handle_login, run_sign_in_callback
from .strategies import timestamp, utc

INVALID_ADDRESS = "EmailSignin"
"""The sign-in page's ``error`` for an address that was refused (Auth.js's page key)."""


def email_sign_in(ctx: Context, provider: EmailProvider) -> Step[Reply]:
    """Send a sign-in link to the posted ``email`` (within the rate limits); redirect to the
    verify-request page."""
    identifier = yield from _identifier(ctx, provider, ctx.form.get("email"))
    refused = yield from email_attempt(ctx, provider.id, identifier)
    if refused is not None:
        return refused
    if identifier is None:
        yield from log_error(EmailSignInError("the e-mail address given was refused"))
        page = ctx.page_url(ctx.settings.pages.sign_in, "signin")
        return Reply(redirect=add_query(page, {"error": INVALID_ADDRESS}))
    user = yield from _user_with(ctx, identifier)
    redirect = yield from run_sign_in_callback(
        ctx,
        user=user,
        account=_account(provider, identifier, user),
        profile=None,
        credentials=None,
        email={"verification_request": True},
    )
    if redirect is not None:
        return Reply(redirect=redirect)
    token = yield from _new_token(ctx, provider)
    hashed = hash_token(token, _secret(ctx, provider))
    expires = utc(ctx.now + provider.max_age)
    record = {"identifier": identifier, "token": hashed, "expires": expires}
    yield from call_adapter(ctx.settings.adapter, "create_verification_token", record)
    query = {"callbackUrl": (yield from ctx.callback_url()), "token": token, "email": identifier}
    url = f"{ctx.url('callback', provider.id)}?{urlencode(query)}"
    try:
        if provider.send_verification_request is None:
            assert isinstance(provider, HTTPEmailProvider)  # checked at start-up
            yield from send_through_api(ctx, provider, identifier, url)
        else:
            yield from invoke(
                "send_verification_request",
                provider.send_verification_request,
                identifier=identifier,
                url=url,
                expires=expires,
                provider=provider,
                token=token,
                theme=ctx.settings.theme,
                request=ctx.request,
            )
    except EmailSignInError as err:
        yield from _forget(ctx, identifier, hashed)
        yield from log_error(err)
        page = ctx.page_url(ctx.settings.pages.sign_in, "signin")
        return Reply(redirect=add_query(page, {"error": INVALID_ADDRESS}))
    except Exception:
        yield from _forget(ctx, identifier, hashed)
        raise
    page = ctx.url("verify-request")
    return Reply(redirect=add_query(page, {"provider": provider.id, "type": "email"}))


def send_through_api(
    ctx: Context,
    provider: HTTPEmailProvider,
    identifier: str,
    url: str,
    message: VerificationMessage | None = None,
) -> Step[None]:
    """Send ``message`` (default: the sign-in message for ``url``) with the service's
    documented request (``SendHTTP``); :class:`EmailSignInError` when it is not answered
    with 2xx."""
    hostname = urlsplit(url).hostname or "localhost"
    message = message or verification_message(url, link_host(url), ctx.settings.theme)
    letter = Letter(
        to=identifier,
        sender=sender_of(provider, hostname),
        subject=message.subject,
        text=message.text,
        html=message.html,
        url=url,
    )
    request = provider.api.request(provider, letter)
    try:
        response = yield from send_http(request)
    except DeadlineExceeded:
        raise
    except Exception as err:
        raise EmailSignInError(f"{provider.name} could not be reached: {err!r}") from err
    if not 200 <= response.status < 300:
        detail = api_error(response.body)
        raise EmailSignInError(
            f"{provider.name} refused the sign-in e-mail: HTTP {response.status}"
            + (f": {detail}" if detail else "")
        )


def email_callback(ctx: Context, provider: EmailProvider) -> Step[Reply]:
    """Use the link's token (once) and sign in the user with its address."""
    try:
        return (yield from _callback(ctx, provider))
    except AuthError:
        raise
    except Exception as err:
        raise CallbackRouteError(err, cause={"provider": provider.id}) from err


def _callback(ctx: Context, provider: EmailProvider) -> Step[Reply]:
    token, identifier = ctx.query.get("token"), ctx.query.get("email")
    if not token or not identifier:
        raise Verification("the sign-in link has no token or no e-mail address")
    hashed = hash_token(token, _secret(ctx, provider))
    used = yield from call_adapter(
        ctx.settings.adapter, "use_verification_token", identifier, hashed
    )
    if (
        not isinstance(used, Mapping)
        or used.get("identifier") != identifier
        or timestamp(used.get("expires")) <= ctx.now
    ):
        raise Verification("the sign-in link is invalid, expired or used already")
    user = yield from _user_with(ctx, identifier)
    account = _account(provider, identifier, user)
    redirect = yield from run_sign_in_callback(
        ctx, user=user, account=account, profile=None, credentials=None, email=None
    )
    if redirect is not None:
        return Reply(redirect=redirect)
    login = yield from handle_login(ctx, provider, user=user, account=account)
    return (yield from finish_login(ctx, login))


def hash_token(token: str, secret: str) -> str:
    """What is stored for a verification token: ``sha256(token + secret)`` in hex."""
    return hashlib.sha256((token + secret).encode()).hexdigest()


def _secret(ctx: Context, provider: EmailProvider) -> str:
    # Auth.js stringifies a list of secrets with commas; kept so that links work across both.
    return provider.secret or ",".join(ctx.settings.secrets)


def _identifier(ctx: Context, provider: EmailProvider, given: Any) -> Step[str | None]:
    """The normalised address, or ``None`` when it is refused."""
    if provider.normalize_identifier is None:
        try:
            return normalize_email(given)
        except ValueError:
            return None
    if not isinstance(given, str):
        return None
    try:
        value = yield from invoke(
            "normalize_identifier", provider.normalize_identifier, identifier=given
        )
    except ValueError as err:
        yield from log_warning("email-refused", f"normalize_identifier raised {type(err).__name__}")
        return None
    return value if isinstance(value, str) and value else None


def _user_with(ctx: Context, identifier: str) -> Step[dict[str, Any]]:
    """The stored user with this address, or a provisional one (not stored)."""
    found = yield from call_adapter(ctx.settings.adapter, "get_user_by_email", identifier)
    if found:
        return dict(found)
    return {"id": ctx.random_uuid(), "email": identifier, "email_verified": None}


def _account(provider: EmailProvider, identifier: str, user: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "provider_account_id": identifier,
        "user_id": user["id"],
        "type": "email",
        "provider": provider.id,
    }


def _new_token(ctx: Context, provider: EmailProvider) -> Step[str]:
    if provider.generate_verification_token is None:
        return ctx.random_hex(32)
    token = yield from invoke("generate_verification_token", provider.generate_verification_token)
    if not isinstance(token, str) or not token:
        raise Configuration("`generate_verification_token` must return a non-empty string")
    return token


def _forget(ctx: Context, identifier: str, hashed: str) -> Step[None]:
    """Remove a token whose link could not be sent (it would only be a dead row)."""
    try:
        yield from call_adapter(ctx.settings.adapter, "use_verification_token", identifier, hashed)
    except Exception as err:
        yield from log_error(err)
