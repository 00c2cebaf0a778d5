"""``POST signout``: end the session and go back to the callback URL."""

from __future__ import annotations

from .._context import Context, Reply
from .._flow import Step, call_adapter, emit, log_error
from ..cookies import read_chunked
from ..errors import SignOutError


def sign_out(ctx: Context) -> Step[Reply]:
    """Delete the session (row and cookies), emit ``sign_out``, redirect."""
    ctx.check_csrf()
    destination = yield from ctx.callback_url()
    spec = ctx.cookie_specs.session_token
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:
        return Reply(redirect=destination)
    settings = ctx.settings
    try:
        if settings.strategy == "database":
            session = yield from call_adapter(ctx.settings.adapter, "delete_session", value)
            yield from emit(settings.events.sign_out, "sign_out", session=session, token=None)
        else:
            token = yield from ctx.decode_token(value)
            yield from emit(settings.events.sign_out, "sign_out", session=None, token=token)
    except Exception as err:
        yield from log_error(SignOutError(err))
    ctx.out_cookies.delete_chunks(spec, present)
    return Reply(redirect=destination)
