"""``GET csrf`` and ``GET providers``."""

from __future__ import annotations

from .._context import NO_CACHE, Context, Reply, json_reply
from .._flow import Step, log_warning


def csrf(ctx: Context) -> Step[Reply]:
    """``{"csrfToken": ...}``, setting the cookie when needed; 404 when CSRF checks are off."""
    if ctx.settings.skip_csrf:
        yield from log_warning("csrf-disabled")
        ctx.out_cookies.delete(ctx.cookie_specs.csrf_token)
        return Reply(status=404)
    return json_reply({"csrfToken": ctx.csrf_token()}, headers=NO_CACHE)


def providers(ctx: Context) -> Step[Reply]:
    """Every provider's id, name, type and URLs, keyed by id. A password provider says
    ``credentials``: Auth.js's client then posts ``signIn("password", {email, password})``
    to its callback, as it should."""
    body = {
        p.id: {
            "id": p.id,
            "name": p.name,
            "type": "credentials" if p.type == "password" else p.type,
            "signinUrl": ctx.url("signin", p.id),
            "callbackUrl": ctx.url("callback", p.id),
        }
        for p in ctx.settings.providers
    }
    yield from ()
    return json_reply(body)
