"""``GET|POST session``: read (and on POST update) the session; slide its expiry."""

from __future__ import annotations

from typing import Any

import msgspec

from .._context import NO_CACHE, Context, Reply, json_reply
from .._flow import Step, emit, invoke, log_error
from ..cookies import read_chunked, write_chunked
from ..errors import Configuration, JWTSessionError, MissingCSRF
from ..http import iso_date
from ..jwt import InvalidToken, made_with


def get_session(ctx: Context) -> Step[Reply]:
    """The session as JSON, or ``null``."""
    return (yield from _session(ctx, update=False, data=None, headers=NO_CACHE))


def update_session(ctx: Context) -> Step[Reply]:
    """The update trigger: ``data`` goes to the ``jwt`` callback as ``session``."""
    try:
        ctx.check_csrf()
    except MissingCSRF as err:
        yield from log_error(err)
        return json_reply(None, status=400)
    return (yield from _session(ctx, update=True, data=ctx.form.get("data"), headers=()))


def _session(
    ctx: Context, *, update: bool, data: Any, headers: tuple[tuple[str, str], ...]
) -> Step[Reply]:
    spec = ctx.cookie_specs.session_token
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:
        return json_reply(None, headers=headers)
    try:
        session = yield from _jwt_session(ctx, value, present, update=update, data=data)
    except Exception as err:
        yield from log_error(err if isinstance(err, Configuration) else JWTSessionError(err))
        ctx.out_cookies[:] = [c for c in ctx.out_cookies if not _is_session(c.name, spec.name)]
        ctx.out_cookies.extend(spec.delete(name) for name in present)
        return json_reply(None, headers=headers)
    return json_reply(session, headers=headers)


def _jwt_session(
    ctx: Context, value: str, present: list[str], *, update: bool, data: Any
) -> Step[Any]:
    settings = ctx.settings
    spec = ctx.cookie_specs.session_token
    token = yield from ctx.decode_token(value)
    if token is None:
        raise InvalidToken("the jwt.decode override returned None")
    issued_at = token.get("iat")
    callbacks = settings.callbacks
    changed = False
    if callbacks.jwt is not None:
        before = msgspec.json.encode(token)
        token = yield from invoke(
            "jwt",
            callbacks.jwt,
            token=token,
            session=data,
            trigger="update" if update else None,
            user=None,
            account=None,
            profile=None,
            is_new_user=None,
        )
        if token is None:
            ctx.out_cookies.extend(spec.delete(name) for name in present)
            return None
        if not isinstance(token, dict):
            raise Configuration("the `jwt` callback must return a dict or None")
        changed = msgspec.json.encode(token) != before
    update_age = settings.session.update_age
    rotated = settings.jwt.decode is None and not made_with(value, settings.secrets[0], spec.name)
    reissue = changed or update or rotated
    expires: float
    if not reissue and isinstance(issued_at, int) and ctx.now - issued_at < update_age:
        expires = issued_at + settings.session.max_age
    else:
        expires = ctx.now + settings.session.max_age
        encoded = yield from ctx.encode_token(token)
        ctx.out_cookies.extend(write_chunked(spec, encoded, ctx.now, present))
    default = {
        "user": {
            key: token[field]
            for key, field in (("name", "name"), ("email", "email"), ("image", "picture"))
            if field in token
        },
        "expires": iso_date(expires),
    }
    session: Any = default
    if callbacks.session is not None:
        session = yield from invoke(
            "session",
            callbacks.session,
            session=default,
            token=token,
            user=None,
            new_session=data,
            trigger="update" if update else None,
        )
    yield from emit(settings.events.session, "session", session=session, token=token)
    return session


def _is_session(name: str, session_name: str) -> bool:
    return name == session_name or name.startswith(session_name + ".")
