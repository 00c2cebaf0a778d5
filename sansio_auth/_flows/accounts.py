"""What the account flows share (not in Auth.js): the password provider of a request, one-time
tokens and codes sent by e-mail, the account e-mails, and answers as a page or as JSON.

Tokens reuse the e-mail sign-in machinery: the adapter's verification tokens, stored hashed
(``sha256(token + secret)``), used once. Each purpose has its own identifier prefix
(``verify-email:<address>``, ``reset-password:<address>:<fingerprint>``,
``change-email:<user>:<address>``, ``two-factor:<user>``), so a token made for one can never
be used for another, nor as an e-mail sign-in link (whose identifier is the bare address).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from .._context import Context, Reply, add_query, json_reply, wants_json
from .._flow import Step, call_adapter, invoke, log_error, log_warning
from ..email import AccountMessageKind, account_message, link_host
from ..errors import AuthError, InvalidProvider, SessionNotFresh, SessionRequired
from ..http import Page
from ..providers import HTTPEmailProvider, PasswordProvider
from .email_delivery import hash_token, send_through_api
from .session_list import CurrentSession, require_current
from .strategies import timestamp, utc


class FormError(AuthError):
    """Input a form or JSON body must correct (the page is shown again with ``code``)."""

    type = "FormError"
    default_fault = "browser"
    client_safe = True

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message or code)
        self.code = code


def password_provider(ctx: Context) -> PasswordProvider:
    """The configured password provider (the first one); :class:`InvalidProvider` if none."""
    provider = password_provider_or_none(ctx)
    if provider is None:
        raise InvalidProvider("no password provider is configured")
    return provider


def password_provider_or_none(ctx: Context) -> PasswordProvider | None:
    """The configured password provider (the first one), if any."""
    return next((p for p in ctx.settings.providers if isinstance(p, PasswordProvider)), None)


def security_url(ctx: Context) -> str:
    """The security page: ``pages.security`` or the built-in one."""
    return ctx.page_url(ctx.settings.pages.security, "security")


def secret(ctx: Context) -> str:
    """What tokens are hashed with (as e-mail sign-in links: all secrets, comma-joined)."""
    return ",".join(ctx.settings.secrets)


def new_token(ctx: Context, identifier: str, max_age: int) -> Step[tuple[str, Any]]:
    """A fresh one-time token for ``identifier`` (stored hashed), and when it expires."""
    token = ctx.random_hex(32)
    expires = utc(ctx.now + max_age)
    record = {"identifier": identifier, "token": hash_token(token, secret(ctx)), "expires": expires}
    yield from call_adapter(ctx.settings.adapter, "create_verification_token", record)
    return token, expires


def send_link(
    ctx: Context,
    provider: PasswordProvider,
    kind: AccountMessageKind,
    *,
    to: str,
    identifier: str,
    max_age: int,
    route: str,
    **query: str,
) -> Step[None]:
    """Mail ``to`` a link to ``route`` carrying a fresh single-use token of ``identifier``;
    when the e-mail cannot be sent the token is removed again (no dead row is left)."""
    token, expires = yield from new_token(ctx, identifier, max_age)
    url = link(ctx, route, token=token, **query)
    try:
        yield from send(ctx, provider, kind, to=to, url=url, expires=expires, token=token)
    except Exception:
        try:
            yield from use_token(ctx, identifier, token)
        except Exception as err:
            yield from log_error(err)
        raise


def new_code(ctx: Context, identifier: str, max_age: int) -> Step[tuple[str, Any]]:
    """A fresh 6-digit one-time code for ``identifier`` (stored hashed), and its expiry."""
    number = int.from_bytes(ctx.entropy(8), "big") % 1_000_000
    code = str(number).zfill(6)
    expires = utc(ctx.now + max_age)
    record = {"identifier": identifier, "token": hash_token(code, secret(ctx)), "expires": expires}
    yield from call_adapter(ctx.settings.adapter, "create_verification_token", record)
    return code, expires


def use_token(ctx: Context, identifier: str, token: Any) -> Step[bool]:
    """Use up ``token`` (or code) of ``identifier``: whether it was valid (unused, unexpired)."""
    if not isinstance(token, str) or not token or len(token) > 256:
        return False
    used = yield from call_adapter(
        ctx.settings.adapter, "use_verification_token", identifier, hash_token(token, secret(ctx))
    )
    return (
        isinstance(used, Mapping)
        and used.get("identifier") == identifier
        and timestamp(used.get("expires")) > ctx.now
    )


NOTES: Mapping[str, str] = {
    "no-account": "an e-mail was asked for an address no account uses: a note goes instead",
    "account-exists": "a sign-up gave an address that has an account: its owner is told",
}
"""Why an e-mail is a note rather than the link asked for: a refusal whose answer looks like
any other (no account is told apart), so the log is the one place that says it."""


def send(
    ctx: Context,
    provider: PasswordProvider,
    kind: AccountMessageKind,
    *,
    to: str,
    url: str,
    expires: Any = None,
    token: str | None = None,
    code: str | None = None,
) -> Step[None]:
    """Send the account e-mail ``kind`` to ``to`` with the provider's sender (a note sent
    instead of a link, :data:`NOTES`, is logged as a warning)."""
    if kind in NOTES:
        yield from log_warning(kind, NOTES[kind])
    message = account_message(
        kind,
        url=url,
        host=link_host(url),
        theme=ctx.settings.theme,
        code=code,
        translator=ctx.translator,
    )
    if provider.send_email is None:  # the e-mail provider's HTTP API (checked at start-up)
        api = next(p for p in ctx.settings.providers if isinstance(p, HTTPEmailProvider))
        yield from send_through_api(ctx, api, to, url, message)
        return
    yield from invoke(
        "send_email",
        provider.send_email,
        identifier=to,
        url=url,
        expires=expires,
        token=token if token is not None else code,
        provider=provider,
        theme=ctx.settings.theme,
        request=ctx.request,
        message=message,
        kind=kind,
    )


def link(ctx: Context, action: str, **query: str) -> str:
    """The absolute URL of auth route ``action`` with ``query``."""
    return f"{ctx.url(action)}?{urlencode(query)}"


def answer(ctx: Context, page: Page, body: Mapping[str, Any], status: int = 200) -> Reply:
    """``page`` (drawn as HTML) for a browser, ``body`` (JSON) for a script; a refusal (a 4xx
    ``status``) names its ``body["error"]`` in :attr:`Reply.refused`, for the log."""
    if wants_json(ctx):
        reply = json_reply(dict(body), status=status)
    else:
        reply = ctx.page_reply(page.name, dict(page.context), status)
    error = body.get("error")
    if 400 <= status < 500 and isinstance(error, str) and error:
        reply.refused = error
    return reply


def notice(ctx: Context, kind: str, link_url: str, body: Mapping[str, Any]) -> Reply:
    """The short notice ``kind`` (a key of :data:`~sansio_auth.pages.accounts.NOTICES`) with
    its one way on, to ``link_url``; or ``body`` as JSON."""
    return answer(ctx, Page("notice", {"notice": kind, "link_url": link_url}), body)


def done(ctx: Context, url: str) -> Reply:
    """Go to ``url``: a redirect for a browser; a script gets ``{"url"}`` where the route has
    :attr:`~sansio_auth._context.Context.json_redirects` (every account route does)."""
    return Reply(redirect=url)


STATUS = {
    "SessionRequired": 401,
    "SessionNotFresh": 403,
    "MissingCSRF": 403,
    "RecordNotFound": 404,
    "LastSignInMethod": 409,
    "RevocationRequired": 409,
}
"""The status of a refusal answered with JSON (others: 500)."""


def signed_in(ctx: Context, operation: str | None = None) -> Step[CurrentSession | Reply]:
    """The browser's session of a stored user, checked for ``operation`` as
    :func:`.session_list.require_current` does (a sensitive one needs a fresh sign-in); else
    the answer that sends the browser to sign in (again), :func:`sign_in_first`. A session
    that cannot be read (a failing adapter) is logged and counts as none."""
    try:
        current = yield from require_current(ctx, operation=operation)
    except (SessionRequired, SessionNotFresh) as err:
        return sign_in_first(ctx, err.type)
    except Exception as err:
        yield from log_error(err)
        return sign_in_first(ctx)
    if not current.stored:  # a credentials sign-in: no stored account to manage
        return sign_in_first(ctx)
    return current


def sign_in_first(ctx: Context, error: str = "SessionRequired", back: str | None = None) -> Reply:
    """Send the browser to the sign-in page with ``?error=`` (``SessionRequired``, or
    ``SessionNotFresh``: sign in again), coming back to ``back`` (default: this route's page);
    a script gets ``{"error"}`` with its status (:data:`STATUS`)."""
    if wants_json(ctx):
        return json_reply({"error": error}, status=STATUS[error])
    sign_in = ctx.page_url(ctx.settings.pages.sign_in, "signin")
    query = {"callbackUrl": back or ctx.url(ctx.action), "error": error}
    return Reply(redirect=add_query(sign_in, query))
