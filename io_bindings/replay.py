"""Replay recorded exchanges offline and check the engine still does the same.

>>> divergence = replay("exchanges.jsonl", config)      # None when all replay identically
>>> assert_replays("exchanges.jsonl", config)           # the pytest helper

Each recorded request is handled by an engine built from ``config`` with the recorded
clock readings and entropy. Every action the engine asks for is compared with the
recorded one (HTTP method, URL, headers and body; callback name and params; adapter
method and arguments; log level and code), then answered from the recording. With
``live=True`` callbacks and adapter methods run for real (HTTP is still answered from
the recording). The final response's status, ``Location`` and cookies are compared
too. The first difference is reported as a :class:`Divergence`, whose text lists the
fields that changed (:func:`changes`) before the two values whole.

Secrets were redacted on record: the replay redacts what it replays with the same rules
and compares placeholders. A placeholder the engine itself produced (a cookie it set,
an e-mail token) is fed back as the value the replay produced; an ID token whose
signature was redacted is re-signed, and JWKS answered, with a key made for the replay.

The command line exits 0 when every exchange replays identically, 1 with the first
divergence printed (2 when the recording cannot be read)::

    python -m io_bindings.replay exchanges.jsonl --config module:attr [--live]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl

import anyio
import msgspec

from sansio_auth import AuthConfig, Engine, NotAnAuthRoute
from sansio_auth.drivers import async_performer
from sansio_auth.events import Action, CallAdapter, Event, Failed, InvokeCallback, Log

from ._recording import (
    Exchange,
    NoRedaction,
    RecordingError,
    Redactor,
    action_data,
    event_data,
    event_from_data,
    read_exchanges,
    request_data,
    request_from_data,
    response_data,
    restore,
)
from ._resign import Resigner
from .db.memory import MemoryCounters

__all__ = ["Divergence", "ReplayDiverged", "assert_replays", "main", "replay"]


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    """Where a replay first differed from its recording."""

    exchange: int
    """1-based line of the recording."""
    what: str
    recorded: Any = None
    replayed: Any = None

    def __str__(self) -> str:
        """What differs first (:func:`changes`: a query parameter, a header, a body field),
        then the recorded and replayed values whole."""
        lines = [f"exchange {self.exchange}: {self.what}"]
        if self.recorded is not None and self.replayed is not None:
            changed = changes(self.recorded, self.replayed)
            shown = changed[:MAX_CHANGES]
            if len(changed) > MAX_CHANGES:
                shown.append(f"... and {len(changed) - MAX_CHANGES} more")
            lines += ["  changed:", *(f"    {line}" for line in shown)]
        if self.recorded is not None or self.replayed is not None:
            lines.append(f"  recorded: {_show(self.recorded)}")
            lines.append(f"  replayed: {_show(self.replayed)}")
        return "\n".join(lines)


class ReplayDiverged(AssertionError):
    """Raised by :func:`assert_replays`; ``divergence`` says where."""

    def __init__(self, divergence: Divergence) -> None:
        super().__init__(str(divergence))
        self.divergence = divergence


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


MAX_CHANGES = 8
"""How many changed fields a divergence lists before the full values."""
_SHORT = 60


def changes(recorded: Any, replayed: Any, where: str = "") -> list[str]:
    """One line per field that differs between two recorded forms, e.g.
    ``url?scope: "openid" → "openid email"``: mappings by key, header and cookie lists
    (``[name, value]`` pairs) by name, a URL by its query parameters, a form or JSON body
    by its fields."""
    if recorded == replayed:
        return []
    old, new = _fields(recorded), _fields(replayed)
    if old is not None and new is not None:
        found = []
        for key in sorted(set(old) | set(new)):
            here = f"{where}{key}" if key[:1] in ("?", "[") or not key else f"{where}.{key}"
            here = here.lstrip(".")
            if key not in new:
                found.append(f"{here}: removed (was {_short(old[key])})")
            elif key not in old:
                found.append(f"{here}: added ({_short(new[key])})")
            else:
                found += changes(old[key], new[key], here)
        return found
    return [f"{where or 'the value'}: {_short(recorded)} → {_short(replayed)}"]


def _fields(value: Any) -> dict[str, Any] | None:
    """``value`` as named fields, when it has any (see :func:`changes`)."""
    if isinstance(value, dict):
        if set(value) == {"text"} and (body := _fields(value["text"])) is not None:
            return body  # a recorded body: its fields
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list):
        if value and all(_is_pair(item) for item in value):
            named: dict[str, Any] = {}
            for name, item in value:
                named[name] = [*named[name], item] if name in named else item
            return named
        return {f"[{i}]": item for i, item in enumerate(value)}
    if not isinstance(value, str):
        return None
    if value[:1] in ("{", "["):
        try:
            return _fields(json.loads(value))
        except ValueError:
            return None
    if "://" in value and "?" in value:
        base, _, query = value.partition("?")
        return {"": base} | {f"?{k}": v for k, v in parse_qsl(query, keep_blank_values=True)}
    if "=" in value and " " not in value and "://" not in value:
        return {f"[{k}]": v for k, v in parse_qsl(value, keep_blank_values=True)}
    return None


def _is_pair(item: Any) -> bool:
    return isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str)


def _short(value: Any) -> str:
    text = _show(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def replay(
    path: str | os.PathLike[str],
    config: AuthConfig,
    *,
    live: bool = False,
    env: Mapping[str, str] | None = None,
) -> Divergence | None:
    """Replay the recording at ``path`` against ``config``: the first divergence, or ``None``.

    ``env`` is the environment the engine infers from (default ``os.environ``, as the runtime).
    """
    exchanges = read_exchanges(os.fspath(path))
    return anyio.run(_Replay(exchanges, config, live, env).run)


def assert_replays(
    path: str | os.PathLike[str],
    config: AuthConfig,
    *,
    live: bool = False,
    env: Mapping[str, str] | None = None,
) -> None:
    """Raise :class:`ReplayDiverged` (an ``AssertionError``) unless every exchange replays."""
    divergence = replay(path, config, live=live, env=env)
    if divergence is not None:
        raise ReplayDiverged(divergence)


class _Stop(Exception):
    """The replay diverged: the engine is answered with a failure and the rest ignored."""


class _Replay:
    def __init__(
        self,
        exchanges: list[Exchange],
        config: AuthConfig,
        live: bool,
        env: Mapping[str, str] | None,
    ) -> None:
        self.exchanges = exchanges
        self.live = live
        redacted = all(exchange.redacted for exchange in exchanges)
        emails = all(exchange.emails_redacted for exchange in exchanges)
        self.redactor = Redactor(emails=emails) if redacted else NoRedaction()
        self.resigner = Resigner()
        self.divergence: Divergence | None = None
        self.number = 0
        self.clock: list[float] = []
        self.entropy: list[bytes] = []
        self.steps: list[Any] = []
        env = os.environ if env is None else env
        self.engine = Engine(
            config,
            clock=self._clock,
            entropy=self._entropy,
            env=env,
            counters=MemoryCounters(),  # as the runtimes that recorded
        )
        self._live = async_performer(log=lambda entry: None)

    def diverge(self, what: str, recorded: Any = None, replayed: Any = None) -> _Stop:
        if self.divergence is None:
            self.divergence = Divergence(
                exchange=self.number, what=what, recorded=recorded, replayed=replayed
            )
        return _Stop(what)

    def _clock(self) -> float:
        if not self.clock:
            self.diverge("the engine read the clock more often than recorded")
            return 0.0
        return self.clock.pop(0)

    def _entropy(self, n: int) -> bytes:
        if not self.entropy:
            self.diverge(f"the engine drew entropy ({n} bytes) more often than recorded")
            return bytes(n)
        data = self.entropy.pop(0)
        if len(data) != n:
            self.diverge("the engine drew a different amount of entropy", len(data), n)
            return bytes(n)
        return data

    def _input(self, data: Any) -> Any:
        """Recorded input with each placeholder the replay knows replaced by its value
        (the others stay, and are remembered as standing for themselves)."""

        def lookup(placeholder: str) -> str:
            value = self.redactor.values.get(placeholder)
            if value is None:
                self.redactor.bind(placeholder, placeholder)
                return placeholder
            return value

        return restore(data, lookup)

    async def run(self) -> Divergence | None:
        for number, exchange in enumerate(self.exchanges, 1):
            self.number = number
            await self._exchange(exchange)
            if self.divergence is not None:
                return self.divergence
        return None

    async def _exchange(self, exchange: Exchange) -> None:
        self.clock = list(exchange.clock)
        self.entropy = [base64.b64decode(chunk) for chunk in exchange.entropy]
        self.steps = list(exchange.steps)
        request = request_from_data(self._input(exchange.request))
        self.redactor.http_message(request_data(request))  # number its secrets as on record
        flow = self.engine.handle(request)
        if isinstance(flow, NotAnAuthRoute):
            if exchange.response is not None:
                self.diverge("the request is no longer an auth route")
            return
        if exchange.response is None:
            self.diverge("the request was not an auth route when recorded")
            return
        response = await flow.run(self._perform)
        if self.divergence is not None:
            return
        if self.steps:
            self.diverge("the engine stopped before a recorded action", self.steps[0].action)
            return
        replayed = self.redactor.response(response_data(response))
        recorded = exchange.response
        if replayed["status"] != recorded["status"]:
            self.diverge("the response status differs", recorded["status"], replayed["status"])
        elif replayed["location"] != recorded["location"]:
            self.diverge(
                "the response Location differs", recorded["location"], replayed["location"]
            )
        elif replayed["cookies"] != recorded["cookies"]:
            self.diverge("the response cookies differ", recorded["cookies"], replayed["cookies"])

    async def _perform(self, action: Action) -> Event:
        if self.divergence is not None:
            return Failed(error=_Stop("replay diverged"))
        replayed = self.redactor.action(action_data(action))
        if not self.steps:
            return Failed(
                error=self.diverge("an action the recording does not have", None, replayed)
            )
        step = self.steps.pop(0)
        if replayed != step.action:
            return Failed(error=self.diverge("the action differs", step.action, replayed))
        if isinstance(action, Log):
            return await self._live(action)
        if self.live and isinstance(action, InvokeCallback | CallAdapter):
            event = await self._live(action)
            self.redactor.event(event_data(event))  # number its secrets as on record
            return event
        assert step.event is not None  # every action but Log has its answer
        return event_from_data(self._event_input(step.event))

    def _event_input(self, data: dict[str, Any]) -> dict[str, Any]:
        """A recorded event made ready to feed: JWKS and redacted ID tokens re-signed."""
        if data["kind"] == "http" and "text" in data["body"]:
            text = data["body"]["text"]
            try:
                body = json.loads(text)
            except ValueError:
                body = None
            if isinstance(body, dict):
                body = self.resigner.body(body, self.redactor)
                data = dict(data, body={"text": json.dumps(body, separators=(",", ":"))})
        restored: dict[str, Any] = self._input(data)
        return restored


def main(argv: Sequence[str] | None = None) -> int:
    """Replay a recording; exit 0 when it replays identically, 1 with the first divergence."""
    from .record import load_config

    parser = argparse.ArgumentParser(prog="python -m io_bindings.replay", description=__doc__)
    parser.add_argument("recording", help="the JSON-lines file io_bindings.record wrote")
    parser.add_argument("--config", required=True, help="module:attr of an AuthConfig")
    parser.add_argument("--live", action="store_true", help="run callbacks and adapters")
    args = parser.parse_args(argv)
    try:
        divergence = replay(args.recording, load_config(args.config), live=args.live)
    except (OSError, RecordingError) as err:
        print(f"cannot replay {args.recording}: {err}", file=sys.stderr)
        return 2
    if divergence is not None:
        print(divergence)
        return 1
    print(f"{args.recording}: every exchange replays identically")
    return 0


if __name__ == "__main__":
    sys.exit(main())
