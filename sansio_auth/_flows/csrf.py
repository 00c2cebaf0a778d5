"""``GET csrf``: the token for the forms, answered with or without its flow."""

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
    settings: Settings, entropy: Callable[[int], bytes], request: Request, origin: str, now: float
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
