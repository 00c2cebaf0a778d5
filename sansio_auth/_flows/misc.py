"""``GET csrf`` and ``GET providers``."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from .._context import (
    JSON_NO_CACHE,
    NO_CACHE,
    Context,
    Reply,
    csrf_token_and_cookie,
    json_reply,
    request_cookies,
)
from .._flow import Step, log_warning
from ..http import Request, Response, parse_cookie_header
from ..settings import Settings


def csrf(ctx: Context) -> Step[Reply]:
    """``{"csrfToken": ...}``, setting the cookie when needed; 404 when CSRF checks are off."""
    if ctx.settings.skip_csrf:
        yield from log_warning("csrf-disabled")
        ctx.out_cookies.delete(ctx.cookie_specs.csrf_token)
        return Reply(status=404)
    return json_reply({"csrfToken": ctx.csrf_token()}, headers=NO_CACHE)


def csrf_without_flow(
    settings: Settings, request: Request, origin: str, now: float, entropy: Callable[[int], bytes]
) -> Response | None:
    """:func:`csrf`'s response to ``request`` (whose URL's origin is ``origin``), made at once:
    it performs no action unless CSRF checks are off (``None``: only the flow answers,
    logging its warning)."""
    if settings.skip_csrf:
        return None
    specs = request_cookies(settings, request, origin)
    cookies = parse_cookie_header(request.header("cookie"))
    token, cookie = csrf_token_and_cookie(settings, specs, cookies, now, entropy)
    body = msgspec.json.encode({"csrfToken": token})
    return Response(headers=JSON_NO_CACHE, cookies=() if cookie is None else (cookie,), body=body)


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
