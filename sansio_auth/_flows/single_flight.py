"""One refresh per refresh token across processes, through a shared store (a difference from
Auth.js, which leaves concurrent refreshes to the app).

Within a process the binding makes one request per ``SendHTTP.single_flight`` key at a
time. Across processes (several workers, several machines) the engine asks the store of
``settings.single_flight`` (:class:`~sansio_auth.adapters.SingleFlightStore`) first: the
process that claims the key sends the request and keeps the answer there, sealed with a key
derived from the refresh token; the others wait for that answer and use it as their own (or,
while their access token is still valid, go on with it without waiting). A lease outlives the
HTTP client's timeout (15 s), so its holder never sends after losing it; if the holder dies,
the lease ends and the next waiter claims the key and tries itself.
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
    ctx: Context, request: OutboundRequest, key: str, refresh_token: str, *, wait: bool = True
) -> Step[Event | None]:
    """The answer to the refresh ``request``: sent by this process, or by the one that
    claimed ``key`` (the answer it kept); with ``wait=False``, ``None`` when another process
    holds the claim and has not answered yet. Raises when no answer came within
    :data:`ROUNDS`."""
    send = SendHTTP(request=request, single_flight=key)
    store = ctx.settings.single_flight
    if store is None:
        return (yield send)
    owner = ctx.random_hex(16)
    for _ in range(ROUNDS):
        claimed, sealed = yield from call_adapter(store, "claim_refresh", key, owner, LEASE)
        if claimed:
            event = yield send
            answer = None
            if isinstance(event, HTTPResponse):
                answer = seal_answer(refresh_token, key, event, ctx.entropy(NONCE_BYTES))
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
            opened = open_answer(refresh_token, key, bytes(sealed))
            if opened is None:
                raise ProviderResponseError("another process's refresh answer is unreadable")
            return opened
    raise ProviderResponseError("another process's refresh of this token did not finish")
