"""Record every exchange a runtime serves, for :mod:`io_bindings.replay`.

>>> recorder = Recorder("exchanges.jsonl")
>>> auth = recorder.auth(config)            # an io_bindings.anyio.Auth that records
>>> app = AuthApp(auth=auth)                # serve it as usual

Each request served appends one line (see :mod:`io_bindings._recording`): the request,
the clock readings and entropy the engine drew, every action with the event that
answered it, and the response. Secrets are redacted on write (``redact=False`` keeps
them): the auth secret never appears, client secrets, ``code``, tokens, cookie values,
``Authorization`` headers and password fields become placeholders; with
``redact_emails=True`` e-mail addresses too.

The command line serves an app and records what it serves::

    python -m io_bindings.record --config module:attr --out exchanges.jsonl \
        [--host 127.0.0.1 --port 8000] [--redact-emails]
"""

from __future__ import annotations

import argparse
import base64
import contextvars
import importlib
import secrets
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import IO, Any

import msgspec

from sansio_auth import AuthConfig, Engine, Flow, NotAnAuthRoute, Request, Response
from sansio_auth.events import Action, Event, Log, Respond

from ._cli import bind, serve_until_stopped
from ._deadlines import Budget
from ._recording import (
    Exchange,
    NoRedaction,
    Redactor,
    Step,
    action_data,
    event_data,
    request_data,
    response_data,
)
from .anyio import Auth, AuthApp
from .sync import SyncAuth

__all__ = ["Recorder", "RecordingAuth", "RecordingSyncAuth", "load_config", "main"]

_current: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "sansio_auth_recording", default=None
)


class Recorder:
    """Writes exchanges to ``out`` (a path, appended to, or a text file), one per line.

    Use :meth:`auth` for a recording runtime, or the hooks (:meth:`exchange`,
    :meth:`clock`, :meth:`entropy`, :meth:`step`, :meth:`finish`) from another driver.
    """

    def __init__(
        self, out: str | Path | IO[str], *, redact: bool = True, redact_emails: bool = False
    ) -> None:
        self._file: IO[str] = open(out, "a") if isinstance(out, str | Path) else out  # noqa: SIM115
        self._owns_file = isinstance(out, str | Path)
        self._redactor = Redactor(emails=redact_emails) if redact else NoRedaction()
        self._lock = threading.Lock()
        self.exchanges = 0
        """How many exchanges were written."""

    def auth(self, config: AuthConfig, **runtime: Any) -> RecordingAuth:
        """An :class:`~io_bindings.anyio.Auth` for ``config`` (and its runtime options)
        that records every request it serves here."""
        return RecordingAuth(config, recorder=self, **runtime)

    def sync_auth(self, config: AuthConfig, **runtime: Any) -> RecordingSyncAuth:
        """A :class:`~io_bindings.sync.SyncAuth` for ``config`` that records here
        (serve it with ``AuthWSGI(auth=...)``)."""
        return RecordingSyncAuth(config, recorder=self, **runtime)

    def clock(self, clock: Callable[[], float]) -> Callable[[], float]:
        """``clock`` that records its readings in the current exchange."""

        def reading() -> float:
            now = clock()
            exchange = _current.get()
            if exchange is not None:
                exchange.clock.append(now)
            return now

        return reading

    def runtime(
        self,
        *,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], bytes] = secrets.token_bytes,
        **options: Any,
    ) -> dict[str, Any]:
        """A runtime's options with its clock and entropy (the defaults unless given)
        recording here."""
        return {"clock": self.clock(clock), "entropy": self.entropy(entropy), **options}

    def entropy(self, entropy: Callable[[int], bytes]) -> Callable[[int], bytes]:
        """``entropy`` that records the bytes it returns in the current exchange."""

        def draw(n: int) -> bytes:
            data = entropy(n)
            exchange = _current.get()
            if exchange is not None:
                exchange.entropy.append(base64.b64encode(data).decode())
            return data

        return draw

    def exchange(self, request: Request) -> contextvars.Token[Exchange | None]:
        """Begin recording the exchange for ``request`` (in this context)."""
        return _current.set(Exchange(request=request_data(request)))

    def step(self, action: Action, event: Event) -> None:
        """Record that ``event`` answered ``action``."""
        exchange = _current.get()
        if exchange is not None:
            answer = None if isinstance(action, Log) else event_data(event)
            exchange.steps.append(Step(action=action_data(action), event=answer))

    def finish(self, token: contextvars.Token[Exchange | None], response: Response | None) -> None:
        """End the exchange :meth:`exchange` began and write it (redacted)."""
        exchange = _current.get()
        _current.reset(token)
        if exchange is None:
            return
        exchange.response = None if response is None else response_data(response)
        with self._lock:
            line = msgspec.json.encode(self._redacted(exchange)).decode()
            self._file.write(line + "\n")
            self._file.flush()
            self.exchanges += 1

    def _redacted(self, exchange: Exchange) -> Exchange:
        redact = self._redactor
        request = redact.http_message(exchange.request)
        steps = [
            Step(
                action=redact.action(step.action),
                event=None if step.event is None else redact.event(step.event),
            )
            for step in exchange.steps
        ]
        response = None if exchange.response is None else redact.response(exchange.response)
        return msgspec.structs.replace(
            exchange,
            redacted=not isinstance(redact, NoRedaction),
            emails_redacted=redact.emails,
            request=request,
            steps=steps,
            response=response,
        )

    def close(self) -> None:
        """Close the file (when this recorder opened it)."""
        if self._owns_file:
            self._file.close()


class _Recording:
    """What both recording runtimes do alike: every request the engine is asked to answer is
    an exchange, from before its first look at the request to the response (or none, when it
    is no auth route or its flow failed)."""

    recorder: Recorder
    engine: Engine

    def _answer(self, request: Request) -> Response | Flow | NotAnAuthRoute:
        token = self.recorder.exchange(request)
        try:
            served = self.engine.response_or_flow(request)
        except BaseException:
            self.recorder.finish(token, None)
            raise
        if isinstance(served, Flow):
            return Flow(_recorded(self.recorder, served, token), deadline=served.deadline)
        self.recorder.finish(token, None if isinstance(served, NotAnAuthRoute) else served)
        return served


def _recorded(
    recorder: Recorder, flow: Flow, token: contextvars.Token[Exchange | None]
) -> Generator[Action, Event, None]:
    """``flow``, the exchange ``token`` began finished with its response (with none when it
    fails or is abandoned: drivers close an abandoned flow, see :meth:`Flow.close`)."""
    response = None
    try:
        action = flow.next_action()
        while not isinstance(action, Respond):
            action = flow.send((yield action))
        response = action.response
        yield action
    finally:
        flow.close()
        recorder.finish(token, response)


class RecordingAuth(_Recording, Auth):
    """An :class:`~io_bindings.anyio.Auth` whose every response is recorded by ``recorder``."""

    def __init__(self, config: AuthConfig, *, recorder: Recorder, **runtime: Any) -> None:
        self.recorder = recorder
        super().__init__(config, **recorder.runtime(**runtime))

    async def perform(self, action: Action, budget: Budget | None = None) -> Event:
        event = await super().perform(action, budget)
        self.recorder.step(action, event)
        return event


class RecordingSyncAuth(_Recording, SyncAuth):
    """A :class:`~io_bindings.sync.SyncAuth` (the WSGI runtime) whose every response is
    recorded by ``recorder``."""

    def __init__(self, config: AuthConfig, *, recorder: Recorder, **runtime: Any) -> None:
        self.recorder = recorder
        super().__init__(config, **recorder.runtime(**runtime))

    def perform(self, action: Action, budget: Budget | None = None) -> Event:
        event = super().perform(action, budget)
        self.recorder.step(action, event)
        return event


def load_config(spec: str) -> AuthConfig:
    """The :class:`~sansio_auth.AuthConfig` at ``module:attr`` (called if it is a function)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise SystemExit(f"--config must be module:attr, not {spec!r}")
    if "." not in sys.path:
        sys.path.insert(0, ".")  # module:attr as on the command line, from the current directory
    value = getattr(importlib.import_module(module_name), attr)
    config = value() if callable(value) and not isinstance(value, AuthConfig) else value
    if not isinstance(config, AuthConfig):
        raise SystemExit(f"{spec} is a {type(config).__name__}, not an AuthConfig")
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the app of ``--config`` with uvicorn and record every exchange to ``--out``."""
    parser = argparse.ArgumentParser(prog="python -m io_bindings.record", description=__doc__)
    parser.add_argument("--config", required=True, help="module:attr of an AuthConfig")
    parser.add_argument("--out", required=True, help="the JSON-lines file to append to")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--no-redact", action="store_true", help="keep secrets (never commit)")
    parser.add_argument("--redact-emails", action="store_true", help="redact e-mail addresses too")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    another = f"--port, e.g. --port {args.port + 1}"
    sock = bind(args.host, args.port, program="record", pick_another=another)
    recorder = Recorder(args.out, redact=not args.no_redact, redact_emails=args.redact_emails)
    auth = recorder.auth(config)
    origin = f"http://{args.host}:{sock.getsockname()[1]}"
    print(
        f"Recording every exchange of {args.config} to {args.out}; its auth routes are served "
        f"on {origin}{auth.settings.base_path} (sign in at {origin}{auth.settings.base_path}"
        "/signin). Press Ctrl-C to stop.",
        flush=True,
    )
    try:
        serve_until_stopped(AuthApp(auth=auth), sock, log_level="warning")
    finally:
        recorder.close()
    print(f"Recorded {recorder.exchanges} exchanges to {args.out}.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
