"""``GET|POST session``: read (and on POST update) the session; slide its expiry."""

from __future__ import annotations

from typing import Any

from .._context import NO_CACHE, Context, Reply, json_reply
from .._flow import Step, log_error
from ..cookies import read_chunked
from ..errors import AuthError, Configuration, MissingCSRF, fault_of
from ..jwt import InvalidToken
from .strategies import SessionStrategy, session_strategy


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
        # a store that failed (the revocation check of a JWT) answers "no session" for now and
        # keeps the cookie: the session is back once the store answers
        if strategy.forgets_unreadable and fault_of(err) != "adapter":
            ctx.out_cookies.delete_chunks(spec, present)
        session = None
    return session


def _read_error(strategy: SessionStrategy, error: Exception) -> AuthError:
    """What a failed read is logged as: the browser's fault when its cookie is not a valid
    token, else the fault of what failed (a callback, the adapter)."""
    fault = "browser" if isinstance(error, InvalidToken) else fault_of(error)
    return strategy.read_error(error, fault=fault)
