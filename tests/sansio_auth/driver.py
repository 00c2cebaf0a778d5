"""Our tests' in-memory peer for the engine: the public kit (:mod:`sansio_auth.testing`)
plus the shapes our tests were written against (``AuthPair``, ``Browser(engine, ...)``,
``sign_in_with_credentials``) and a few assertion helpers.

>>> pair = AuthPair.build(providers=[Credentials(authorize=...)])
>>> pair.browser.sign_in_with_credentials(username="ann", password="pw")
>>> pair.browser.session()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from sansio_auth import AuthConfig, Engine, Response
from sansio_auth.testing import (
    ANN,
    ORIGIN,
    SECRET,
    START,
    Clock,
    Performer,
    authorize_from,
    seeded_entropy,
)
from sansio_auth.testing import Browser as KitBrowser
from sansio_auth.testing.browser import StoredCookie, parse_set_cookie

__all__ = [
    "ANN",
    "ORIGIN",
    "SECRET",
    "START",
    "AuthPair",
    "Browser",
    "Clock",
    "Performer",
    "StoredCookie",
    "cookie_names",
    "deleted_names",
    "parse_set_cookie",
    "query_of",
    "seeded_entropy",
    "set_cookie_lines",
    "users",
    "written",
]


class Browser(KitBrowser):
    """The kit's browser, built from an engine's parts, with our tests' raw moves."""

    def __init__(self, engine: Engine, performer: Any, clock: Clock, origin: str) -> None:
        if not isinstance(performer, Performer):  # something that only `run`s flows
            performer = Performer(runner=performer.run)
        self._attach(engine, performer, clock, origin, None)

    def sign_in_with_credentials(self, provider_id: str = "credentials", **fields: str) -> Response:
        """``POST callback/<id>`` with the CSRF token; the engine's answer, not followed."""
        form = {"csrfToken": self.csrf_token(), **fields}
        return self.post(f"{self.base}/callback/{provider_id}", form=form)

    def sign_out(self, **fields: str) -> Response:
        """``POST signout`` with the CSRF token; the engine's answer, not followed."""
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
        performer = Performer()
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
    return authorize_from(records)


def query_of(url: str) -> dict[str, str]:
    """The query parameters of ``url``."""
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
