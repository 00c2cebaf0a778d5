"""``GET providers``: every provider's id, name, type and URLs."""

from __future__ import annotations

from .._context import Context, Reply, json_reply
from .._flow import Step


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
