"""``GET|POST session``: read (and on POST update) the session; slide its expiry.

Also the database-session steps sign-in shares: a new row and its cookie.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from .._context import NO_CACHE, Context, Reply, json_reply
from .._flow import Step, call_adapter, emit, invoke, log_error
from ..cookies import read_chunked
from ..errors import Configuration, JWTSessionError, MissingCSRF, SessionTokenError
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
    database = ctx.settings.strategy == "database"
    read = _database_session if database else _jwt_session
    try:
        session = yield from read(ctx, value, present, update=update, data=data)
    except Exception as err:
        failure = SessionTokenError if database else JWTSessionError
        yield from log_error(err if isinstance(err, Configuration) else failure(err))
        ctx.out_cookies.drop(spec.name)
        if not database:  # an unreadable token is dropped; a database hiccup keeps the cookie
            ctx.out_cookies.delete_chunks(spec, present)
        session = None
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
            ctx.out_cookies.delete_chunks(spec, present)
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
        ctx.out_cookies.set_chunked(spec, encoded, ctx.now, present)
    user = {key: token[field] for key, field in _TOKEN_USER_FIELDS if field in token}
    return (
        yield from _expose(ctx, user, expires, token=token, user=None, data=data, update=update)
    )


_TOKEN_USER_FIELDS = (("name", "name"), ("email", "email"), ("image", "picture"))


def _expose(
    ctx: Context,
    shown_user: dict[str, Any],
    expires: float,
    *,
    token: dict[str, Any] | None,
    user: dict[str, Any] | None,
    data: Any,
    update: bool,
) -> Step[Any]:
    """The default session, shaped by the ``session`` callback; emits ``events.session``."""
    settings = ctx.settings
    session: Any = {"user": shown_user, "expires": iso_date(expires)}
    if settings.callbacks.session is not None:
        session = yield from invoke(
            "session",
            settings.callbacks.session,
            session=session,
            token=token,
            user=user,
            new_session=data,
            trigger="update" if update else None,
        )
    yield from emit(settings.events.session, "session", session=session, token=token)
    return session


# -- database sessions -------------------------------------------------------------------------


def utc(seconds: float) -> datetime:
    """Unix time as the aware UTC datetime adapters store."""
    return datetime.fromtimestamp(seconds, UTC)


def timestamp(value: Any) -> float:
    """Unix time of a datetime an adapter returned (naive means UTC), or of an ISO string."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return float(value.timestamp())
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise Configuration(f"the adapter returned an expiry that is not a time: {value!r}")


def new_session_token(ctx: Context) -> Step[str]:
    """``session.generate_session_token()``, else a random UUID."""
    generate = ctx.settings.session.generate_session_token
    if generate is None:
        return ctx.random_uuid()
    token = yield from invoke("generate_session_token", generate)
    if not isinstance(token, str) or not token:
        raise Configuration("`session.generate_session_token` must return a non-empty string")
    return token


def create_database_session(ctx: Context, user_id: str) -> Step[dict[str, Any]]:
    """A new session row for ``user_id`` (expiring ``max_age`` from now) and its cookie."""
    token = yield from new_session_token(ctx)
    expires = ctx.now + ctx.settings.session.max_age
    session = {"session_token": token, "user_id": user_id, "expires": utc(expires)}
    created = yield from call_adapter(ctx.settings.adapter, "create_session", session)
    set_session_cookie(ctx, token, expires)
    return dict(created) if isinstance(created, Mapping) else session


def set_session_cookie(ctx: Context, token: str, expires: float) -> None:
    """The session cookie holding ``token`` until ``expires`` (stale chunks deleted)."""
    spec = ctx.cookie_specs.session_token
    _, present = read_chunked(ctx.cookies, spec.name)
    ctx.out_cookies.drop(spec.name)
    lifetime = max(1, int(expires - ctx.now))
    ctx.out_cookies.set_chunked(spec, token, ctx.now, present, expires_in=lifetime)


def session_and_user(found: Any) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    """``get_session_and_user``'s answer as ``(session, user)``, ``None`` when not found."""
    if found is None:
        return None
    if isinstance(found, Mapping):
        session, user = found.get("session"), found.get("user")
    else:
        session, user = found
    if not isinstance(session, Mapping) or not isinstance(user, Mapping):
        raise Configuration("`get_session_and_user` must return {'session': ..., 'user': ...}")
    return session, user


def _database_session(
    ctx: Context, token: str, present: list[str], *, update: bool, data: Any
) -> Step[Any]:
    """Look the row up; delete it when expired; extend it once ``update_age`` has passed."""
    settings = ctx.settings
    spec = ctx.cookie_specs.session_token
    found = session_and_user(
        (yield from call_adapter(ctx.settings.adapter, "get_session_and_user", token))
    )
    if found is not None and timestamp(found[0]["expires"]) <= ctx.now:
        yield from call_adapter(ctx.settings.adapter, "delete_session", token)
        found = None
    if found is None:
        ctx.out_cookies.delete_chunks(spec, present)
        return None
    expires = timestamp(found[0]["expires"])
    user = dict(found[1])
    max_age, update_age = settings.session.max_age, settings.session.update_age
    if expires - max_age + update_age <= ctx.now:
        expires = ctx.now + max_age
        extended = yield from call_adapter(
            ctx.settings.adapter,
            "update_session",
            {"session_token": token, "expires": utc(expires)},
        )
        if extended is None:  # deleted meanwhile (signed out elsewhere)
            ctx.out_cookies.delete_chunks(spec, present)
            return None
        set_session_cookie(ctx, token, expires)
    shown: dict[str, Any] = {k: user[k] for k in ("name", "email", "image") if k in user}
    return (
        yield from _expose(ctx, shown, expires, token=None, user=user, data=data, update=update)
    )
