"""``GET|POST session``: read (and on POST update) the session; slide its expiry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from .. import jwt
from .._context import JSON_NO_CACHE, NO_CACHE, Context, Reply, json_reply, request_cookies
from .._flow import Step, log_error
from ..actions import SessionResult
from ..cookies import read_chunked, unread_chunks, write_chunked
from ..errors import AuthError, Configuration, MissingCSRF, fault_of
from ..http import Cookie, Request, Response, origin_and_path, parse_cookie_header
from ..jwt import InvalidToken
from ..settings import Settings
from .refresh import STATE_CLAIM
from .strategies import (
    SessionStrategy,
    default_session,
    session_strategy,
    token_subject,
    token_user,
)


def get_session(ctx: Context) -> Step[Reply]:
    """The session as JSON, or ``null``."""
    return json_reply((yield from current_session(ctx)), headers=NO_CACHE)


def update_session(ctx: Context) -> Step[Reply]:
    """The update trigger: ``data`` goes to the ``jwt`` callback as ``session``."""
    try:
        ctx.check_csrf()
    except MissingCSRF as err:
        yield from log_error(err)
        return json_reply(None, status=400)
    return json_reply((yield from current_session(ctx, update=True, data=ctx.form.get("data"))))


def current_session(ctx: Context, *, update: bool = False, data: Any = None) -> Step[Any]:
    """The session of ``ctx``'s browser (``None`` when signed out), its cookie re-issued or
    deleted on ``ctx.out_cookies`` as needed; with ``update``, ``data`` goes to the callbacks.
    An unreadable session is logged and reads as ``None``."""
    spec = ctx.cookie_specs.session_token
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:
        ctx.out_cookies.delete_chunks(spec, unread_chunks(spec.name, present))
        return None
    strategy = session_strategy(ctx)
    try:
        session = yield from strategy.read(ctx, value, present, update=update, data=data)
    except Exception as err:
        yield from log_error(err if isinstance(err, Configuration) else _read_error(strategy, err))
        ctx.out_cookies.drop(spec.name)
        # a store that failed (the revocation check of a JWT) answers "no session" for now and
        # keeps the cookie: the session is back once the store answers
        if strategy.forgets_unreadable and fault_of(err) != "adapter":
            ctx.out_cookies.delete_chunks(spec, present)
        session = None
    return session


def session_without_actions(
    settings: Settings,
    decoded: jwt.DecodedTokens,
    request: Request,
    now: float,
    entropy: Callable[[int], bytes],
    *,
    plain_jwt: bool,
) -> SessionResult | None:
    """What :func:`current_session` reads for ``request`` at ``now`` when it would perform
    no action, read straight: no session cookie (signed out, any strategy), or, with
    ``plain_jwt`` (:func:`~.strategies.plain_jwt_reads`), a valid token without a provider
    token state, re-issued (with ``entropy``) when ``update_age`` has passed or an older
    secret made it. ``None`` when only the flow can tell (it decides everything else,
    errors included). ``decoded`` keeps the claims of tokens read before."""
    read = _read_without_actions(settings, decoded, request, now, entropy, plain_jwt, None)
    if read is None:
        return None
    session, token, cookies = read
    user_id = None if token is None else token_subject(token)
    return SessionResult(data=session, user_id=user_id, cookies=cookies)


def session_response_without_actions(
    settings: Settings,
    decoded: jwt.DecodedTokens,
    entropy: Callable[[int], bytes],
    plain_jwt: bool,
    request: Request,
    origin: str,
    now: float,
) -> Response | None:
    """``GET session``'s answer when :func:`session_without_actions` reads it: the session
    as JSON (``null`` signed out) with its cookies. ``origin``: the request URL's. (The
    arguments that a server's requests share come first: the engine binds them once.)"""
    read = _read_without_actions(settings, decoded, request, now, entropy, plain_jwt, origin)
    if read is None:
        return None
    session, _, cookies = read
    return Response(headers=JSON_NO_CACHE, cookies=cookies, body=msgspec.json.encode(session))


_Read = tuple[dict[str, Any] | None, dict[str, Any] | None, tuple[Cookie, ...]]
"""The session (``None``: signed out), the token it was read from, and the cookies to set."""


def _read_without_actions(
    settings: Settings,
    decoded: jwt.DecodedTokens,
    request: Request,
    now: float,
    entropy: Callable[[int], bytes],
    plain_jwt: bool,
    origin: str | None,
) -> _Read | None:
    if origin is None and settings.secure_cookies is None:
        try:
            origin = origin_and_path(request.url)[0]
        except ValueError:
            origin = ""
    spec = request_cookies(settings, request, origin or "").session_token
    sent = parse_cookie_header(request.headers.get("cookie"), only=spec.name)
    value, present = read_chunked(sent, spec.name)
    if value is None:
        return None, None, tuple(spec.delete(n) for n in unread_chunks(spec.name, present))
    if not plain_jwt:
        return None
    secrets = settings.secrets
    try:
        token = decoded.decode(value, secrets, spec.name, now=now)
    except InvalidToken:
        return None
    if STATE_CLAIM in token:
        return None
    with_id = settings.adapter is not None
    issued_at = token.get("iat")
    max_age = settings.session.max_age
    if (
        isinstance(issued_at, int)
        and now - issued_at < settings.session.update_age
        and not jwt.rotated(value, secrets, spec.name)
    ):
        return default_session(token_user(token, with_id=with_id), issued_at + max_age), token, ()
    encoded = jwt.encode(
        token, secrets, spec.name, now=now, entropy=entropy, max_age=settings.jwt_max_age
    )
    cookies = tuple(write_chunked(spec, encoded, now, present))
    return default_session(token_user(token, with_id=with_id), now + max_age), token, cookies


def _read_error(strategy: SessionStrategy, error: Exception) -> AuthError:
    """What a failed read is logged as: the browser's fault when its cookie is not a valid
    token, else the fault of what failed (a callback, the adapter)."""
    fault = "browser" if isinstance(error, InvalidToken) else fault_of(error)
    return strategy.read_error(error, fault=fault)
