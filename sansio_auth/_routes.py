"""The route table: (method, action) → flow. The one place routes are defined.

``docs/routes.md`` is generated from :data:`ROUTES` (``make docs``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple
from urllib.parse import unquote

from ._context import NO_REFERRER, NO_STORE, BadRequest, Context, Reply
from ._flow import Step
from ._flows import (
    account,
    callback,
    csrf,
    federated,
    pages,
    password,
    password_reset,
    provider_list,
    security,
    session,
    signin,
    signout,
    two_factor,
    two_factor_setup,
    webauthn,
)


class Route(NamedTuple):
    """A flow, how its answers go out, and what the docs say of it."""

    flow: Callable[[Context], Step[Reply]]
    path: str
    csrf: str
    summary: str
    headers: tuple[tuple[str, str], ...] = ()
    """Headers every answer carries, errors included (:attr:`Context.answer_headers`)."""
    json_redirects: bool = False
    """A script gets ``{"url"}`` where a browser is redirected (:attr:`Context.json_redirects`):
    the account routes; Auth.js's answer so only ``X-Auth-Return-Redirect``."""
    answers: Literal["page", "json", "redirect", "empty"] = "page"
    """What it answers when all goes well: an HTML page, JSON, a redirect, or no body."""
    fields: tuple[str, ...] = ()
    """The body fields it reads (form or JSON), ``csrfToken`` aside: what API docs list."""


TOKEN_IN_URL = (NO_REFERRER,)
"""A page whose URL carries a code or a token: the browser sends no ``Referer`` on from it."""
SHOWS_SECRET = (NO_STORE,)
"""A page that shows (or may show) a secret: no cache keeps it."""


ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "providers"): Route(
        provider_list.providers, "providers", "", "JSON: each provider's URLs", answers="json"
    ),
    ("GET", "csrf"): Route(
        csrf.csrf, "csrf", "", 'JSON `{"csrfToken"}`; sets the CSRF cookie', answers="json"
    ),
    ("GET", "session"): Route(
        session.get_session, "session", "", "JSON session or `null`", answers="json"
    ),
    ("POST", "session"): Route(
        session.update_session,
        "session",
        "yes (else 400 `null`)",
        "update: `data` goes to the `jwt` callback",
        answers="json",
        fields=("data",),
    ),
    ("GET", "signin"): Route(pages.signin_page, "signin", "", "sign-in page"),
    ("POST", "signin"): Route(
        signin.sign_in,
        "signin[/<provider>]",
        "yes",
        "start a sign-in with `<provider>`",
        answers="redirect",
        fields=("callbackUrl", "email"),
    ),
    ("GET", "callback"): Route(
        callback.callback,
        "callback/<provider>",
        "",
        "OAuth redirect back; e-mail link",
        headers=TOKEN_IN_URL,
        answers="redirect",
    ),
    ("POST", "callback"): Route(
        callback.callback,
        "callback/<provider>",
        "credentials and WebAuthn",
        "credentials sign-in; WebAuthn response (`action`, `data`); OAuth `form_post`",
        headers=TOKEN_IN_URL,
        answers="redirect",
        fields=("callbackUrl", "action", "data"),
    ),
    ("GET", "signout"): Route(pages.signout_page, "signout", "", "sign-out confirmation page"),
    ("POST", "signout"): Route(
        signout.sign_out,
        "signout",
        "yes",
        "sign out, then redirect",
        answers="redirect",
        fields=("callbackUrl",),
    ),
    ("GET", "signout/callback"): Route(
        federated.signout_callback,
        "signout/callback/<provider>",
        "no (`state`)",
        "back from the provider's sign-out (RP-initiated logout)",
        answers="redirect",
    ),
    ("POST", "backchannel-logout"): Route(
        federated.backchannel_logout,
        "backchannel-logout/<provider>",
        "no (signed `logout_token`)",
        "the provider ends sessions (back-channel logout)",
        answers="empty",
        fields=("logout_token",),
    ),
    ("GET", "verify-request"): Route(
        pages.verify_request_page, "verify-request", "", '"check your email" page'
    ),
    ("GET", "error"): Route(pages.error_page, "error", "", "error page; status by `?error=`"),
    ("GET", "webauthn-options"): Route(
        webauthn.webauthn_options,
        "webauthn-options/<provider>",
        "",
        'JSON `{"action", "options"}` for `?action=register|authenticate&email=`; '
        "sets the challenge cookie",
        answers="json",
    ),
    # -- accounts (not in Auth.js; docs/accounts.md) --
    ("GET", "signup"): Route(
        password.signup_page, "signup", "", "sign-up page (password)", json_redirects=True
    ),
    ("POST", "signup"): Route(
        password.sign_up,
        "signup",
        "yes",
        "create an account; mail the verification link",
        json_redirects=True,
        answers="redirect",
        fields=("email", "password", "name", "callbackUrl"),
    ),
    ("GET", "verify-email"): Route(
        password.verify_email,
        "verify-email",
        "no (single-use `token`)",
        "follow an address verification (or address change) link",
        headers=TOKEN_IN_URL,
        json_redirects=True,
        answers="redirect",
    ),
    ("GET", "forgot-password"): Route(
        password_reset.forgot_page,
        "forgot-password",
        "",
        "ask for a reset link",
        json_redirects=True,
    ),
    ("POST", "forgot-password"): Route(
        password_reset.forgot,
        "forgot-password",
        "yes",
        "mail a single-use reset link",
        json_redirects=True,
        answers="redirect",
        fields=("email",),
    ),
    ("GET", "reset-password"): Route(
        password_reset.reset_page,
        "reset-password",
        "",
        "new-password form of a reset link",
        headers=(*TOKEN_IN_URL, *SHOWS_SECRET),
        json_redirects=True,
    ),
    ("POST", "reset-password"): Route(
        password_reset.reset,
        "reset-password",
        "yes",
        "set the new password (uses the link up); end every session",
        headers=(*TOKEN_IN_URL, *SHOWS_SECRET),
        json_redirects=True,
        answers="redirect",
        fields=("token", "email", "password"),
    ),
    ("GET", "change-password"): Route(
        account.change_password_page,
        "change-password",
        "",
        "change-password page (signed in, fresh sign-in)",
        json_redirects=True,
    ),
    ("POST", "change-password"): Route(
        account.change_password,
        "change-password",
        "yes",
        "check the current password, set the new one, end the other sessions (fresh sign-in)",
        json_redirects=True,
        answers="redirect",
        fields=("current_password", "new_password"),
    ),
    ("GET", "change-email"): Route(
        account.change_email_page,
        "change-email",
        "",
        "change-address page (signed in, fresh sign-in)",
        json_redirects=True,
    ),
    ("POST", "change-email"): Route(
        account.change_email,
        "change-email",
        "yes",
        "mail the new address a confirmation link (fresh sign-in)",
        json_redirects=True,
        answers="redirect",
        fields=("email", "password"),
    ),
    ("GET", "two-factor"): Route(
        two_factor.challenge_page,
        "two-factor",
        "",
        "the second factor of a waiting sign-in (or the forced set-up); "
        "`?passkey=options`: JSON passkey options",
        headers=SHOWS_SECRET,
        json_redirects=True,
    ),
    ("POST", "two-factor"): Route(
        two_factor.answer_challenge,
        "two-factor",
        "yes",
        "check the second factor (`method`, `code`...); issue the session",
        headers=SHOWS_SECRET,
        json_redirects=True,
        answers="redirect",
        fields=("method", "code", "trust_device", "data"),
    ),
    ("GET", "two-factor-setup"): Route(
        two_factor_setup.setup_page,
        "two-factor-setup",
        "",
        "set up (QR code) or manage two-factor (signed in)",
        headers=SHOWS_SECRET,
        json_redirects=True,
    ),
    ("POST", "two-factor-setup"): Route(
        two_factor_setup.setup,
        "two-factor-setup",
        "yes",
        "`action=enable|regenerate|disable` (the last two with a fresh code; `disable` with a "
        "fresh sign-in)",
        headers=SHOWS_SECRET,
        json_redirects=True,
        answers="redirect",
        fields=("action", "code"),
    ),
    # ours, not Auth.js's: the user's own sessions and accounts (see _flows/security.py)
    ("GET", "security"): Route(
        security.security_page, "security", "", "the user's sessions and linked accounts page"
    ),
    ("GET", "sessions"): Route(
        security.sessions_route, "sessions", "", "JSON: the user's live sessions", answers="json"
    ),
    ("POST", "revoke-session"): Route(
        security.revoke_session_route,
        "revoke-session",
        "yes",
        "end the user's session `id`",
        answers="redirect",
        fields=("id", "callbackUrl"),
    ),
    ("POST", "revoke-other-sessions"): Route(
        security.revoke_other_sessions_route,
        "revoke-other-sessions",
        "yes",
        "end every other session of the user",
        answers="redirect",
        fields=("callbackUrl",),
    ),
    ("GET", "accounts"): Route(
        security.accounts_route, "accounts", "", "JSON: the user's linked accounts", answers="json"
    ),
    ("POST", "link"): Route(
        security.link_route,
        "link/<provider>",
        "yes",
        "link an account of OAuth/OIDC `<provider>` to the signed-in user",
        answers="redirect",
        fields=("callbackUrl",),
    ),
    ("POST", "unlink"): Route(
        security.unlink_route,
        "unlink/<provider>",
        "yes",
        "unlink the user's `<provider>` account `providerAccountId` (fresh sign-in)",
        answers="redirect",
        fields=("providerAccountId", "callbackUrl"),
    ),
    ("POST", "delete-user"): Route(
        security.delete_user_route,
        "delete-user",
        "yes",
        "delete the user (fresh sign-in)",
        answers="redirect",
        fields=("callbackUrl",),
    ),
}
ACTIONS = frozenset(action for _, action in ROUTES if "/" not in action)
"""Every route's first path segment (``signout/callback/<id>`` is parsed on its own)."""
WITH_PROVIDER = frozenset(
    action for (_, action), route in ROUTES.items() if "<provider>" in route.path
) - {"signout/callback"}
"""The actions whose path may end with a provider id."""


def parse_action(path: str, base_path: str) -> tuple[str, str | None]:
    """``(action, provider id)`` of a path under ``base_path``; :class:`BadRequest` if malformed."""
    rest = path[len(base_path) :]
    if not rest.startswith("/"):
        raise BadRequest(f"not an auth route: {path}", hint="not-an-auth-route")
    segments = [s for s in rest.split("/") if s]
    if "%" in rest:
        segments = [unquote(s) for s in segments]
    if len(segments) == 3 and segments[:2] == ["signout", "callback"]:
        return "signout/callback", segments[2]
    if not 1 <= len(segments) <= 2 or segments[0] not in ACTIONS:
        raise BadRequest(f"unknown auth action: {path}", hint="not-an-auth-route")
    action = segments[0]
    if len(segments) == 2 and action not in WITH_PROVIDER:
        raise BadRequest(f"{action} takes no provider: {path}")
    provider = segments[1] if len(segments) == 2 and segments[1] != "undefined" else None
    return action, provider


def routes_markdown() -> str:
    """``docs/routes.md``: the route table, generated from :data:`ROUTES`."""
    rows = "\n".join(
        f"| {method} | `{{base_path}}/{route.path}` | {route.csrf or 'no'} | {route.summary} |"
        for (method, _), route in ROUTES.items()
    )
    return f"""# Routes

Served under `base_path` (default `/auth`). Generated from `sansio_auth/_routes.py`
by `make docs`; a test keeps it in step.

| Method | Path | CSRF | What it does |
|---|---|---|---|
{rows}

Any other action under `base_path`, or a method other than GET and POST, answers
`400` with the JSON string `"Bad request."`. A known action with the wrong method
redirects to the error page with `error=Configuration`. A redirect answers
`200 {{"url": ...}}` instead of `302` when the request has an `X-Auth-Return-Redirect`
header (the `Set-Cookie` headers stay).

The routes from `security` on are ours, not Auth.js's: a user's own sessions and linked
accounts (docs/accounts.md). Their POSTs answer JSON to a JSON body (or
`Accept: application/json`) and redirect a form post back to `callbackUrl` (default: the
security page).
"""
