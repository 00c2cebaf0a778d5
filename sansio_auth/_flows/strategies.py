"""The session strategies (``session.strategy``): what a session cookie holds and how it is
read, issued and ended.

``jwt``: the cookie is the encrypted token (the ``jwt`` callback shapes it); ``database``:
the cookie is the token of a session row (the adapter's ``*_session`` methods). Each flow
asks :func:`session_strategy` and never branches on the strategy's name.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

import msgspec

from .._context import Context
from .._flow import Step, call_adapter, emit, invoke, log_error
from ..cookies import read_chunked
from ..errors import AdapterError, AuthError, Configuration, JWTSessionError, SessionTokenError
from ..http import iso_date
from ..jwt import InvalidToken, rotated
from ..settings import Settings
from .refresh import (
    STATE_CLAIM,
    database_token_states,
    jwt_token_state,
    oauth_provider,
    provider_sid,
    session_error,
    sign_in_state,
)
from .revocation import end_jwt_session, is_revoked
from .session_records import (
    KEPT_AT,
    SIGN_IN_CLAIMS,
    database_session_fields,
    drop,
    records_kept,
    register,
    touch,
)

Emitted = tuple[tuple[str, dict[str, Any]], ...]


class LoginResult(msgspec.Struct, frozen=True, kw_only=True):
    """Who signs in, as :func:`.login.handle_login` decided (and stored): what a strategy
    starts the session of."""

    user: dict[str, Any]
    """The user as stored (its ``id`` is the adapter's), or as given without an adapter."""
    account: dict[str, Any]
    """The account signed in with; ``user_id`` set when there is an adapter."""
    is_new_user: bool = False
    keep_session: bool = False
    """An account was linked to the browser's signed-in user: its session stays (linking is no
    sign-in). Signing in again as the signed-in user starts a new session (a difference from
    Auth.js, which keeps the old one: the new session is fresh, see :mod:`.freshness`)."""
    events: Emitted = ()
    """The ``create_user``/``link_account``/``update_user`` events, for once the session is set."""
    kept_at: float | None = None
    """The time of a revocation of the user's sessions this sign-in made (an address claimed
    by its owner, :mod:`.address_claim`): the session it issues is kept by it."""


class SessionStrategy(ABC):
    """The operations every flow needs from a session strategy."""

    read_error: ClassVar[type[AuthError]]
    """What a failed :meth:`read` is logged as."""
    forgets_unreadable: ClassVar[bool]
    """Whether a failed :meth:`read` deletes the cookie (else it is kept for a retry); a
    failure of the adapter never does."""

    @abstractmethod
    def read(
        self, ctx: Context, value: str, present: list[str], *, update: bool, data: Any
    ) -> Step[Any]:
        """The session the cookie ``value`` (in chunks ``present``) stands for, as ``GET|POST
        session`` answers it, or ``None``; refreshes or deletes the cookie as needed."""

    @abstractmethod
    def issue(
        self, ctx: Context, login: LoginResult, *, profile: Mapping[str, Any] | None
    ) -> Step[None]:
        """The session cookie for ``login.user`` after a sign-in."""

    @abstractmethod
    def end(self, ctx: Context, value: str) -> Step[None]:
        """Sign-out: end the session of the cookie ``value`` and emit ``events.sign_out``
        (the caller deletes the cookie)."""


def session_strategy(ctx: Context) -> SessionStrategy:
    """The strategy of ``ctx``'s engine."""
    return STRATEGIES[ctx.settings.strategy]


def expose(
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
    session: Any = default_session(shown_user, expires)
    error = session_error(ctx)
    if error is not None:
        session["error"] = error
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


def default_session(shown_user: dict[str, Any], expires: float) -> dict[str, Any]:
    """The session as ``GET session`` shows it before the ``session`` callback."""
    return {"user": shown_user, "expires": iso_date(expires)}


# -- jwt ---------------------------------------------------------------------------------------


class JWTSessions(SessionStrategy):
    """The session is the encrypted token in the cookie."""

    read_error = JWTSessionError
    forgets_unreadable = True  # an unreadable token is dropped

    def read(
        self, ctx: Context, value: str, present: list[str], *, update: bool, data: Any
    ) -> Step[Any]:
        settings = ctx.settings
        spec = ctx.cookie_specs.session_token
        token = yield from ctx.decode_token(value)
        if token is None:
            raise InvalidToken("the jwt.decode override returned None")
        if settings.session.revocation and (yield from is_revoked(ctx, token)):
            ctx.out_cookies.delete_chunks(spec, present)
            yield from drop(ctx, token.get("sid"))  # the session is over: so is its record
            return None
        issued_at = token.get("iat")
        callbacks = settings.callbacks
        state = yield from jwt_token_state(ctx, token)
        changed = state is not None
        if state is not None:
            token = {**token, STATE_CLAIM: state}
        if callbacks.jwt is not None:
            before = msgspec.json.encode(token)
            token = yield from invoke(
                "jwt",
                callbacks.jwt,
                token=token,
                session=data,
                trigger="update" if update else ("refresh" if state is not None else None),
                user=None,
                account=state,
                profile=None,
                is_new_user=None,
            )
            if token is None:
                ctx.out_cookies.delete_chunks(spec, present)
                return None
            if not isinstance(token, dict):
                raise Configuration("the `jwt` callback must return a dict or None")
            changed = changed or msgspec.json.encode(token) != before
        update_age = settings.session.update_age
        reissue = (
            changed
            or update
            or (settings.jwt.decode is None and rotated(value, settings.secrets, spec.name))
        )
        expires: float
        if not reissue and isinstance(issued_at, int) and ctx.now - issued_at < update_age:
            expires = issued_at + settings.session.max_age
        else:
            expires = ctx.now + settings.session.max_age
            if records_kept(ctx):
                yield from touch(ctx, token, expires)
            encoded = yield from ctx.encode_token(token)
            ctx.out_cookies.set_chunked(spec, encoded, ctx.now, present)
        user = token_user(token, with_id=settings.adapter is not None)
        ctx.session_user_id = token_subject(token)
        return (
            yield from expose(ctx, user, expires, token=token, user=None, data=data, update=update)
        )

    def issue(
        self, ctx: Context, login: LoginResult, *, profile: Mapping[str, Any] | None
    ) -> Step[None]:
        """Run the ``jwt`` callback and set the session cookie (or clear it on ``None``).

        A sign-in starts a new session (``auth_time`` now, a new ``sid``; the browser's
        previous session is revoked and its record dropped); an account linked while signed
        in keeps the session's ``sid`` and ``auth_time`` (linking is no sign-in: the session
        stays as fresh as it was)."""
        first = default_token(login.user)
        provider = oauth_provider(ctx, login.account.get("provider"))
        state = None if provider is None else sign_in_state(provider, login.account, profile)
        if state is not None:
            first[STATE_CLAIM] = state
        recorded = records_kept(ctx)
        previous = None
        if login.keep_session or recorded:
            previous = yield from _readable_cookie(ctx)
        if login.keep_session and previous is not None:
            first.update({claim: previous[claim] for claim in SIGN_IN_CLAIMS if claim in previous})
        else:
            first["auth_time"] = int(ctx.now)
            if login.kept_at is not None:
                first[KEPT_AT] = login.kept_at
        if ctx.settings.session.revocation and "sid" not in first:
            first["sid"] = ctx.random_uuid()
        token: dict[str, Any] | None = first
        callback = ctx.settings.callbacks.jwt
        if callback is not None:
            token = yield from invoke(
                "jwt",
                callback,
                token=token,
                user=login.user,
                account=login.account,
                profile=profile,
                trigger="signUp" if login.is_new_user else "signIn",
                is_new_user=login.is_new_user,
                session=None,
            )
        spec = ctx.cookie_specs.session_token
        _, present = read_chunked(ctx.cookies, spec.name)
        previous_sid = None if previous is None else previous.get("sid")
        if token is None:
            ctx.out_cookies.delete_chunks(spec, present)
            if recorded:
                yield from end_jwt_session(ctx, previous_sid)
            return
        if not isinstance(token, dict):
            raise Configuration("the `jwt` callback must return a dict or None")
        value = yield from ctx.encode_token(token)
        if recorded and token.get("sid") != previous_sid:
            yield from register(ctx, token, ctx.now + ctx.settings.session.max_age)
        ctx.out_cookies.set_chunked(spec, value, ctx.now, present)
        if recorded and token.get("sid") != previous_sid:
            yield from end_jwt_session(ctx, previous_sid)

    def end(self, ctx: Context, value: str) -> Step[None]:
        token = yield from ctx.decode_token(value)
        if records_kept(ctx) and token is not None:
            yield from end_jwt_session(ctx, token.get("sid"))
        yield from emit(ctx.settings.events.sign_out, "sign_out", session=None, token=token)


def live_token(ctx: Context, value: str) -> Step[dict[str, Any] | None]:
    """The token of the JWT session cookie ``value`` while it is live (readable, not revoked
    nor unknown to be, with a ``sub``), else ``None``: an unreadable cookie means "not signed
    in", as in Auth.js."""
    try:
        token = yield from ctx.decode_token(value)
    except Exception:
        return None
    if not isinstance(token, dict):
        return None
    if ctx.settings.session.revocation and (yield from _revoked_or_unknown(ctx, token)):
        return None
    sub = token.get("sub")
    return token if isinstance(sub, str) and sub else None


def _revoked_or_unknown(ctx: Context, token: Mapping[str, Any]) -> Step[bool]:
    """Whether ``token`` is revoked, or cannot be known to be live now (the marks' store
    failed, logged): a session read answers ``null`` then, so a sign-in or a link made
    meanwhile treats the browser as signed out too, instead of failing."""
    try:
        return (yield from is_revoked(ctx, token))
    except AdapterError as err:
        yield from log_error(err)
        return True


def _readable_cookie(ctx: Context) -> Step[dict[str, Any] | None]:
    """The browser's session token, if its cookie decodes (a sign-in replaces it)."""
    value, _ = read_chunked(ctx.cookies, ctx.cookie_specs.session_token.name)
    if value is None:
        return None
    try:
        token = yield from ctx.decode_token(value)
    except Exception:  # unreadable: there is no previous session to speak of
        return None
    return token if isinstance(token, dict) else None


def token_subject(token: Mapping[str, Any]) -> str | None:
    """Whose session a session token is: its ``sub`` (``None`` when it has none)."""
    sub = token.get("sub")
    return sub if isinstance(sub, str) and sub else None


def token_user(token: Mapping[str, Any], *, with_id: bool) -> dict[str, Any]:
    """The session's ``user`` of a session token: ``name``, ``email`` and ``image``; and,
    ``with_id`` (a store is configured: the ``sub`` is the stored user's id), ``id``."""
    # A loop, not a comprehension: every session read runs this, and before Python 3.12 a
    # comprehension makes a new function object on each call.
    user = {}
    for key, field in _TOKEN_USER_FIELDS:
        if field in token:
            user[key] = token[field]
    if with_id and (sub := token_subject(token)) is not None:
        user["id"] = sub
    return user


def plain_jwt_reads(settings: Settings) -> bool:
    """Whether reading a JWT session of ``settings`` can need no action at all: no ``jwt``
    or ``session`` callback, no ``events.session``, no revocation, no provider tokens kept
    in the session, no ``jwt.decode`` or ``jwt.encode`` override."""
    return (
        settings.strategy == "jwt"
        and not settings.keeps_provider_tokens
        and settings.callbacks.jwt is None
        and settings.callbacks.session is None
        and settings.events.session is None
        and not settings.session.revocation
        and settings.jwt.decode is None
        and settings.jwt.encode is None
    )


_TOKEN_USER_FIELDS = (("name", "name"), ("email", "email"), ("image", "picture"))


def default_token(user: Mapping[str, Any]) -> dict[str, Any]:
    """The token a sign-in starts from: ``name``, ``email``, ``picture`` and ``sub``."""
    token = {key: user[field] for key, field in _TOKEN_FIELDS if field in user}
    if user.get("id") is not None:
        token["sub"] = str(user["id"])
    return token


_TOKEN_FIELDS = (("name", "name"), ("email", "email"), ("picture", "image"))


# -- database ----------------------------------------------------------------------------------


class DatabaseSessions(SessionStrategy):
    """The session is a row; the cookie holds its token."""

    read_error = SessionTokenError
    forgets_unreadable = False  # a database hiccup keeps the cookie

    def read(
        self, ctx: Context, value: str, present: list[str], *, update: bool, data: Any
    ) -> Step[Any]:
        """Look the row up; delete it when expired; extend it once ``update_age`` has passed."""
        settings = ctx.settings
        spec = ctx.cookie_specs.session_token
        found = session_and_user(
            (yield from call_adapter(settings.adapter, "get_session_and_user", value))
        )
        if found is not None and timestamp(found[0]["expires"]) <= ctx.now:
            yield from call_adapter(settings.adapter, "delete_session", value)
            found = None
        if found is None:
            ctx.out_cookies.delete_chunks(spec, present)
            return None
        expires = timestamp(found[0]["expires"])
        user = dict(found[1])
        yield from database_token_states(ctx, str(user["id"]))
        max_age, update_age = settings.session.max_age, settings.session.update_age
        if expires - max_age + update_age <= ctx.now:
            expires = ctx.now + max_age
            extended = yield from call_adapter(
                settings.adapter,
                "update_session",
                {"session_token": value, "expires": utc(expires), "last_seen_at": utc(ctx.now)},
                single_flight=_extension_key(value),
            )
            if extended is None:  # deleted meanwhile (signed out elsewhere)
                ctx.out_cookies.delete_chunks(spec, present)
                return None
            set_session_cookie(ctx, value, expires)
        shown: dict[str, Any] = {k: user[k] for k in ("name", "email", "image") if k in user}
        shown["id"] = ctx.session_user_id = str(user["id"])
        return (
            yield from expose(ctx, shown, expires, token=None, user=user, data=data, update=update)
        )

    def issue(
        self, ctx: Context, login: LoginResult, *, profile: Mapping[str, Any] | None
    ) -> Step[None]:
        """A new session row, replacing the browser's (that row is deleted); none when the
        browser is signed in as this user already."""
        if login.keep_session:
            return
        previous, _ = read_chunked(ctx.cookies, ctx.cookie_specs.session_token.name)
        sid = provider_sid(ctx, login.account, profile)
        yield from create_database_session(ctx, str(login.user["id"]), sid=sid)
        if previous:
            try:
                yield from call_adapter(ctx.settings.adapter, "delete_session", previous)
            except Exception as err:  # the cookie no longer points at it: only a stale row is left
                yield from log_error(err)

    def end(self, ctx: Context, value: str) -> Step[None]:
        session = yield from call_adapter(ctx.settings.adapter, "delete_session", value)
        yield from emit(ctx.settings.events.sign_out, "sign_out", session=session, token=None)


def _extension_key(session_token: str) -> str:
    """The single-flight key of extending one session: concurrent reads that all found it
    due make one ``update_session`` write (the key is a hash: no token in it)."""
    return "update_session:" + hashlib.sha256(session_token.encode()).hexdigest()


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


def create_database_session(
    ctx: Context, user_id: str, *, sid: str | None = None, signed_in_at: float | None = None
) -> Step[dict[str, Any]]:
    """A new session row for ``user_id`` (expiring ``max_age`` from now; ``sid``: the
    provider session it belongs to) and its cookie; a sign-in now, or the one at
    ``signed_in_at`` goes on (its freshness kept)."""
    token = yield from new_session_token(ctx)
    expires = ctx.now + ctx.settings.session.max_age
    session = {
        "session_token": token,
        "user_id": user_id,
        "expires": utc(expires),
        **database_session_fields(ctx, signed_in_at),
    }
    if sid is not None:
        session["sid"] = sid
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


STRATEGIES: dict[str, SessionStrategy] = {"jwt": JWTSessions(), "database": DatabaseSessions()}
"""One stateless instance per ``session.strategy``."""
