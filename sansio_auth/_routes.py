"""The route table: (method, action) → flow. The one place routes are defined.

``docs/routes.md`` is generated from :data:`ROUTES` (``python -m sansio_auth._routes``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import unquote

from ._context import BadRequest, Context, Reply
from ._flow import Step
from ._flows import callback, misc, pages, session, signin, signout


class Route(NamedTuple):
    """A flow, and what the docs say of it."""

    flow: Callable[[Context], Step[Reply]]
    csrf: str
    summary: str


ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "providers"): Route(misc.providers, "", "JSON of each provider's id, name, type, URLs"),
    ("GET", "csrf"): Route(misc.csrf, "", 'JSON `{"csrfToken"}`; sets the CSRF cookie'),
    ("GET", "session"): Route(session.get_session, "", "JSON session or `null`; slides the expiry"),
    ("POST", "session"): Route(
        session.update_session, "yes (400 `null`)", "update: `data` goes to the `jwt` callback"
    ),
    ("GET", "signin"): Route(pages.signin_page, "", "sign-in page (or to `pages.sign_in`)"),
    ("POST", "signin"): Route(
        signin.sign_in, "yes", "start sign-in with `<provider>` (OAuth redirect, e-mail link)"
    ),
    ("GET", "callback"): Route(callback.callback, "", "OAuth/OIDC redirect back; e-mail link"),
    ("POST", "callback"): Route(
        callback.callback, "credentials only", "credentials sign-in; OAuth `form_post`"
    ),
    ("GET", "signout"): Route(pages.signout_page, "", "sign-out confirmation page"),
    ("POST", "signout"): Route(signout.sign_out, "yes", "sign out; redirect to the callback URL"),
    ("GET", "verify-request"): Route(pages.verify_request_page, "", '"check your email" page'),
    ("GET", "error"): Route(pages.error_page, "", "error page; status by `?error=`"),
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
    }
)
WITH_PROVIDER = frozenset({"signin", "callback", "webauthn-options"})


def parse_action(path: str, base_path: str) -> tuple[str, str | None]:
    """``(action, provider id)`` of a path under ``base_path``; :class:`BadRequest` if malformed."""
    rest = path[len(base_path) :]
    if not rest.startswith("/"):
        raise BadRequest(f"not an auth route: {path}")
    segments = [unquote(s) for s in rest.split("/") if s]
    if not 1 <= len(segments) <= 2 or segments[0] not in ACTIONS:
        raise BadRequest(f"unknown auth action: {path}")
    action = segments[0]
    if len(segments) == 2 and action not in WITH_PROVIDER:
        raise BadRequest(f"{action} takes no provider: {path}")
    provider = segments[1] if len(segments) == 2 and segments[1] != "undefined" else None
    return action, provider


def markdown_table() -> str:
    """The route table for the docs."""
    rows = ["| Method | Path | CSRF | What it does |", "|---|---|---|---|"]
    for (method, action), route in ROUTES.items():
        path = f"{{base_path}}/{action}" + ("[/<provider>]" if action in WITH_PROVIDER else "")
        rows.append(f"| {method} | `{path}` | {route.csrf or 'no'} | {route.summary} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
