"""One refresh per refresh token, one exchange per authorization code, across processes,
through a shared store (a difference from Auth.js, which leaves concurrent refreshes to the
app and fails a callback that comes twice).

Within a process the binding makes one request per ``SendHTTP.single_flight`` key at a
time. Across processes (several workers, several machines) the engine asks the store of
``settings.single_flight`` (:class:`~sansio_auth.adapters.SingleFlightStore`) first: the
process that claims the key sends the request and keeps the answer there, sealed with a key
derived from the refresh token (or the code and its PKCE verifier); the others wait for that
answer and use it as their own (or, while their access token is still valid, go on with it
without waiting). A lease outlives the HTTP client's timeout (15 s), so its holder never sends
after losing it; if the holder dies, the lease ends and the next waiter claims the key and
tries itself.

The code exchange goes the same way: when a node dies after the provider answered it, the
load balancer sends the browser's callback again to another node, which finds the answer and
signs the browser in (instead of sending the used code, which the provider refuses).
"""

from __future__ import annotations

from .._context import Context
from .._flow import Step, call_adapter, log_error
from ..errors import AuthError
from ..events import Event, HTTPResponse, OutboundRequest, SendHTTP
from ..fetch import ProviderResponseError
from ..oauth.refresh import NONCE_BYTES, open_answer, seal_answer

LEASE = 20.0
"""Seconds a claim lasts: longer than an outbound request may take."""
WAIT = 5.0
"""Seconds each wait for another process's answer lasts (under the adapter-call deadline)."""
KEEP = 30.0
"""Seconds an answer is kept for those that come later with the same refresh token."""
ROUNDS = 6
"""Claims and waits before giving up: enough to outlast a lease whose holder died."""


def send_once(
    ctx: Context,
    request: OutboundRequest,
    key: str,
    secret: str,
    *,
    wait: bool = True,
    store_optional: bool = False,
    in_process: bool = True,
) -> Step[Event | None]:
    """The answer to ``request`` (a refresh or code exchange): sent by this process, or by the
    one that claimed ``key`` (the answer it kept, sealed with ``secret``: the refresh token, or
    the code and verifier); with ``wait=False``, ``None`` when another process holds the
    claim and has not answered yet. Raises when no answer came within :data:`ROUNDS`, or the
    store failed (with ``store_optional``, the failure is logged and the request sent: right
    for a code, which the provider takes once anyway; a refresh token sent twice can end the
    whole grant, so a refresh waits for the store instead). ``in_process=False``: this
    process's binding does not keep the answer either (it could not be told to forget it)."""
    send = SendHTTP(request=request, single_flight=key if in_process else None)
    store = ctx.settings.single_flight
    if store is None:
        return (yield send)
    owner = ctx.random_hex(16)
    for _ in range(ROUNDS):
        try:
            claimed, sealed = yield from call_adapter(store, "claim_refresh", key, owner, LEASE)
        except AuthError as err:
            if not store_optional:
                raise
            yield from log_error(err)
            return (yield send)
        if claimed:
            event = yield send
            answer = None
            if isinstance(event, HTTPResponse):
                answer = seal_answer(secret, key, event, ctx.entropy(NONCE_BYTES))
            try:
                yield from call_adapter(store, "finish_refresh", key, owner, answer, KEEP)
            except AuthError as err:  # the answer is still ours; the others outwait the lease
                yield from log_error(err)
            return event
        if sealed is None and not wait:
            return None
        if sealed is None:
            sealed = yield from call_adapter(store, "await_refresh", key, WAIT)
        if sealed is not None:
            opened = open_answer(secret, key, bytes(sealed))
            if opened is None:
                raise ProviderResponseError("the answer another process kept is unreadable")
            return opened
    raise ProviderResponseError("the request another process claimed did not finish")


def forget(ctx: Context, key: str) -> Step[None]:
    """Drop the answer kept for ``key`` (a code's, once the browser is signed in with it: a
    replay of the callback is refused again). A store failure is logged."""
    store = ctx.settings.single_flight
    if store is None:
        return
    try:
        yield from call_adapter(store, "finish_refresh", key, "", None, 0)
    except AuthError as err:
        yield from log_error(err)
