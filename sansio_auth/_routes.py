"""The route table: (method, action) → flow. The one place routes are defined.

``docs/routes.md`` is generated from :data:`ROUTES` (``make docs``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import unquote

from ._context import BadRequest, Context, Reply
from ._flow import Step
from ._flows import callback, federated, misc, pages, session, signin, signout, webauthn


class Route(NamedTuple):
    """A flow, and what the docs say of it."""

    flow: Callable[[Context], Step[Reply]]
    path: str
    csrf: str
    summary: str


ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "providers"): Route(misc.providers, "providers", "", "JSON: each provider's URLs"),
    ("GET", "csrf"): Route(misc.csrf, "csrf", "", 'JSON `{"csrfToken"}`; sets the CSRF cookie'),
    ("GET", "session"): Route(session.get_session, "session", "", "JSON session or `null`"),
    ("POST", "session"): Route(
        session.update_session,
        "session",
        "yes (else 400 `null`)",
        "update: `data` goes to the `jwt` callback",
    ),
    ("GET", "signin"): Route(pages.signin_page, "signin", "", "sign-in page"),
    ("POST", "signin"): Route(
        signin.sign_in, "signin[/<provider>]", "yes", "start a sign-in with `<provider>`"
    ),
    ("GET", "callback"): Route(
        callback.callback, "callback/<provider>", "", "OAuth redirect back; e-mail link"
    ),
    ("POST", "callback"): Route(
        callback.callback,
        "callback/<provider>",
        "credentials and WebAuthn",
        "credentials sign-in; WebAuthn response (`action`, `data`); OAuth `form_post`",
    ),
    ("GET", "signout"): Route(pages.signout_page, "signout", "", "sign-out confirmation page"),
    ("POST", "signout"): Route(signout.sign_out, "signout", "yes", "sign out, then redirect"),
    ("GET", "signout/callback"): Route(
        federated.signout_callback,
        "signout/callback/<provider>",
        "no (`state`)",
        "back from the provider's sign-out (RP-initiated logout)",
    ),
    ("POST", "backchannel-logout"): Route(
        federated.backchannel_logout,
        "backchannel-logout/<provider>",
        "no (signed `logout_token`)",
        "the provider ends sessions (back-channel logout)",
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
    ),
}
ACTIONS = frozenset(
    {
        "providers",
        "session",
        "csrf",
        "signin",
        "signout",
        "callback",
        "verify-request",
        "error",
        "webauthn-options",
        "backchannel-logout",
    }
)
WITH_PROVIDER = frozenset({"signin", "callback", "webauthn-options", "backchannel-logout"})


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
"""
