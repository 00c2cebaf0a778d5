"""A browser for tests: a cookie jar, redirects followed through the engine and the OP."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import msgspec

from ..config import AuthConfig
from ..engine import Engine, NotAnAuthRoute
from ..http import Request, Response
from ._clock import Clock, seeded_entropy
from .op import MemoryOP
from .performer import Performer

ORIGIN = "http://localhost:3000"
"""The origin a :class:`Browser` browses by default."""
MAX_REDIRECTS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass
class StoredCookie:
    """A cookie in the jar: its raw value and when it expires (``None``: with the session)."""

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
    """One user's browser against an engine built from ``config``, all in memory.

    The engine runs on :attr:`clock` (fixed until :meth:`advance`) and entropy seeded by
    ``seed``: the same steps give the same bytes on every run. Actions are answered by
    :attr:`performer` (the engine's own sync driver; ``async def`` callbacks are stepped,
    see :func:`~sansio_auth.testing.performer.step`), HTTP by ``op`` if given.

    >>> op = MemoryOP()
    >>> config = AuthConfig(secret=..., providers=[Credentials(...), op.provider()])
    >>> browser = Browser(config, op=op)
    >>> browser.sign_in("credentials", username="ann", password="pw")
    >>> browser.session()["user"]
    >>> browser.sign_out(); browser.sign_in("op")
    """

    engine: Engine
    performer: Performer
    clock: Clock
    origin: str
    op: MemoryOP | None

    def __init__(
        self,
        config: AuthConfig,
        *,
        op: MemoryOP | None = None,
        origin: str = ORIGIN,
        seed: int | str = 0,
        env: Mapping[str, str] | None = None,
        clock: Clock | None = None,
    ) -> None:
        clock = clock or Clock()
        engine = Engine(config, clock=clock, entropy=seeded_entropy(seed), env=env or {})
        self._attach(engine, Performer(), clock, origin, op)

    @classmethod
    def on(
        cls,
        engine: Engine,
        clock: Clock,
        *,
        performer: Performer | None = None,
        origin: str = ORIGIN,
        op: MemoryOP | None = None,
    ) -> Browser:
        """A browser on an engine you built (``clock`` must be the engine's clock)."""
        browser = cls.__new__(cls)
        browser._attach(engine, performer or Performer(), clock, origin, op)
        return browser

    def _attach(
        self,
        engine: Engine,
        performer: Performer,
        clock: Clock,
        origin: str,
        op: MemoryOP | None,
    ) -> None:
        self.engine, self.performer, self.clock, self.origin, self.op = (
            engine,
            performer,
            clock,
            origin,
            op,
        )
        self.jar: dict[str, StoredCookie] = {}
        self.history: list[tuple[Request, Response]] = []
        """Every request sent and its response, in order."""
        self.url = origin + "/"
        """Where the browser is: the last URL requested, or the last redirect not followed."""
        self.client: str | None = None
        """The address its requests come from, as a server would see it (rate limits per
        client count by it); ``None``: unknown."""
        if op is not None:
            op.clock = clock
            performer.http = op.handle

    def another(self, origin: str | None = None) -> Browser:
        """A second browser (empty jar) on the same engine, performer, clock and OP."""
        return type(self).on(
            self.engine,
            self.clock,
            performer=self.performer,
            origin=origin or self.origin,
            op=self.op,
        )

    def advance(self, seconds: float) -> None:
        """Move the shared clock forward (cookies and sessions expire by it)."""
        self.clock.advance(seconds)

    # -- cookies -----------------------------------------------------------------------------

    def cookies(self) -> dict[str, str]:
        """Live cookies, name → raw value as it travels."""
        now = self.clock.now
        return {
            name: c.value for name, c in self.jar.items() if c.expires is None or c.expires > now
        }

    def cookie_header(self) -> str:
        """The ``Cookie`` header the browser sends."""
        return "; ".join(f"{name}={value}" for name, value in self.cookies().items())

    def store(self, response: Response) -> None:
        """Apply the response's ``Set-Cookie`` lines to the jar (deletions and expiry too)."""
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
        """A request from this browser (its cookies unless ``headers`` has a ``cookie``);
        ``path`` is relative to :attr:`origin` unless it is a whole URL."""
        all_headers = {k.lower(): v for k, v in (headers or {}).items()}
        if form is not None:
            body = urlencode(form).encode()
            all_headers.setdefault("content-type", "application/x-www-form-urlencoded")
        elif json is not None:
            body = msgspec.json.encode(json)
            all_headers.setdefault("content-type", "application/json")
        if "cookie" not in all_headers and self.cookies():
            all_headers["cookie"] = self.cookie_header()
        url = path if "://" in path else self.origin + path
        return Request(
            method=method, url=url, headers=all_headers, body=body or b"", client=self.client
        )

    def send(self, request: Request) -> Response:
        """Serve ``request`` through the engine and keep its cookies."""
        flow = self.engine.handle(request)
        if isinstance(flow, NotAnAuthRoute):
            raise ValueError(f"{request.url} is not an auth route")
        response = self.performer.run(flow)
        self.store(response)
        self.history.append((request, response))
        self.url = request.url
        return response

    def request(self, method: str, path: str, **kwargs: Any) -> Response:
        """:meth:`build` and :meth:`send`."""
        return self.send(self.build(method, path, **kwargs))

    def get(self, path: str, **kwargs: Any) -> Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Response:
        return self.request("POST", path, **kwargs)

    def serves(self, url: str) -> bool:
        """Whether ``url`` is one of the engine's routes on this origin."""
        parts = urlsplit(url)
        here = urlsplit(self.origin)
        return (parts.scheme, parts.netloc) == (here.scheme, here.netloc) and self.engine.serves(
            parts.path
        )

    def follow(self, response: Response, *, as_user: str | None = None) -> Response:
        """Follow redirects through the engine and the OP's authorization endpoint (where
        ``as_user`` logs in); the last response. :attr:`url` tells where it ended."""
        for _ in range(MAX_REDIRECTS):
            if response.status not in _REDIRECTS or response.location is None:
                return response
            url = urljoin(self.url, response.location)
            if self.op is not None and self.op.is_authorize(url):
                response = self.op.authorize(url, as_user).follow(self)
            elif self.serves(url):
                response = self.get(url)
            else:
                self.url = url
                return response
        raise RuntimeError(f"more than {MAX_REDIRECTS} redirects")

    # -- the common moves --------------------------------------------------------------------

    @property
    def base(self) -> str:
        """The engine's ``base_path``."""
        return self.engine.settings.base_path

    def csrf_token(self) -> str:
        """A CSRF token (and its cookie) from ``GET <base>/csrf``."""
        response = self.get(f"{self.base}/csrf")
        token = response.json()["csrfToken"] if response.status == 200 else None
        if not isinstance(token, str):
            raise RuntimeError(f"no CSRF token: {response.status} {response.body!r}")
        return token

    def session(self) -> Any:
        """The session as ``GET <base>/session`` returns it (``None`` when signed out)."""
        response = self.get(f"{self.base}/session")
        if response.status != 200:
            raise RuntimeError(f"GET session answered {response.status}")
        return response.json()

    def update_session(self, data: Any) -> Response:
        """``POST <base>/session`` with ``data`` (for the ``jwt`` callback's ``session``)."""
        return self.post(
            f"{self.base}/session", json={"csrfToken": self.csrf_token(), "data": data}
        )

    def sign_in(
        self, provider_id: str = "credentials", /, *, as_user: str | None = None, **fields: str
    ) -> Response:
        """Sign in with ``provider_id`` and follow the redirects; the last response.

        Credentials providers post ``fields`` (``username=``, ``password=``...) with the
        CSRF token; OAuth/OIDC providers post ``fields`` (``callbackUrl=``...) to start,
        then ``as_user`` (default: the OP's first user) logs in at :attr:`op`; an e-mail
        provider posts ``email=`` and ends on the "check your email" page.
        Signed in or not, :meth:`session` tells; a refusal ends on a URL with ``?error=``.
        """
        provider = self.engine.settings.providers_by_id.get(provider_id)
        if provider is None:
            raise ValueError(f"no provider {provider_id!r} in the configuration")
        route = "callback" if provider.type in ("credentials", "password") else "signin"
        form = {"csrfToken": self.csrf_token(), **fields}
        response = self.post(f"{self.base}/{route}/{provider_id}", form=form)
        return self.follow(response, as_user=as_user)

    def sign_out(self, **fields: str) -> Response:
        """``POST <base>/signout`` with the CSRF token (and ``callbackUrl=``...), followed."""
        form = {"csrfToken": self.csrf_token(), **fields}
        return self.follow(self.post(f"{self.base}/signout", form=form))
