"""The generator plumbing flows are written with, and the :class:`Flow` driver handle.

A step is a generator that yields actions, receives events and returns a value:
``user = yield from invoke("authorize", fn, credentials=..., request=...)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, NoReturn, TypeVar

from .adapters import AdapterConflict
from .errors import (
    ActionTimeout,
    AdapterError,
    AuthError,
    DeadlineExceeded,
    EventError,
    FlowProtocolError,
    fault_of,
    likely_fix,
)
from .events import (
    Action,
    AdapterReturned,
    CallAdapter,
    CallbackReturned,
    Event,
    Failed,
    HashPassword,
    HTTPResponse,
    InvokeCallback,
    Log,
    LogLevel,
    OutboundRequest,
    PasswordChecked,
    PasswordHashed,
    Respond,
    SendHTTP,
    VerifyPassword,
)
from .http import Response
from .passwords import Argon2Params, PasswordHasher

T = TypeVar("T")
Step = Generator[Action, Event, T]


class Flow:
    """One request being served: pull actions, push the events that answer them.

    >>> action = flow.next_action()
    >>> while not isinstance(action, Respond):
    ...     action = flow.send(perform(action))

    or, with a performer from :mod:`sansio_auth.drivers`, ``flow.run_sync(perform)`` /
    ``await flow.run(perform)``. Answering an action with an event of the wrong
    type raises :class:`~sansio_auth.errors.FlowProtocolError` before the flow resumes.

    ``deadline`` is how many seconds the whole flow may take (``deadlines.sign_in`` for a
    sign-in), ``None`` for no limit: a binding that keeps it answers the action pending when
    the time is up with ``Failed(ActionTimeout(...))`` and the flow ends on its error.
    """

    __slots__ = ("_gen", "_pending", "_started", "answer", "deadline")

    def __init__(
        self, gen: Generator[Action, Event, None] | None, *, deadline: float | None = None
    ) -> None:
        self._gen = gen
        self._started = False
        self._pending: Action | None = None
        self.deadline = deadline
        self.answer: Response | None = None
        """The response, when it was known without an action (:meth:`answered`)."""

    @classmethod
    def answered(cls, response: Response) -> Flow:
        """A flow that performs no action and answers ``response``: its first action is
        :class:`Respond`, so every driver ends at once."""
        flow = cls(None)  # no keyword: a session read makes one, and keywords cost more
        flow.answer = response
        return flow

    @property
    def pending(self) -> Action | None:
        """The action waiting for its answer (``None`` before the first and after
        :class:`Respond`)."""
        return self._pending

    def next_action(self) -> Action:
        """The first action; call once, then :meth:`send`."""
        if self._started:
            raise FlowProtocolError("next_action() is only for the first action; use send()")
        self._started = True
        if self.answer is not None:
            return Respond(response=self.answer)
        return self._advance(None)

    def send(self, event: Event) -> Action:
        """Answer the pending action with ``event``; get the next action."""
        pending = self._pending
        if pending is None:
            if not self._started:
                raise FlowProtocolError("call next_action() first")
            raise FlowProtocolError("the flow has already responded")
        if not isinstance(event, pending.answers):
            expected = " or ".join(kind.__name__ for kind in pending.answers)
            raise FlowProtocolError(
                f"{type(pending).__name__} is answered with {expected}, not {type(event).__name__}"
            )
        return self._advance(event)

    def _advance(self, event: Event | None) -> Action:
        assert self._gen is not None  # only an answered flow has none, and it never advances
        action = self._gen.send(event)  # type: ignore[arg-type]
        if isinstance(action, Respond):
            self._pending = None
            self._gen.close()
        else:
            self._pending = action
        return action

    def close(self) -> None:
        """Abandon the flow before its response: its code is stopped now (``GeneratorExit``
        at the pending action), not whenever the flow is collected."""
        self._pending = None
        if self._gen is not None:
            self._gen.close()

    def run_sync(self, perform: Callable[[Action], Event]) -> Response:
        """Drive the flow to its response, answering each action with ``perform(action)``
        (closed, see :meth:`close`, when that raises)."""
        try:
            action = self.next_action()
            while not isinstance(action, Respond):
                action = self.send(perform(action))
        except BaseException:
            self.close()
            raise
        return action.response

    async def run(self, perform: Callable[[Action], Awaitable[Event]]) -> Response:
        """Drive the flow to its response, answering each action with ``await perform(action)``
        (closed, see :meth:`close`, when that raises or is cancelled)."""
        try:
            action = self.next_action()
            while not isinstance(action, Respond):
                action = self.send(await perform(action))
        except BaseException:
            self.close()
            raise
        return action.response


def invoke(name: str, function: Callable[..., Any], **params: Any) -> Step[Any]:
    """Call a user function; its exception is raised here (a binding's timeout as
    :class:`DeadlineExceeded`)."""
    event = yield InvokeCallback(name=name, function=function, params=params)
    if isinstance(event, Failed):
        if isinstance(event.error, TimeoutError):
            raise DeadlineExceeded(event.error, cause={"callback": name}, fault="callback")
        raise event.error
    assert isinstance(event, CallbackReturned)
    return event.value


def call_adapter(
    adapter: Any, method: str, *args: Any, single_flight: str | None = None
) -> Step[Any]:
    """Call ``adapter.<method>(*args)``; its exception becomes :class:`AdapterError` (a
    binding's timeout :class:`DeadlineExceeded`). ``single_flight`` marks a call concurrent
    requests share (see :class:`CallAdapter`)."""
    function = getattr(adapter, method)
    event = yield CallAdapter(
        method=method, function=function, args=args, single_flight=single_flight
    )
    if isinstance(event, Failed):
        if isinstance(event.error, AuthError):
            raise event.error
        if isinstance(event.error, TimeoutError):
            raise DeadlineExceeded(event.error, cause={"method": method}, fault="adapter")
        raise AdapterError(event.error, cause={"method": method})
    assert isinstance(event, AdapterReturned)
    return event.value


def is_conflict(error: BaseException) -> bool:
    """Whether ``error`` (as :func:`call_adapter` raised it) is the adapter's
    :class:`~sansio_auth.adapters.AdapterConflict`: a write lost a race for a unique key."""
    return isinstance(error, AdapterError) and isinstance(error.cause.get("err"), AdapterConflict)


def send_http(request: OutboundRequest) -> Step[HTTPResponse]:
    """Make an outbound request; transport failures are raised here (the binding's deadline
    as :class:`DeadlineExceeded`)."""
    event = yield SendHTTP(request=request)
    if isinstance(event, Failed):
        raise_deadline(event.error, request)
        raise event.error
    assert isinstance(event, HTTPResponse)
    return event


def raise_deadline(error: BaseException, request: OutboundRequest) -> None:
    """:class:`DeadlineExceeded` when ``error`` is the binding's deadline for ``request``
    (an :class:`~sansio_auth.errors.ActionTimeout`); else nothing."""
    if isinstance(error, ActionTimeout):
        raise DeadlineExceeded(error, cause={"url": request.shown()}, fault="provider")


def hash_password(
    password: str, salt: bytes, params: Argon2Params, hasher: PasswordHasher
) -> Step[str]:
    """The hash of ``password`` by ``hasher`` (computed by the binding, off its event loop)."""
    event = yield HashPassword(password=password, salt=salt, params=params, hasher=hasher)
    if isinstance(event, Failed):
        _raise_password_failure(event.error, "hash_password")
    assert isinstance(event, PasswordHashed)
    return event.hash


def verify_password(
    password: str, stored: str | None, params: Argon2Params, hasher: PasswordHasher
) -> Step[PasswordChecked]:
    """Check ``password`` against ``stored`` by ``hasher`` (``None``: comparable work,
    answered "not valid")."""
    event = yield VerifyPassword(password=password, stored=stored, params=params, hasher=hasher)
    if isinstance(event, Failed):
        _raise_password_failure(event.error, "verify_password")
    assert isinstance(event, PasswordChecked)
    return event


def _raise_password_failure(error: BaseException, action: str) -> NoReturn:
    """A hashing action's failure; the binding's timeout (the sign-in's deadline ran out
    while it waited for a worker) as :class:`DeadlineExceeded`."""
    if isinstance(error, TimeoutError):
        raise DeadlineExceeded(error, cause={"action": action}, fault="engine")
    raise error


def emit(handler: Callable[..., Any] | None, name: str, **message: Any) -> Step[None]:
    """Call the ``events.<name>`` handler if one is set; its failure is logged, never fatal."""
    if handler is None:
        return
    event = yield InvokeCallback(name=f"events.{name}", function=handler, params=message)
    if isinstance(event, Failed):
        yield from log_error(EventError(event.error))


def log_error(error: BaseException) -> Step[None]:
    """Log ``error`` in one line that ends with its likely fix (if known), at the level its
    fault gives (:func:`log_level`)."""
    code = error.type if isinstance(error, AuthError) else type(error).__name__
    fix = likely_fix(error)
    message = str(error) if fix is None else f"{error} Likely fix: {fix}"
    yield Log(level=log_level(error), code=code, message=message, error=error)


def log_level(error: BaseException) -> LogLevel:
    """The level ``error`` is logged at: ``warn`` for a refusal the client caused and must
    correct or live with (fault ``"browser"``: a wrong password or code, a form to correct,
    an expired link, a bad cookie), ``error`` for every fault the server's operator must
    look at (the configuration, a callback, the adapter, the provider, the engine)."""
    return "warn" if fault_of(error) == "browser" else "error"


def log_warning(code: str, message: str = "") -> Step[None]:
    """Log warning ``code``."""
    yield Log(level="warn", code=code, message=message)
