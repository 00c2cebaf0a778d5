"""Perform the engine's actions in memory, with the engine's own sync driver, and keep them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .._flow import Flow
from ..drivers import sync_performer
from ..events import Action, Event, HTTPResponse, InvokeCallback, Log, OutboundRequest
from ..http import Response

SendHTTP = Callable[[OutboundRequest], HTTPResponse]


def step(awaitable: Awaitable[Any]) -> Any:
    """The result of an awaitable that never suspends (an ``async def`` that awaits nothing
    but other such coroutines), stepped without an event loop.

    A callback that really waits (``await asyncio.sleep(0)``, a database driver, a network
    call) suspends: that raises :class:`RuntimeError`, which fails the action. Test such
    callbacks through a binding (``io_bindings``) instead.
    """
    iterator = awaitable.__await__()
    try:
        iterator.send(None)
    except StopIteration as done:
        return done.value
    close = getattr(iterator, "close", None)
    if close is not None:
        close()
    raise RuntimeError(
        "a callback awaited something that suspends: the in-memory performer has no event loop"
    )


def _no_http(request: OutboundRequest) -> HTTPResponse:
    raise RuntimeError(f"no HTTP peer for {request.method} {request.url.partition('?')[0]}")


class Performer:
    """Answers every action of a flow in memory and records the actions it saw.

    Callbacks and adapter methods are called (``async def`` ones are stepped with
    :func:`step`), ``SendHTTP`` goes to :attr:`http` (a :class:`~sansio_auth.testing.MemoryOP`'s
    ``handle``, say), ``Log`` entries are only recorded. ``runner`` replaces the whole drive
    (e.g. ``lambda flow: anyio.run(flow.run, auth.perform)`` to go through a binding).
    """

    def __init__(
        self,
        http: SendHTTP | None = None,
        *,
        runner: Callable[[Flow], Response] | None = None,
    ) -> None:
        self.http: SendHTTP | None = http
        self.runner = runner
        self.actions: list[Action] = []
        self._perform = sync_performer(
            send_http=lambda request: (self.http or _no_http)(request),
            log=lambda entry: None,
            wait=step,
        )

    def run(self, flow: Flow) -> Response:
        """Drive ``flow`` to its :class:`~sansio_auth.Response`."""
        if self.runner is not None:
            return self.runner(flow)
        return flow.run_sync(self.perform)

    def perform(self, action: Action) -> Event:
        """One action's answer (an exception becomes :class:`~sansio_auth.events.Failed`)."""
        self.actions.append(action)
        return self._perform(action)

    def clear(self) -> None:
        """Forget the actions seen so far."""
        self.actions.clear()

    def invoked(self, name: str) -> list[Mapping[str, Any]]:
        """The params of every callback call named ``name`` (``jwt``, ``events.sign_in``...)."""
        return [a.params for a in self.actions if isinstance(a, InvokeCallback) and a.name == name]

    def emitted(self, name: str) -> list[Mapping[str, Any]]:
        """The message of every ``events.<name>`` handler call."""
        return self.invoked(f"events.{name}")

    @property
    def logs(self) -> list[Log]:
        """The ``Log`` actions seen."""
        return [a for a in self.actions if isinstance(a, Log)]

    def log_codes(self, level: str | None = None) -> list[str]:
        """The codes of the logs seen (of ``level`` only, if given)."""
        return [entry.code for entry in self.logs if level is None or entry.level == level]
