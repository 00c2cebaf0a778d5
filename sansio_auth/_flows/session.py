"""``GET|POST session``: read (and on POST update) the session; slide its expiry."""

from __future__ import annotations

from typing import Any

from .._context import NO_CACHE, Context, Reply, json_reply, origin_of
from .._flow import Step, log_error
from ..actions import SessionResult
from ..cookies import read_chunked
from ..errors import AuthError, Configuration, MissingCSRF, fault_of
from ..http import Request, parse_cookie_header, split_url
from ..jwt import InvalidToken, decode, made_with
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
        return None
    strategy = session_strategy(ctx)
    try:
        session = yield from strategy.read(ctx, value, present, update=update, data=data)
    except Exception as err:
        yield from log_error(err if isinstance(err, Configuration) else _read_error(strategy, err))
        ctx.out_cookies.drop(spec.name)
        if strategy.forgets_unreadable:
            ctx.out_cookies.delete_chunks(spec, present)
        session = None
    return session


def session_without_actions(
    settings: Settings, request: Request, now: float, *, plain_jwt: bool
) -> SessionResult | None:
    """What :func:`current_session` reads for ``request`` at ``now`` when it would perform
    no action and set no cookie, read straight: no session cookie (signed out, any
    strategy), or, with ``plain_jwt`` (:func:`~.strategies.plain_jwt_reads`), a valid token
    of the current secret without a provider token state and not due for ``update_age``.
    ``None`` when only the flow can tell (it decides everything else, errors included)."""
    secure = settings.secure_cookies
    if secure is None:
        try:
            origin = split_url(request.url)[0]
        except ValueError:
            origin = ""
        secure = origin_of(settings, request, origin).startswith("https://")
    name = settings.cookies_for(secure).session_token.name
    value, _ = read_chunked(parse_cookie_header(request.header("cookie")), name)
    if value is None:
        return SessionResult()
    if not plain_jwt or not made_with(value, settings.secrets[0], name):
        return None
    try:
        token = decode(value, settings.secrets, name, now=now)
    except InvalidToken:
        return None
    issued_at = token.get("iat")
    if (
        STATE_CLAIM in token
        or not isinstance(issued_at, int)
        or now - issued_at >= settings.session.update_age
    ):
        return None
    expires = issued_at + settings.session.max_age
    session = default_session(token_user(token), expires)
    return SessionResult(data=session, user_id=token_subject(token))


def _read_error(strategy: SessionStrategy, error: Exception) -> AuthError:
    """What a failed read is logged as: the browser's fault when its cookie is not a valid
    token, else the fault of what failed (a callback, the adapter)."""
    fault = "browser" if isinstance(error, InvalidToken) else fault_of(error)
    return strategy.read_error(error, fault=fault)
