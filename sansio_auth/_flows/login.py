"""Steps every sign-in method shares: the ``sign_in`` callback and issuing the session."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import msgspec

from .._context import Context
from .._flow import Step, emit, invoke
from ..cookies import read_chunked, write_chunked
from ..errors import AccessDenied, AuthError, Configuration


def as_user(value: Any) -> dict[str, Any]:
    """A user record as a plain dict, from a mapping, a dataclass or a msgspec struct."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, msgspec.Struct):
        return msgspec.structs.asdict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise Configuration(f"expected a user mapping, got {type(value).__name__}")


def run_sign_in_callback(ctx: Context, **params: Any) -> Step[str | None]:
    """Ask the ``sign_in`` callback; ``None`` to go on, or the URL it redirects to.

    False (or any falsy value) and exceptions other than :class:`AuthError` deny
    access with :class:`AccessDenied`.
    """
    callback = ctx.settings.callbacks.sign_in
    if callback is None:
        return None
    try:
        allowed = yield from invoke("sign_in", callback, **params)
    except AuthError:
        raise
    except Exception as err:
        raise AccessDenied(err) from err
    if not allowed:
        raise AccessDenied("the sign_in callback refused the sign-in")
    if isinstance(allowed, str):
        return (yield from ctx.redirect(allowed))
    return None


def default_token(user: Mapping[str, Any]) -> dict[str, Any]:
    """The token a sign-in starts from: ``name``, ``email``, ``picture`` and ``sub``."""
    token = {key: user[field] for key, field in _TOKEN_FIELDS if field in user}
    if user.get("id") is not None:
        token["sub"] = str(user["id"])
    return token


_TOKEN_FIELDS = (("name", "name"), ("email", "email"), ("picture", "image"))


def issue_jwt_session(
    ctx: Context,
    *,
    user: Mapping[str, Any],
    account: Mapping[str, Any] | None,
    profile: Mapping[str, Any] | None = None,
    is_new_user: bool = False,
) -> Step[None]:
    """Run the ``jwt`` callback on sign-in and set the session cookie (or clear it on ``None``)."""
    token: dict[str, Any] | None = default_token(user)
    callback = ctx.settings.callbacks.jwt
    if callback is not None:
        token = yield from invoke(
            "jwt",
            callback,
            token=token,
            user=user,
            account=account,
            profile=profile,
            trigger="signUp" if is_new_user else "signIn",
            is_new_user=is_new_user,
            session=None,
        )
    spec = ctx.cookie_specs.session_token
    _, present = read_chunked(ctx.cookies, spec.name)
    if token is None:
        ctx.out_cookies.extend(spec.delete(name) for name in present)
        return
    if not isinstance(token, dict):
        raise Configuration("the `jwt` callback must return a dict or None")
    value = yield from ctx.encode_token(token)
    ctx.out_cookies.extend(write_chunked(spec, value, ctx.now, present))


def emit_sign_in(ctx: Context, **message: Any) -> Step[None]:
    """Emit ``events.sign_in``."""
    yield from emit(ctx.settings.events.sign_in, "sign_in", **message)
