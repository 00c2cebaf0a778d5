"""``POST signout``: end the session (and, federated, the provider's: see
:mod:`.federated`) and go back to the callback URL."""

from __future__ import annotations

from .._context import Context, Reply
from .._flow import Step, log_error
from ..cookies import read_chunked
from ..errors import SignOutError
from .federated import end_session_url, federation
from .strategies import session_strategy


def sign_out(ctx: Context) -> Step[Reply]:
    """Delete the session (row and cookies), emit ``sign_out``, redirect."""
    ctx.check_csrf()
    destination = yield from ctx.callback_url()
    spec = ctx.cookie_specs.session_token
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:  # no session, or one refused (too many chunks): clear what was sent
        ctx.out_cookies.delete_chunks(spec, present)
        return Reply(redirect=destination)
    provider_session = None
    try:  # read before the session ends: which provider session to end too
        requested = ctx.param("federated") in ("true", "1")
        provider_session = yield from federation(ctx, value, requested=requested)
    except Exception as err:
        yield from log_error(SignOutError(err))
    try:
        yield from session_strategy(ctx).end(ctx, value)
    except Exception as err:
        yield from log_error(SignOutError(err))
    ctx.out_cookies.delete_chunks(spec, present)
    if provider_session is not None:
        try:
            url = yield from end_session_url(ctx, provider_session)
        except Exception as err:  # our session is over: only the provider's stays
            yield from log_error(SignOutError(err))
            url = None
        if url is not None:
            return Reply(redirect=url)
    return Reply(redirect=destination)
