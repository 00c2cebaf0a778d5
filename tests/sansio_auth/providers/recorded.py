"""A provider's service replayed from recorded responses, for catalogue provider tests.

>>> service = Recorded({("POST", TOKEN_URL): fixture("github/token.json"), ...})
>>> pair.performer.http = service.handle
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from sansio_auth import Response
from sansio_auth.events import HTTPResponse, OutboundRequest
from tests.sansio_auth.driver import Browser

FIXTURES = Path(__file__).parent / "fixtures"
Answer = HTTPResponse | Callable[[OutboundRequest], HTTPResponse]


def fixture(name: str, status: int = 200, **headers: str) -> HTTPResponse:
    """The recorded JSON body ``fixtures/<name>`` as a response."""
    body = (FIXTURES / name).read_bytes()
    return HTTPResponse(
        status=status,
        headers={
            "content-type": "application/json",
            **{k.replace("_", "-"): v for k, v in headers.items()},
        },
        body=body,
    )


def fixture_json(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def json_response(value: Any, status: int = 200) -> HTTPResponse:
    return HTTPResponse(
        status=status, headers={"content-type": "application/json"}, body=json.dumps(value).encode()
    )


@dataclass
class Recorded:
    """Answers each ``(method, URL without query)`` with its recorded response; 404 otherwise."""

    routes: dict[tuple[str, str], Answer]
    requests: list[OutboundRequest] = field(default_factory=list)

    def handle(self, request: OutboundRequest) -> HTTPResponse:
        self.requests.append(request)
        answer = self.routes.get((request.method, request.url.split("?")[0]))
        if answer is None:
            return HTTPResponse(status=404, body=b'{"message":"Not Found"}')
        return answer(request) if callable(answer) else answer

    def sent(self, method: str, url: str) -> list[OutboundRequest]:
        return [r for r in self.requests if r.method == method and r.url.split("?")[0] == url]


def headers_of(request: OutboundRequest) -> dict[str, str]:
    return dict(request.headers)


def form_of(request: OutboundRequest) -> dict[str, str]:
    return dict(parse_qsl(request.body.decode()))


def callback(browser: Browser, provider_id: str, params: Mapping[str, str]) -> Response:
    """The browser comes back from the provider to ``callback/<id>?<params>``."""
    return browser.get(f"{browser.base}/callback/{provider_id}?{urlencode(params)}")
