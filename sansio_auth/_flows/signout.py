"""``POST signout``: end the session and go back to the callback URL."""

from __future__ import annotations

from .._context import Context, Reply
from .._flow import Step, log_error
from ..cookies import read_chunked
from ..errors import SignOutError
from .strategies import session_strategy


def sign_out(ctx: Context) -> Step[Reply]:
    """Delete the session (row and cookies), emit ``sign_out``, redirect."""
    ctx.check_csrf()
    destination = yield from ctx.callback_url()
    spec = ctx.cookie_specs.session_token
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:
        return Reply(redirect=destination)
    try:
        yield from session_strategy(ctx).end(ctx, value)
    except Exception as err:
        yield from log_error(SignOutError(err))
    ctx.out_cookies.delete_chunks(spec, present)
    return Reply(redirect=destination)
