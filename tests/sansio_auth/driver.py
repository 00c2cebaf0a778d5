"""An in-memory peer for the engine: a fake browser and a fake-IO performer.

Like h11's ``ConnectionPair``: no socket, no event loop, no real clock. The
:class:`Performer` answers every action in memory with the engine's own sync
driver (``async def`` user functions run to completion when they never suspend),
records what it saw, and the :class:`Browser` keeps a cookie jar that honours
``Set-Cookie`` headers (deletions and expiry included, by the fake clock).

>>> pair = AuthPair.build(providers=[Credentials(authorize=...)])
>>> pair.browser.sign_in_with_credentials(username="ann", password="pw")
>>> pair.browser.session()
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import msgspec

from sansio_auth import AuthConfig, Engine, Flow, NotAnAuthRoute, Request, Response
from sansio_auth.drivers import sync_performer
from sansio_auth.events import (
    Action,
    Event,
    HTTPResponse,
    InvokeCallback,
    Log,
    OutboundRequest,
)

SECRET = "test-secret-0123456789abcdef0123456789"
ORIGIN = "http://localhost:3000"
START = 1_800_000_000.0


class Clock:
    """A clock that only moves when told to."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def seeded_entropy(seed: int | str = 0) -> Callable[[int], bytes]:
    """Deterministic "random" bytes: SHA-256 in counter mode over ``seed``."""
    state = {"counter": 0}
    prefix = str(seed).encode()

    def entropy(n: int) -> bytes:
        out = b""
        while len(out) < n:
            state["counter"] += 1
            out += hashlib.sha256(prefix + state["counter"].to_bytes(8, "big")).digest()
        return out[:n]

    return entropy


def run_sync(awaitable: Any) -> Any:
    """Run a coroutine that never suspends (an ``async def`` with no real awaits)."""
    try:
        awaitable.send(None)
    except StopIteration as done:
        return done.value
    awaitable.close()
    raise RuntimeError("the fake performer cannot run a coroutine that suspends")


def _no_http(request: OutboundRequest) -> HTTPResponse:
    raise RuntimeError("no fake HTTP peer")


@dataclass
class Performer:
    """Performs the engine's actions in memory, by the engine's own sync driver, and
    records them."""

    engine: Engine
    http: Callable[[OutboundRequest], HTTPResponse] | None = None
    actions: list[Action] = field(default_factory=list)

    def run(self, flow: Flow) -> Response:
        """Drive ``flow`` to its :class:`Response`."""
        return flow.run_sync(self.perform)

    def __post_init__(self) -> None:
        self._perform = sync_performer(
            send_http=lambda request: (self.http or _no_http)(request),
            log=lambda entry: None,
            wait=run_sync,
        )

    def perform(self, action: Action) -> Event:
        """One action's answer; exceptions become :class:`Failed`."""
        self.actions.append(action)
        return self._perform(action)

    # -- what happened -----------------------------------------------------------------------

    def clear(self) -> None:
        self.actions.clear()

    def invoked(self, name: str) -> list[Mapping[str, Any]]:
        """The params of every ``InvokeCallback`` named ``name``."""
        return [a.params for a in self.actions if isinstance(a, InvokeCallback) and a.name == name]

    def emitted(self, name: str) -> list[Mapping[str, Any]]:
        """The message of every ``events.<name>`` handler call."""
        return self.invoked(f"events.{name}")

    @property
    def logs(self) -> list[Log]:
        return [a for a in self.actions if isinstance(a, Log)]

    def log_codes(self, level: str | None = None) -> list[str]:
        return [entry.code for entry in self.logs if level is None or entry.level == level]


@dataclass
class StoredCookie:
    value: str
    expires: float | None


def parse_set_cookie(line: str) -> tuple[str, str, dict[str, str]]:
    """``(name, raw value, attributes with lower-case names)`` of a ``Set-Cookie`` value."""
    first, *rest = line.split("; ")
    name, _, value = first.partition("=")
    attributes = {}
    for item in rest:
        key, _, val = item.partition("=")
        attributes[key.lower()] = val
    return name, value, attributes


class Browser:
    """A browser for one origin: a cookie jar and request helpers."""

    def __init__(self, engine: Engine, performer: Performer, clock: Clock, origin: str) -> None:
        self.engine = engine
        self.performer = performer
        self.clock = clock
        self.origin = origin
        self.jar: dict[str, StoredCookie] = {}
        self.last: Response | None = None

    # -- cookies -----------------------------------------------------------------------------

    def cookies(self) -> dict[str, str]:
        """Live cookies (raw, as they travel)."""
        now = self.clock.now
        return {
            name: c.value for name, c in self.jar.items() if c.expires is None or c.expires > now
        }

    def cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.cookies().items())

    def store(self, response: Response) -> None:
        """Apply the response's ``Set-Cookie`` lines to the jar."""
        for key, line in response.header_list():
            if key != "set-cookie":
                continue
            name, value, attrs = parse_set_cookie(line)
            expires: float | None = None
            if "expires" in attrs:
                expires = parsedate_to_datetime(attrs["expires"]).timestamp()
            if "max-age" in attrs:
                expires = self.clock.now + int(attrs["max-age"])
            if expires is not None and expires <= self.clock.now:
                self.jar.pop(name, None)
            else:
                self.jar[name] = StoredCookie(value, expires)

    # -- requests ----------------------------------------------------------------------------

    def build(
        self,
        method: str,
        path: str,
        *,
        form: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
    ) -> Request:
        all_headers = {k.lower(): v for k, v in (headers or {}).items()}
        if form is not None:
            body = urlencode(form).encode()
            all_headers.setdefault("content-type", "application/x-www-form-urlencoded")
        elif json is not None:
            body = msgspec.json.encode(json)
            all_headers.setdefault("content-type", "application/json")
        if "cookie" not in all_headers and self.jar:
            all_headers["cookie"] = self.cookie_header()
        url = path if "://" in path else self.origin + path
        return Request(method=method, url=url, headers=all_headers, body=body or b"")

    def send(self, request: Request) -> Response:
        """Serve ``request`` through the engine; store its cookies."""
        flow = self.engine.handle(request)
        if isinstance(flow, NotAnAuthRoute):
            raise AssertionError(f"{request.url} is not an auth route")
        response = self.performer.run(flow)
        self.store(response)
        self.last = response
        return response

    def request(self, method: str, path: str, **kwargs: Any) -> Response:
        return self.send(self.build(method, path, **kwargs))

    def get(self, path: str, **kwargs: Any) -> Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Response:
        return self.request("POST", path, **kwargs)

    # -- the common moves --------------------------------------------------------------------

    @property
    def base(self) -> str:
        return self.engine.settings.base_path

    def csrf_token(self) -> str:
        response = self.get(f"{self.base}/csrf")
        assert response.status == 200, response
        token = response.json()["csrfToken"]
        assert isinstance(token, str)
        return token

    def session(self) -> Any:
        response = self.get(f"{self.base}/session")
        assert response.status == 200, response
        return response.json()

    def update_session(self, data: Any) -> Response:
        return self.post(
            f"{self.base}/session", json={"csrfToken": self.csrf_token(), "data": data}
        )

    def sign_in_with_credentials(self, provider_id: str = "credentials", **fields: str) -> Response:
        form = {"csrfToken": self.csrf_token(), **fields}
        return self.post(f"{self.base}/callback/{provider_id}", form=form)

    def sign_out(self, **fields: str) -> Response:
        form = {"csrfToken": self.csrf_token(), **fields}
        return self.post(f"{self.base}/signout", form=form)


@dataclass
class AuthPair:
    """An engine, its performer, a clock and a browser, wired together."""

    engine: Engine
    performer: Performer
    clock: Clock
    browser: Browser

    @classmethod
    def build(
        cls,
        config: AuthConfig | None = None,
        *,
        env: Mapping[str, str] | None = None,
        origin: str = ORIGIN,
        seed: int | str = 0,
        **options: Any,
    ) -> AuthPair:
        """A pair for ``config`` (or ``AuthConfig(secret=SECRET, trust_host=True, **options)``)."""
        if config is None:
            options.setdefault("secret", SECRET)
            options.setdefault("trust_host", True)
            config = AuthConfig(**options)
        clock = Clock()
        engine = Engine(config, clock=clock, entropy=seeded_entropy(seed), env=env or {})
        performer = Performer(engine)
        return cls(engine, performer, clock, Browser(engine, performer, clock, origin))

    def new_browser(self, origin: str | None = None) -> Browser:
        return Browser(self.engine, self.performer, self.clock, origin or self.browser.origin)


def set_cookie_lines(response: Response) -> list[str]:
    return [line for key, line in response.header_list() if key == "set-cookie"]


def cookie_names(response: Response) -> list[str]:
    return [cookie.name for cookie in response.cookies]


def deleted_names(response: Response) -> set[str]:
    return {c.name for c in response.cookies if c.options.max_age == 0}


def written(response: Response) -> dict[str, str]:
    """Cookies the response sets (not deletions), name → value."""
    return {c.name: c.value for c in response.cookies if c.options.max_age != 0}


def users(*records: Mapping[str, Any]) -> Callable[..., Any]:
    """An ``authorize`` that accepts ``username``/``password`` pairs from ``records``."""
    table = {r["username"]: r for r in records}

    def authorize(credentials: Mapping[str, Any]) -> Any:
        record = table.get(credentials.get("username", ""))
        if record is None or record["password"] != credentials.get("password"):
            return None
        return {k: v for k, v in record.items() if k not in ("username", "password")}

    return authorize


ANN = {"username": "ann", "password": "pw", "id": "1", "name": "Ann", "email": "ann@example.com"}


def query_of(url: str) -> dict[str, str]:
    """The query parameters of ``url``."""
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
